// Task allocators: the top level of the search, deciding which task of a network gets the next
// round of trials (env/network_env.h is the environment they act in).
//
//   round_robin  every task in turn; the baseline that cannot starve anything.
//   gradient     Ansor's task scheduler: after a round-robin warm-up, the task whose
//                end-to-end gradient is most negative, gradient = weight x (alpha x backward +
//                (1 - alpha) x forward), backward the best's slope over the last `window`
//                rounds, forward the lesser of g - g/t (one more round's optimistic gain) and
//                beta x FLOPs / (best throughput among similar tasks) minus g. alpha 0.2,
//                window 3, beta 2.
//   harl         after the same warm-up, the task whose next rounds should cut the estimate most
//                per second: share of the estimate x expected relative gain per round / its
//                round time. The gain is a curve over the round index learned from every task's
//                rounds (agents/gain_curve.h: falling about as 1/k^2, a first search round
//                sometimes weaker than the second), times the task's own scale on it (found over
//                what the curve expected), averaged over the best horizon of one to three rounds;
//                a task 2x slower than a similar one is scaled so that what is left of the curve
//                reaches half that task's throughput (see HarlAllocator in the .cc).
// Exhausted tasks are never chosen.
//
// Adding an allocator: implement TaskAllocator in agents/<name>.{h,cc} (or here when small),
// add it to `make_allocator` and `allocator_names`, and to tests/unit/agents/task_allocator_test.cc.
// `build/tessera_bench allocator_replay` then runs it beside the others on the logged 20-minute
// searches of three networks (tests/data/network_traces/) in about a second; harl is held to
// gradient and round-robin on them by tests/unit/experiments/allocator_replay_test.cc.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "env/network_env.h"
#include "schedule/result.h"

namespace tessera::agents {

class TaskAllocator {
 public:
  virtual ~TaskAllocator() = default;
  virtual std::string name() const = 0;
  // The task for the next round; -1 when no task can take one.
  virtual int choose(const env::NetworkObservation& obs) = 0;
  // What the round earned (env::NetworkStep::reward), after the environment stepped.
  virtual void observe(int task, double reward, const env::NetworkObservation& obs) {}
  // Why the last `choose` picked its task, in a few words for the run's log.
  const std::string& reason() const { return reason_; }

 protected:
  std::string reason_;
};

Result<std::unique_ptr<TaskAllocator>> make_allocator(const std::string& name, uint64_t seed);
std::vector<std::string> allocator_names();

// Ansor's gradient for task `i` (negative: a round there is expected to help); exposed for tests.
double ansor_gradient(const env::NetworkObservation& obs, int i, double alpha = 0.2, int window = 3,
                      double beta = 2.0);

}  // namespace tessera::agents

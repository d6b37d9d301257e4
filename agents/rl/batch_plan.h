// The batch plan: how one batch of harl is filled from the round's pooled source proposals.
//
// `compose_batch(task, pool, plan)` fills, in order:
//   1. each source's quota with that source's best-scored unmeasured candidates (fewer when it
//      has fewer), in the plan's source order;
//   2. the open rest by score across every source, a sketch's quota of it first with that
//      sketch's best-scored (the proxy compares candidates of one sketch better than across
//      sketches), plus an ε share of the batch at random (tagged "random");
// each pass through select_batch (agents/batch.h), spread if the plan says so.
// contending_sketches decides which sketches the sketch quotas protect (see there).
// SourcePlanner decides the quotas: a sliding-window UCB bandit over the sources, rewarded
// after each batch by each source's share of the batch's measured improvement (plan_quotas).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "agents/batch.h"
#include "agents/rl/candidate_source.h"
#include "agents/sliding_window_ucb.h"

namespace tessera::agents::rl {

inline constexpr const char* kRandomSource = "random";  // the tag of the ε picks

struct BatchPlan {
  int count = 0;
  std::vector<std::pair<std::string, int>> source_quotas;  // filled first, in this order
  std::map<int, int> sketch_quotas;                        // of the open rest
  double epsilon = 0;                                      // share of `count` drawn at random
  bool spread = false;
};

// The batch `plan` describes, from `pool` (candidates tagged by their source; duplicates and
// measured ones allowed). Batch::random holds the ε picks.
Batch compose_batch(const env::TuningTask& task, const Scored& pool, const BatchPlan& plan, std::mt19937_64& rng);

// The sketches still in contention for the task's best: those with fewer than `min_trials`
// measurements (failed ones included), and those whose fastest is within `margin` of the task's fastest (at
// least margin x its throughput). The per-sketch quotas exist so the proxy's preference across
// sketches cannot starve a sketch that could win; once measurement has had a fair look at a
// sketch and it trails by more than the margin, its reserved slots go to the contenders (it
// can still win slots by score, by a source or at random, and re-enters if it catches up).
std::vector<int> contending_sketches(const env::TuningTask& task, int min_trials, double margin);

// `slots` split evenly among `sketches` (the first ones get the remainder).
std::map<int, int> split_evenly(const std::vector<int>& sketches, int slots);

// The quotas a bandit over `sources` gives `slots` slots: one each while slots last, the rest
// in proportion to each arm's upper confidence bound (an arm never played counts as the best
// played one, or 1 when none was), largest remainders first.
std::vector<std::pair<std::string, int>> plan_quotas(const SlidingWindowUcb& bandit,
                                                     const std::vector<std::string>& sources, int slots);

// The bandit over sources and its reward.
class SourcePlanner {
 public:
  SourcePlanner(std::vector<std::string> sources, int window, double exploration)
      : sources_(std::move(sources)), bandit_(static_cast<int>(sources_.size()), window, exploration) {}

  std::vector<std::pair<std::string, int>> quotas(int slots) const { return plan_quotas(bandit_, sources_, slots); }
  // Rewards each source that had candidates in `measured`: its share of the batch's gains over
  // `best_before` (each measurement's throughput / best_before - 1, when positive); in a batch
  // without a gain, half of how close its best came to best_before. In [0, 1].
  void reward(const std::vector<env::Measurement>& measured, double best_before);

  const SlidingWindowUcb& bandit() const { return bandit_; }
  const std::vector<std::string>& sources() const { return sources_; }

 private:
  std::vector<std::string> sources_;
  SlidingWindowUcb bandit_;
};

}  // namespace tessera::agents::rl

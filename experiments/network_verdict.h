// The network's verdict at the end of a network tune: each task's tuned kernel against its
// runners-up and its default, timed where the user runs them, in the network.
//
// A task is tuned by timing its kernel alone, and among thousands of near-equal schedules the
// recorded best is the luckiest timing; in the network a kernel also runs beside its neighbours,
// which timing alone cannot see. On BERT-base (AMD EPYC Zen 5, bench/NOTES.md stop 97) the
// tuned FFN matmuls were recorded 6-8% ahead of their defaults yet ran 4-5% behind them in the
// network, and the untuned network ran in 0.968 of the tuned one's time (95% interval
// 0.954-0.982, over ten processes); on ResNet-50 a harl run's second-ranked kernel of a conv
// ran 9% faster in the network than its first. So the records' choice stands only where the
// network agrees.
//
// For each level (the records' best, their second, ..., their `rivals + 1`-th schedule of every
// workload, and the default schedules) `copies` networks are built, all run interleaved (an
// inference of each in turn, the order rotated) with every task timed. A task whose recorded
// best is not its default is judged: each level's time per call against the best's; where
// another level's kernel is faster by more than `margin` in every copy (the fastest such by the
// geometric mean over copies: the least of four noisy timings always names some level), a
// record of that schedule with source runtime::kNetworkSource goes to `verdicts.jsonl` in the
// run directory, its cost the best's ranked cost times that ratio, so the executor
// (runtime/record_bests.h) ranks it first; a schedule found later that times faster still wins.
//
// A task's time also depends on its neighbours (on MobileNetV2 a conv whose own kernel was the
// same ran 12% slower after its predecessor's default was kept), so the verdicts are judged
// together too: `copies` networks built with them run interleaved with the best's, and unless
// they are faster by the median inference (geometric mean over copies), none is kept. They are
// written only then, verdicts.jsonl replaced whole by a rename, so a run killed at any moment
// keeps all of one check's verdicts or none, never ones the network did not judge together.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/fuse.h"
#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::runtime {
class ExecutorCache;
}

namespace tessera::experiments {

struct VerdictOptions {
  int runs = 30;         // inferences of each network
  int copies = 2;        // networks of each level: a network's memory placement moves it 2-3%
  int rivals = 2;        // runners-up of the records' best timed beside it
  double margin = 0.01;  // another kernel must be this much faster than the best, in every copy
  int threads = 1;
  uint64_t seed = 1;     // the inputs, and the load-time kernel checks
  // Called when the verdicts are about to be judged together, before any is kept: where a kill
  // must find verdicts.jsonl as it was (the tests' window).
  std::function<void()> before_together;
};

struct TaskVerdict {
  enum class Kept { kBest, kRival, kDefault };
  std::string task;          // the task's name, e.g. "t7_matmul_add_div_erf_add_mul_mul"
  std::string workload_key;
  double tuned_ms = 0;       // per call in the network: the records' best
  double default_ms = NAN;   // the default schedule (NaN: not judged)
  double rival_ms = NAN;     // the fastest runner-up (NaN: none)
  int rival_rank = 0;        // its rank in the records (2, 3, ...; 0: none)
  Kept kept = Kept::kBest;   // what the verdict keeps: a verdict record was written unless kBest
  int kept_rank = 1;         // the kept kernel's rank in the records (0: the default)
  double kept_ms = 0;        // its time per call in the network
};

struct NetworkVerdict {
  std::vector<TaskVerdict> tasks;  // every task judged
  // The network with the verdicts over the records' best, per inference (0: no verdict).
  double kept_over_tuned = 0;
  bool taken_back = false;  // the verdicts did not make the network faster: none stands
};

// Judges every task of `tasks` whose best in the records of `run_dir` is not its default
// (tasks on defaults or without records are left out) and writes the verdicts that keep another
// kernel to `run_dir`/verdicts.jsonl, unless the network with them is not the faster. An Error
// when a network cannot be built or run, or a file cannot be written.
Result<NetworkVerdict> network_verdict(const graph::Graph& folded, const graph::NetworkTasks& tasks,
                                                 const std::string& run_dir, const VerdictOptions& options,
                                                 runtime::ExecutorCache* cache = nullptr);

}  // namespace tessera::experiments

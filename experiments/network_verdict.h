// The network's verdict at the end of a network tune: each task's tuned kernel against its
// default, timed where the user runs them, in the network.
//
// A task is tuned by timing its kernel alone, and among thousands of near-equal schedules the
// recorded best is the luckiest timing; in the network a kernel also runs beside its neighbours,
// which timing alone cannot see. On BERT-base (AMD EPYC Zen 5, bench/NOTES.md stop 97) the
// tuned FFN matmuls were recorded 6-8% ahead of their defaults yet ran 4-5% behind them in the
// network, and the tuned network ran 3.2% slower than the untuned one (95% interval 1.8-4.6%,
// over ten processes). So a tuned kernel replaces its default only where the network agrees.
//
// `copies` networks are built from the run's records and as many from the default schedules
// alone, all run interleaved (an inference of each in turn, the order rotated) with every task
// timed. For each task whose recorded schedule differs from its default, the default's time per
// call over the tuned one's (each the geometric mean over its copies) is the verdict; where the
// default is faster by more than `margin`, a record of the default schedule with source
// runtime::kNetworkSource goes to `verdicts.jsonl` in the run directory, its cost the tuned
// best's ranked cost times that ratio, so the executor (runtime/record_bests.h) ranks the
// default first; a schedule found later that times faster still wins.
//
// A task's time also depends on its neighbours (on MobileNetV2 a conv whose own kernel was the
// same ran 12% slower after its predecessor's default was kept), so the verdicts are judged
// together too: `copies` networks built with them run interleaved with the tuned ones, and
// unless they are faster by the median inference (geometric mean over copies), the verdicts
// are taken back (verdicts.jsonl as it was).
#pragma once

#include <cstdint>
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
  int copies = 2;        // networks of each kind: a network's memory placement moves it 2-3%
  double margin = 0.01;  // the default must be at least this much faster to be kept
  int threads = 1;
  uint64_t seed = 1;     // the inputs, and the load-time kernel checks
};

struct TaskVerdict {
  std::string task;          // the task's name, e.g. "t7_matmul_add_div_erf_add_mul_mul"
  std::string workload_key;
  double tuned_ms = 0;       // per call in the network, the recorded schedule
  double default_ms = 0;     // per call in the network, the default schedule
  bool keep_default = false;  // a verdict record was written
};

struct NetworkVerdict {
  std::vector<TaskVerdict> tasks;  // every task judged
  // The network with the kept defaults over the tuned one, per inference (0: none kept).
  double kept_over_tuned = 0;
  bool taken_back = false;  // the kept defaults did not make the network faster: none stands
};

// Judges every task of `tasks` whose schedule in the records of `run_dir` is not its default
// (tasks on defaults or without records are left out) and writes the verdicts that keep a
// default to `run_dir`/verdicts.jsonl, unless the network with them is not the faster. An
// Error when a network cannot be built or run, or the file cannot be written.
Result<NetworkVerdict> network_verdict(const graph::Graph& folded, const graph::NetworkTasks& tasks,
                                                 const std::string& run_dir, const VerdictOptions& options,
                                                 runtime::ExecutorCache* cache = nullptr);

}  // namespace tessera::experiments

// Runner: measures built candidates in a reused, isolated worker process.
//
// Candidates are measured one at a time. The worker (tessera-worker) is started on first use
// and kept; the Runner enforces a timeout per candidate. A candidate that crashes the worker,
// hangs it or makes it run out of memory becomes an error result (worker crash / run timeout)
// and the next candidate gets a fresh worker: the batch always goes on. The worker's address
// space is limited so a runaway allocation fails there, not on the machine.
//
// The worker is pinned to fixed cores: the last `threads` CPUs this process may use (or
// $TESSERA_MEASURE_CPUS, e.g. "3" or "2,3"). Unpinned, it landed on whichever core the
// scheduler chose, and cores are not alike: on a 2-core cloud machine CPU 0 (which also takes
// the machine's interrupts) ran the same kernel 15% slower than CPU 1, so medians from two
// worker processes differed by that much. Pinned, every candidate is timed on the same core.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/check.h"
#include "runtime/measure.h"
#include "runtime/worker_protocol.h"

namespace tessera::runtime {

struct RunnerOptions {
  // The worker executable; empty: $TESSERA_WORKER, else tessera-worker next to this program,
  // else the one in the build tree.
  std::string worker_path;
  // The worker's address space; 0: no limit (a GPU driver maps far more than it uses).
  uint64_t memory_limit_bytes = uint64_t{8} << 30;
};

// The CPUs a worker measuring with `threads` threads is pinned to (see above).
std::vector<int> measurement_cpus(int threads);
// Pins the calling thread to `cpus`; false if the system refused.
bool pin_this_thread(const std::vector<int>& cpus);

class Runner {
 public:
  explicit Runner(RunnerOptions options = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Measures one built candidate against `task`. Build failures pass through unchanged.
  MeasureResult measure(const MeasureTask& task, const BuildResult& build,
                        const MeasureOptions& options);
  // Hands the worker `run`, a message of any kind it has a RunHandler for (worker.h), against
  // `task`, with the same timeout, crash and restart rules as measure().
  MeasureResult measure_message(const MeasureTask& task, const Message& run, const MeasureOptions& options);
  std::vector<MeasureResult> measure_batch(const MeasureTask& task,
                                           const std::vector<BuildResult>& builds,
                                           const MeasureOptions& options);

  int workers_started() const { return workers_started_; }

 private:
  Result<void> ensure_worker(int threads);
  // Kills the worker (if any) and says how it ended, for error messages.
  std::string stop_worker(bool kill_first);

  RunnerOptions options_;
  pid_t pid_ = -1;
  int socket_ = -1;
  int stderr_pipe_ = -1;
  std::string task_key_;  // the task the current worker holds
  int threads_ = 0;       // the thread count the current worker is pinned for
  int workers_started_ = 0;
};

// Where tessera-worker is looked for by default (see RunnerOptions::worker_path).
std::string default_worker_path();

}  // namespace tessera::runtime

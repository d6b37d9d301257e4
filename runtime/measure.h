// The vocabulary of measurement: error classes, the timing protocol's options, and the results
// of building and of running a candidate.
//
// A candidate that fails in any way becomes a result carrying one of these error classes and a
// message a user can act on; nothing in the builder or runner throws or aborts the tuning run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kernel.h"
#include "schedule/result.h"

namespace tessera::runtime {

enum class MeasureError : uint8_t {
  kNone,
  kCompileError,    // the schedule could not be lowered or compiled
  kCompileTimeout,  // compiling took longer than the limit (or would: too large to compile)
  kRuntimeError,    // the kernel ran but misbehaved (e.g. wrote outside its buffers)
  kRunTimeout,      // the kernel did not finish in time; the worker was killed
  kWrongAnswer,     // outputs differ from the reference beyond the tolerance
  kWorkerCrash,     // the worker process died (segfault, abort, out of memory)
};
const char* to_string(MeasureError error);  // "compile_error", ...
Result<MeasureError> measure_error_from_string(const std::string& text);

// The timing protocol (see runtime/timing.h for the in-process version).
struct MeasureOptions {
  int warmup = 1;              // warm-up calls before the repeats (each timed on its own)
  double min_warmup_ms = 30;   // ...and more until warming up has lasted this long
  // ...or only this long when the worker measured another candidate just before (no idle
  // spell: its core's clock is up; runtime/worker.h). The kernel's first call, for its check,
  // has already run by then.
  double back_to_back_warmup_ms = 3;
  int number = 1;              // least calls per repeat; sized from the fastest warm-up call
  int repeat = 3;              // timed repeats, each one's cost returned (fewer after a give-up)
  // A repeat lasts at least this long. 20 ms, not 50: on 256 recorded candidates of each of
  // three network runs (bench/run.sh measure_protocols), three 20 ms repeats put a candidate's
  // median within 1.2-1.7% of the 50 ms protocol's, as close as that protocol comes to itself
  // (1.0-1.9%), crowned as fast a kernel per batch, and took 0.55-0.72 of its wall time.
  double min_repeat_ms = 20;
  bool flush_cache = false;    // evict the caches before each repeat
  // Evict the constant inputs and the buffers packed from them before every timed call, as a
  // network run finds them: each layer's weights come from memory once per inference (ResNet-50's
  // 100 MB are three times a 32 MB last-level cache), while a warm timing loop keeps a 2-9 MB
  // layer's weights in cache and ranks schedules by a time the network never sees.
  bool cold_constants = false;
  int threads = 1;             // threads for parallel loops
  // Compile a batch's later candidates on the cores the worker does not time on while it times
  // the first ones (runtime/builder.h, BuildPipeline); off: the whole batch first, on every core.
  bool compile_while_timing = true;
  // A candidate whose fastest warm-up call, or else first repeat, is slower than this per call,
  // or whose check call (its first, cold) is kColdCallMargin times slower, is timed no further
  // (TimingOptions::give_up_seconds; 0: never). Set from give_up_ratio.
  double give_up_seconds = 0;
  // give_up_seconds = give_up_ratio x the task's best so far (0: off). A candidate's first
  // 50 ms repeat (the length then) was within 1.04-1.23x of its own median in 99% of the full
  // timings of 14 race runs, so one first seen past 1.25x would almost never have beaten the
  // best; 4-35% of those runs' candidates (about 15% typically) land between 1.25x and 1.5x
  // (bench/NOTES.md). The warm-up is judged by the same ratio: by its fastest call, or for
  // kernels over `warmup_ms` by one call at least that long (30 ms by default, longer than a
  // repeat).
  double give_up_ratio = 1.25;
  // The task's best so far (a median; 0: none), set with give_up_seconds (give_up_ratio 0 turns
  // both off): timing stops once the candidate's median can no longer beat it
  // (TimingOptions::best_seconds).
  double best_seconds = 0;
  double compile_timeout_s = 20;
  double run_timeout_s = 10;   // per candidate, including correctness check and timing
};

struct BuildResult {
  ObjectCode object;  // valid when error == kNone
  MeasureError error = MeasureError::kNone;
  std::string message;
  double compile_seconds = 0;
};

struct MeasureResult {
  std::vector<double> costs;  // seconds per call, one per repeat
  MeasureError error = MeasureError::kNone;
  std::string message;
  double compile_seconds = 0;
  double max_error = 0;       // against the reference (all checks, not only wrong answers)
  std::string measured_by;    // where, when not this process's machine: e.g. "rank 2 on host-b" (mpi/)
  double median() const;      // of costs; 0 when there are none
};

}  // namespace tessera::runtime

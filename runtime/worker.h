// The measurement worker's loop: runs in its own process (tessera-worker, started by a
// Runner), reads "task" and "run" messages from `fd`, links each candidate's object code,
// checks and times it (measure_loaded_kernel) and answers with a "result". A crash or hang of
// a kernel kills only this process; the Runner notices and starts another.
//
// Runs of other kinds (a GPU image: cuda/gpu_worker.h) come as messages of their own type and
// are answered by the RunHandler registered for that type, against the same task; a type no
// handler knows is answered with an error result, not a dead worker.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "runtime/check.h"
#include "runtime/measure.h"
#include "runtime/worker_protocol.h"

namespace tessera::runtime {

// What a RunHandler answers: the result, and whether this worker should end after sending it
// (its process is no longer fit to measure, e.g. a GPU context left broken by a faulting
// kernel); the Runner then starts a fresh worker for the next candidate.
struct RunOutcome {
  MeasureResult result;
  bool retire = false;
};
// Checks and times the candidate a run message of its type describes, against `task`.
using RunHandler = std::function<RunOutcome(const Message& run, const MeasureTask& task)>;

// The warm-up a candidate gets in a worker whose last measurement ended `idle_seconds` ago:
// options.min_warmup_ms after an idle spell (longer than kIdleSpellSeconds), when the core's
// clock may have dropped; back_to_back_warmup_ms (if shorter) right after another candidate,
// as a batch's later candidates come. On ResNet-50's recorded candidates a 3 ms warm-up gave
// the same medians as 30 ms, back to back and even after 1.5 s idle (bench/NOTES.md,
// `warmup_levels`); the full one stays for the first of a batch.
inline constexpr double kIdleSpellSeconds = 0.1;
double warmup_ms_after(const MeasureOptions& options, double idle_seconds);

// Serves until the stream ends; returns the process exit code.
int serve_worker(int fd, const std::map<std::string, RunHandler>& handlers = {});

}  // namespace tessera::runtime

// The measurement worker's loop (see worker.h).
#include "runtime/worker.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "runtime/measure_local.h"
#include "runtime/timing.h"

namespace tessera::runtime {

namespace {

// A fresh worker's core may have idled while the batch compiled, and its clock takes tens of
// milliseconds to ramp up: the first candidate a worker timed ran slowest in 10-process
// repeatability runs. Busy work for 200 ms once per worker, before its first timing. (It ran
// on every change of task, so a worker serving several workloads, as an MPI rank does, paid it
// at each switch; a 30 ms warm-up after 1.5 s idle measures the same medians, bench/NOTES.md
// `warmup_levels`.)
void spin_up_core() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  volatile double x = 1.0;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
  }
}

}  // namespace

double warmup_ms_after(const MeasureOptions& options, double idle_seconds) {
  if (idle_seconds > kIdleSpellSeconds) return options.min_warmup_ms;
  return std::min(options.min_warmup_ms, options.back_to_back_warmup_ms);
}

int serve_worker(int fd, const std::map<std::string, RunHandler>& handlers) {
  std::optional<MeasureTask> task;
  bool spun_up = false;
  std::optional<std::chrono::steady_clock::time_point> last_measured;  // when the last run ended
  while (true) {
    auto message = receive_message(fd);
    if (!message) return message.error().message == kEndOfStream ? 0 : 2;
    const std::string type = message->header.value("type", "");
    if (type == "task") {
      auto parsed = task_from_message(*message);
      if (!parsed) return 3;
      task = std::move(*parsed);
      if (!spun_up) spin_up_core(), spun_up = true;
      continue;
    }
    MeasureResult result;
    if (type != "run") {
      auto handler = handlers.find(type);
      RunOutcome outcome;
      if (handler == handlers.end()) {
        outcome.result.error = MeasureError::kRuntimeError;
        outcome.result.message = "this worker cannot run a '" + type + "' message";
      } else if (!task) {
        outcome.result.error = MeasureError::kRuntimeError;
        outcome.result.message = "the worker received a candidate before its task";
      } else {
        outcome = handler->second(*message, *task);
      }
      nlohmann::json reply = result_to_json(outcome.result);
      if (outcome.retire) reply["retire"] = true;
      if (!send_message(fd, Message{reply, {}})) return 4;
      if (outcome.retire) return 0;
      continue;
    }
    auto run = run_from_message(*message);
    if (!run || !task) {
      result.error = MeasureError::kRuntimeError;
      result.message = !run ? run.error().message : "the worker received a candidate before its task";
    } else if (auto kernel = load_kernel(run->first); !kernel) {
      result.error = MeasureError::kRuntimeError;
      result.message = "cannot load the kernel: " + kernel.error().message;
    } else {
      MeasureOptions options = run->second;
      options.min_warmup_ms = warmup_ms_after(options, last_measured ? seconds_since(*last_measured) : INFINITY);
      result = measure_loaded_kernel(*kernel, *task, options);
      last_measured = std::chrono::steady_clock::now();
    }
    if (!send_message(fd, Message{result_to_json(result), {}})) return 4;
  }
}

}  // namespace tessera::runtime

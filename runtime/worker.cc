// The measurement worker's loop (see worker.h).
#include "runtime/worker.h"

#include <chrono>
#include <optional>

#include "runtime/measure_local.h"

namespace tessera::runtime {

namespace {

// A fresh worker's core may have idled while the batch compiled, and its clock takes tens of
// milliseconds to ramp up: the first candidate a worker timed ran slowest in 10-process
// repeatability runs. Busy work for 200 ms once per worker and task, before any timing.
void spin_up_core() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  volatile double x = 1.0;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
  }
}

}  // namespace

int serve_worker(int fd, const std::map<std::string, RunHandler>& handlers) {
  std::optional<MeasureTask> task;
  while (true) {
    auto message = receive_message(fd);
    if (!message) return message.error().message == kEndOfStream ? 0 : 2;
    const std::string type = message->header.value("type", "");
    if (type == "task") {
      auto parsed = task_from_message(*message);
      if (!parsed) return 3;
      task = std::move(*parsed);
      spin_up_core();
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
      result = measure_loaded_kernel(*kernel, *task, run->second);
    }
    if (!send_message(fd, Message{result_to_json(result), {}})) return 4;
  }
}

}  // namespace tessera::runtime

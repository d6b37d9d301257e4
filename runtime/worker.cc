// The measurement worker's loop (see worker.h).
#include "runtime/worker.h"

#include <optional>

#include "runtime/measure_local.h"
#include "runtime/worker_protocol.h"

namespace tessera::runtime {

int serve_worker(int fd) {
  std::optional<MeasureTask> task;
  while (true) {
    auto message = receive_message(fd);
    if (!message) return message.error().message == kEndOfStream ? 0 : 2;
    const std::string type = message->header.value("type", "");
    if (type == "task") {
      auto parsed = task_from_message(*message);
      if (!parsed) return 3;
      task = std::move(*parsed);
      continue;
    }
    if (type != "run") return 3;
    MeasureResult result;
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

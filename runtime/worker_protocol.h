// Messages between a Runner and its measurement worker, over a stream socket.
//
// A message is a JSON header plus binary blobs (object code, float arrays), framed by lengths.
// The Runner sends "task" (inputs and reference values, once per task and worker) and "run"
// (one candidate's object code and the timing protocol); the worker answers each "run" with a
// "result". Other kinds of run (a GPU image: cuda/gpu_worker.h) are messages of their own type
// that the worker hands to a RunHandler (worker.h). Reads take a deadline so the Runner can time out a hung worker.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/check.h"
#include "runtime/measure.h"

namespace tessera::runtime {

struct Message {
  nlohmann::json header;
  std::vector<std::string> blobs;
};

Result<void> send_message(int fd, const Message& message);
// Waits until `deadline` (none: forever). A timeout, end of stream or malformed frame is an
// Error whose message says which.
Result<Message> receive_message(
    int fd, std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
inline constexpr const char* kTimedOut = "timed out";
inline constexpr const char* kEndOfStream = "end of stream";

Message task_message(const MeasureTask& task);
Result<MeasureTask> task_from_message(const Message& message);

// The timing protocol as JSON (every run message carries it; cuda/gpu_worker.h's too).
nlohmann::json options_to_json(const MeasureOptions& options);
Result<MeasureOptions> options_from_json(const nlohmann::json& json);

Message run_message(const ObjectCode& object, const MeasureOptions& options);
Result<std::pair<ObjectCode, MeasureOptions>> run_from_message(const Message& message);

nlohmann::json result_to_json(const MeasureResult& result);
Result<MeasureResult> result_from_json(const nlohmann::json& json);

}  // namespace tessera::runtime

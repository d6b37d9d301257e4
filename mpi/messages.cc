// Results over MPI (see messages.h): the worker protocol's result encoding plus compile time.
#include "mpi/messages.h"

#include "runtime/worker_protocol.h"

namespace tessera::mpi {

nlohmann::json result_message(uint64_t batch, size_t index, const runtime::MeasureResult& result) {
  nlohmann::json encoded = runtime::result_to_json(result);
  encoded["compile_seconds"] = result.compile_seconds;
  return {{"type", "result"}, {"batch", batch}, {"index", index}, {"result", encoded}};
}

runtime::MeasureResult result_of(const nlohmann::json& message) {
  runtime::MeasureResult result;
  auto decoded = message.contains("result") ? runtime::result_from_json(message.at("result"))
                                            : Result<runtime::MeasureResult>(make_error("no result"));
  if (!decoded) {
    result.error = runtime::MeasureError::kRuntimeError;
    result.message = "malformed result from a rank: " + decoded.error().message;
    return result;
  }
  result = std::move(*decoded);
  result.compile_seconds = message.at("result").value("compile_seconds", 0.0);
  return result;
}

}  // namespace tessera::mpi

// Error class names and result helpers (see measure.h).
#include "runtime/measure.h"

#include "runtime/timing.h"

namespace tessera::runtime {

namespace {
constexpr std::pair<MeasureError, const char*> kNames[] = {
    {MeasureError::kNone, "none"},
    {MeasureError::kCompileError, "compile_error"},
    {MeasureError::kCompileTimeout, "compile_timeout"},
    {MeasureError::kRuntimeError, "runtime_error"},
    {MeasureError::kRunTimeout, "run_timeout"},
    {MeasureError::kWrongAnswer, "wrong_answer"},
    {MeasureError::kWorkerCrash, "worker_crash"},
};
}  // namespace

const char* to_string(MeasureError error) {
  for (const auto& [e, name] : kNames) {
    if (e == error) return name;
  }
  return "unknown";
}

Result<MeasureError> measure_error_from_string(const std::string& text) {
  for (const auto& [e, name] : kNames) {
    if (text == name) return e;
  }
  return make_error("unknown error class '" + text + "'");
}

double MeasureResult::median() const { return runtime::median(costs); }

}  // namespace tessera::runtime

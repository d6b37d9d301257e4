// One candidate's check and timing in this process (see measure_local.h).
#include "runtime/measure_local.h"

#include <cstdio>

#include "runtime/parallel_runtime.h"
#include "runtime/timing.h"

namespace tessera::runtime {

std::vector<ColdBuffer> constant_buffers(const Kernel& kernel, const MeasureTask& task, const std::vector<void*>& args) {
  std::vector<ColdBuffer> out;
  for (size_t i = 0; i < task.constant_inputs.size() && i < task.inputs.size() && i < args.size(); ++i) {
    if (task.constant_inputs[i]) out.push_back({args[i], task.inputs[i].size() * sizeof(float)});
  }
  const auto& packed = kernel.packed();
  for (size_t i = 0; i < packed.size(); ++i) {
    out.push_back({kernel.packed_buffers()[i], static_cast<size_t>(packed[i].size) * sizeof(float)});
  }
  return out;
}

MeasureResult measure_loaded_kernel(const Kernel& kernel, const MeasureTask& task,
                                    const MeasureOptions& options) {
  MeasureResult result;
  set_num_threads(options.threads);
  auto buffers = task_buffers(task);
  auto check = run_and_check(kernel, task, buffers);
  if (!check) {
    result.error = MeasureError::kRuntimeError;
    result.message = check.error().message;
    return result;
  }
  result.max_error = check->comparison.max_error;
  if (!check->guard_violation.empty()) {
    result.error = MeasureError::kRuntimeError;
    result.message = check->guard_violation;
    return result;
  }
  if (!check->comparison.ok) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "output '%s' differs from the reference: max error %.3g at element %lld "
                  "(tolerance %.3g, %lld of %lld checked elements wrong)",
                  check->worst_output.c_str(), check->comparison.max_error,
                  static_cast<long long>(check->comparison.worst_index), task.tolerance,
                  static_cast<long long>(check->comparison.mismatches),
                  static_cast<long long>(check->points_checked));
    result.error = MeasureError::kWrongAnswer;
    result.message = text;
    return result;
  }
  std::vector<void*> args;
  for (auto& b : buffers) args.push_back(b->data());
  TimingOptions timing_options;
  timing_options.warmup = options.warmup;
  timing_options.min_warmup_ms = options.min_warmup_ms;
  timing_options.number = options.number;
  timing_options.repeats = options.repeat;
  timing_options.min_repeat_ms = options.min_repeat_ms;
  timing_options.flush_cache = options.flush_cache;
  timing_options.give_up_seconds = options.give_up_seconds;
  timing_options.best_seconds = options.best_seconds;
  timing_options.first_call_seconds = check->call_seconds;
  const std::vector<ColdBuffer> cold = options.cold_constants ? constant_buffers(kernel, task, args) : std::vector<ColdBuffer>{};
  if (!cold.empty()) {
    timing_options.before_each_call = [&cold] {
      for (const ColdBuffer& b : cold) evict_from_caches(b.data, b.bytes);
    };
  }
  result.costs = time_callable([&] { kernel.run_unchecked(args.data()); }, timing_options).seconds;
  return result;
}

}  // namespace tessera::runtime

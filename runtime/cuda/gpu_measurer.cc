// Compile on every core, measure on the GPU in a worker process (see gpu_measurer.h).
#include "runtime/cuda/gpu_measurer.h"

#include "runtime/cuda/gpu_worker.h"

namespace tessera::runtime::cuda {

std::vector<MeasureResult> GpuMeasurer::measure(const schedule::ComputeDAG& dag,
                                                const std::vector<std::vector<schedule::Step>>& schedules) {
  std::vector<MeasureResult> results(schedules.size());
  auto task = tasks_.find(dag.workload_key());
  if (task == tasks_.end()) {
    auto made = make_measure_task(dag, seed_);
    if (!made) {
      for (MeasureResult& r : results) {
        r.error = MeasureError::kRuntimeError;
        r.message = "no reference outputs: " + made.error().message;
      }
      return results;
    }
    task = tasks_.emplace(dag.workload_key(), std::move(*made)).first;
  }
  std::vector<BuildInput> inputs;
  for (const auto& steps : schedules) inputs.push_back({&dag, steps});
  auto builds = build_cuda_batch(inputs, build_);
  for (size_t i = 0; i < builds.size(); ++i) {
    if (builds[i].error != MeasureError::kNone) {
      results[i].error = builds[i].error;
      results[i].message = builds[i].message;
    } else {
      results[i] = runner_.measure_message(task->second, gpu_run_message(builds[i].module, measure_), measure_);
    }
    results[i].compile_seconds = builds[i].compile_seconds;
  }
  return results;
}

}  // namespace tessera::runtime::cuda

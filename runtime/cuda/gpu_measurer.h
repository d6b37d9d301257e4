// GpuMeasurer: the Measurer (runtime/measurer.h) of the cuda target.
//
// A TuningTask measures through it instead of the CPU builder: the batch is compiled with NVRTC
// on every core (builder.h), then each candidate that compiled is measured on the GPU
// (gpu_runner.h) in an isolated worker process, as on CPU (gpu_worker.h: a kernel fault, a
// failed launch or a hang costs only that worker), against the task's reference outputs,
// computed once per workload. Results come back in order with the CPU's error classes, so
// records, resume and agents work unchanged.
#pragma once

#include <map>
#include <string>

#include "runtime/check.h"
#include "runtime/cuda/builder.h"
#include "runtime/measurer.h"
#include "runtime/runner.h"

namespace tessera::runtime::cuda {

class GpuMeasurer : public Measurer {
 public:
  GpuMeasurer(CudaBuildOptions build, MeasureOptions measure, uint64_t seed, RunnerOptions runner = {})
      : build_(std::move(build)), measure_(measure), seed_(seed), runner_(without_memory_limit(std::move(runner))) {}

  std::vector<MeasureResult> measure(const schedule::ComputeDAG& dag,
                                     const std::vector<std::vector<schedule::Step>>& schedules) override;
  int workers_started() const { return runner_.workers_started(); }

 private:
  static RunnerOptions without_memory_limit(RunnerOptions options) {
    options.memory_limit_bytes = 0;  // the driver's mappings pass any sane limit (gpu_worker.h)
    return options;
  }

  CudaBuildOptions build_;
  MeasureOptions measure_;
  uint64_t seed_;
  Runner runner_;
  std::map<std::string, MeasureTask> tasks_;  // by workload key
};

}  // namespace tessera::runtime::cuda

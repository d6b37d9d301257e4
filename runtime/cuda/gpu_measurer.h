// GpuMeasurer: the Measurer (runtime/measurer.h) of the cuda target.
//
// A TuningTask measures through it instead of the CPU builder and worker: the batch is compiled
// with NVRTC on every core (builder.h), then each candidate that compiled is measured on the GPU
// (gpu_runner.h) against the task's reference outputs, computed once per workload. Results come
// back in order with the CPU's error classes, so records, resume and agents work unchanged.
#pragma once

#include <map>
#include <string>

#include "runtime/check.h"
#include "runtime/cuda/builder.h"
#include "runtime/measurer.h"

namespace tessera::runtime::cuda {

class GpuMeasurer : public Measurer {
 public:
  GpuMeasurer(CudaBuildOptions build, MeasureOptions measure, uint64_t seed)
      : build_(std::move(build)), measure_(measure), seed_(seed) {}

  std::vector<MeasureResult> measure(const schedule::ComputeDAG& dag,
                                     const std::vector<std::vector<schedule::Step>>& schedules) override;

 private:
  CudaBuildOptions build_;
  MeasureOptions measure_;
  uint64_t seed_;
  std::map<std::string, MeasureTask> tasks_;  // by workload key
};

}  // namespace tessera::runtime::cuda

// Measuring a compiled CUDA candidate on the GPU: correctness, then events timing.
//
// The module is loaded through the driver API (driver_api.h), the task's inputs copied in,
// outputs poisoned with NaN (an element never written is caught), the kernels launched in
// order once and the outputs compared with the reference like on CPU (runtime/check.h); then
// `repeat` timed repeats of `number` calls each, the number grown until a repeat lasts
// min_repeat_ms, timed with CUDA events, the L2 cache flushed before each repeat when
// flush_cache is set. Failures are results with the CPU's error classes: a launch that fails
// or faults is a runtime error, wrong numbers a wrong answer. Compiled everywhere, exercised
// only where a GPU exists (tests/gpu/). It runs in the process that calls it: tuning calls it
// in tessera-worker (gpu_worker.h), where a kernel fault spoils only that worker's context.
#pragma once

#include "runtime/check.h"
#include "runtime/cuda/builder.h"
#include "runtime/measure.h"

namespace tessera::runtime::cuda {

MeasureResult measure_on_gpu(const CudaModule& module, const MeasureTask& task,
                             const MeasureOptions& options);

}  // namespace tessera::runtime::cuda

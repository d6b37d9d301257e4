// GPU candidates measured in the isolated worker process, as CPU ones are.
//
// A compiled CUDA candidate (builder.h's CudaModule: the NVRTC image and its launches) crosses
// the worker protocol (runtime/worker_protocol.h) as a "gpu_run" message; tessera-worker
// answers it with measure_on_gpu (gpu_runner.h) against the task it holds. So a kernel that
// faults, a launch that fails or a kernel that never ends costs only that worker: the Runner
// (runtime/runner.h) times it out or sees it die, records the error and starts another, and
// the tuning run goes on. The worker must run without an address-space limit (the driver maps
// far more virtual memory than it uses): GpuMeasurer's Runner sets none.
#pragma once

#include <string>
#include <utility>

#include "runtime/cuda/builder.h"
#include "runtime/worker.h"
#include "runtime/worker_protocol.h"

namespace tessera::runtime::cuda {

inline constexpr const char* kGpuRunMessage = "gpu_run";

Message gpu_run_message(const CudaModule& module, const MeasureOptions& options);
Result<std::pair<CudaModule, MeasureOptions>> gpu_run_from_message(const Message& message);

// tessera-worker's handler of "gpu_run" messages (worker.h's RunHandler); the worker retires
// after a runtime or load error (the context may be broken).
RunOutcome serve_gpu_run(const Message& run, const MeasureTask& task);

}  // namespace tessera::runtime::cuda

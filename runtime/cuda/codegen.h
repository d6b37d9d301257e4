// LoopNest IR -> CUDA C, one __global__ function per kernel of the GPU plan.
//
// plan_gpu_kernels (schedule/gpu_check.h) splits the function into kernels and refuses what a
// GPU cannot run; each kernel becomes `extern "C" __global__ void NAME_kN(...)` taking every
// argument (inputs then outputs) and then every temporary as `float* __restrict__`. Loops bound
// to blockIdx / threadIdx read those registers (guarded where the loop is shorter than the
// launch); unrolled loops get `#pragma unroll`; a shared stage is a `__shared__` array filled
// between two __syncthreads(); a store to global or shared memory outside some bound dimension
// is done by one thread (or block) only, so a reduction is never raced on. Index arithmetic is
// int when every buffer and loop fits, else long long; integer / and % keep floor semantics.
// Text only: no CUDA header is needed to emit it (nvrtc.h compiles it).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/gpu_check.h"
#include "schedule/loop_nest.h"
#include "schedule/result.h"

namespace tessera::runtime::cuda {

struct CudaLaunch {
  std::string entry;
  std::array<int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  int64_t shared_bytes = 0;
};

struct CudaSource {
  std::string code;                                  // CUDA C, no #include
  std::vector<CudaLaunch> launches;                  // in order
  std::vector<schedule::KernelArgument> arguments;   // inputs then outputs
  std::vector<schedule::KernelArgument> temporaries; // device buffers live for one call
};

Result<CudaSource> emit_cuda(const schedule::LoweredFunc& func, const schedule::GpuLimits& limits = {});

}  // namespace tessera::runtime::cuda

// The kernels of a GPU schedule, and the checks that refuse what a GPU cannot run.
//
// On a GPU a LoweredFunc becomes a sequence of kernel launches: the intermediate stages at root
// are global buffers live for the whole call (temporaries), and each top-level statement inside
// them is one kernel, whose grid and block sizes are the largest extents of its loops bound to
// blockIdx / threadIdx (smaller loops are guarded). plan_gpu_kernels finds them and refuses,
// with the reason, a program the CUDA codegen would get wrong or the GPU would not launch: too
// many threads per block, shared memory over the limit, a block loop inside another loop, a
// dimension bound twice on one path, a shared stage inside a thread loop (its barriers would
// diverge), CPU annotations (parallel, vectorize), buffers packed at load (not yet supported).
// Schedule-level facts only: no CUDA here; runtime/cuda/ emits code from the plan.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "schedule/loop_nest.h"
#include "schedule/result.h"

namespace tessera::schedule {

struct GpuLimits {
  int64_t max_threads = 1024;             // per block
  int64_t max_shared_bytes = 48 * 1024;   // static shared memory per block
  int64_t max_local_elements = 4096;      // one thread's private array
};

struct GpuKernel {
  Stmt body;                                 // what one launch runs
  std::array<int64_t, 3> grid{1, 1, 1};      // blocks, x y z
  std::array<int64_t, 3> block{1, 1, 1};     // threads per block, x y z
  int64_t shared_bytes = 0;                  // every shared buffer of the kernel
  int64_t threads() const { return block[0] * block[1] * block[2]; }
};

struct GpuProgram {
  std::vector<KernelArgument> temporaries;  // intermediates at root, in the device's memory
  std::vector<GpuKernel> kernels;           // launched in this order
};

Result<GpuProgram> plan_gpu_kernels(const LoweredFunc& func, const GpuLimits& limits = {});

}  // namespace tessera::schedule

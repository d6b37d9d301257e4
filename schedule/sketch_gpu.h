// Sketches for GPU targets (CUDA): Ansor's GPU rules, chosen by the task when its target is cuda.
//
// Per stage, from the output back, elementwise producers inlined as on CPU:
// - a reduction with data reuse (matmul, dense, conv) gets multi-level tiling: every spatial
//   axis split into block / register / register / thread levels, the reduction into a chunk
//   loop and its inner part, ordered S(block) R(chunk) S(thread) S R S; the block levels fused
//   and bound to blockIdx.x, the thread levels fused and bound to threadIdx.x. With shared
//   staging, each input it reads directly is copied into shared memory per chunk
//   (cache_read "shared" at the chunk loop) by all the block's threads together (cooperative
//   fetch: the copy's loops fused, split by the thread count, bound to threadIdx.x), between
//   barriers the CUDA codegen places; without, it reads global memory.
// - any other stage (elementwise, pooling, row reductions) gets the simple rule: its spatial
//   loops fused and split into blocks of a knob's thread count, a reduction serial per thread.
// Knobs: tile sizes (thread tiles bounded so a block never exceeds kMaxGpuThreads; register
// tiles bounded), reduction chunk, threads per block, unroll. Candidates whose shared memory
// passes the limit are refused by check_gpu_kernels (gpu_check.h) at build time, with why.
#pragma once

#include <vector>

#include "schedule/sketch.h"

namespace tessera::schedule {

std::vector<Sketch> generate_gpu_sketches(const ComputeDAG& dag);

}  // namespace tessera::schedule

// The runtime that generated CPU kernels call: parallel loops on TBB and buffer allocation.
//
// Generated code calls these through plain C symbols, which the JIT binds explicitly (see
// jit.cc), so no symbol needs exporting from the executable. The thread count applies to
// every parallel loop started afterwards in this process.
#pragma once

#include <cstdint>

namespace tessera::runtime {

// Threads used by parallel loops (>= 1). Defaults to the cores in the affinity mask.
void set_num_threads(int threads);
int num_threads();

}  // namespace tessera::runtime

extern "C" {
// Runs body(ctx, begin, end) over disjoint ranges covering [0, extent), in parallel.
void tessera_parallel_for(void (*body)(void* ctx, int64_t begin, int64_t end), void* ctx,
                          int64_t extent);
// 64-byte-aligned storage for intermediate buffers; never returns null (aborts instead, as
// operator new would throw, since a kernel has no way to report the failure).
void* tessera_alloc(int64_t bytes);
void tessera_free(void* ptr);
}

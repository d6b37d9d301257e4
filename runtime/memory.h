// Memory for kernel buffers: page-aligned, and backed by transparent huge pages when large.
//
// Why huge pages: a kernel's speed depends on how its buffers map onto the physically indexed
// L2 and L3 caches. With 4 KiB pages that mapping is whatever physical pages the process got,
// so the same kernel measured in two worker processes ran up to 20% apart. A 2 MiB-aligned
// buffer backed by huge pages has the same cache-set layout in every process (the low 21 bits
// of an address are the same virtually and physically). Used by the measurement buffers
// (check.h) and by the allocations generated kernels make (tessera_alloc).
//
// Large buffers are mapped fresh (or reused from this allocator's own freed blocks), never
// taken from malloc's heap, whose old 4 KiB pages huge-page advice cannot change (memory.cc).
#pragma once

#include <cstddef>

namespace tessera::runtime {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` of memory aligned to `alignment` (a power of two, at least 64); buffers of 1 MiB or
// more are aligned to 2 MiB, padded to a multiple of 2 MiB and advised to use huge pages. Null
// when out of memory. Release with free_buffer_memory; safe from any thread.
void* allocate_buffer_memory(size_t bytes, size_t alignment);
void free_buffer_memory(void* memory);

}  // namespace tessera::runtime

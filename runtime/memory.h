// Memory for kernel buffers: page-aligned, and backed by transparent huge pages when large.
//
// Why huge pages: a kernel's speed depends on how its buffers map onto the physically indexed
// L2 and L3 caches. With 4 KiB pages that mapping is whatever physical pages the process got,
// so the same kernel measured in two worker processes ran up to 20% apart. A buffer at a fixed
// offset from a 2 MiB boundary, backed by huge pages, has the same cache-set layout in every process (the low 21 bits
// of an address are the same virtually and physically). Used by the measurement buffers
// (check.h) and by the allocations generated kernels make (tessera_alloc).
//
// Large buffers are mapped fresh (or reused from this allocator's own freed blocks), never
// taken from malloc's heap, whose old 4 KiB pages huge-page advice cannot change (memory.cc).
//
// Why margins: a vectorized kernel reading a padded input masks off the taps that fall in the
// padding, but a masked-off read still has an address, up to the padding's rows outside the
// buffer. Where that address is in a page the kernel does not otherwise touch (another mapping,
// or none), each such read cost hundreds of cycles on a Zen 5: MobileNetV2's 7x7x960 depthwise
// conv ran 15x slower in the network, whose activations began where their mappings began, than
// alone (bench/NOTES.md). So a large buffer has kReadMarginBytes of its own memory, present and
// in its own huge pages, on either side; the LLVM backend points the rare read that could reach
// further at the buffer itself (runtime/llvm/emit_expr.cc).
#pragma once

#include <cstddef>

namespace tessera::runtime {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Memory of its own a large buffer has before and after it: three rows of a 224 x 224 x 96
// activation, or a row of 65,536 floats.
inline constexpr size_t kReadMarginBytes = size_t{256} << 10;

// `bytes` of memory aligned to `alignment` (a power of two, at least 64); buffers of 1 MiB or
// more start kReadMarginBytes past a 2 MiB boundary, have the margin after them too, and are
// advised to use huge pages. Null when out of memory. Release with free_buffer_memory; safe from
// any thread.
void* allocate_buffer_memory(size_t bytes, size_t alignment);
void free_buffer_memory(void* memory);

}  // namespace tessera::runtime

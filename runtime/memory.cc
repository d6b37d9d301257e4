// Page-aligned, huge-page-backed buffer memory (see memory.h).
#include "runtime/memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

namespace tessera::runtime {

void* allocate_buffer_memory(size_t bytes, size_t alignment) {
  const bool large = bytes >= kHugePageBytes / 2;
  if (large) alignment = std::max(alignment, kHugePageBytes);
  size_t total = (std::max<size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, total);
  // Advice only: where transparent huge pages are off the buffer stays on 4 KiB pages.
  if (memory && large) ::madvise(memory, total, MADV_HUGEPAGE);
  return memory;
}

void free_buffer_memory(void* memory) { std::free(memory); }

}  // namespace tessera::runtime

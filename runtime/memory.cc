// Page-aligned, huge-page-backed buffer memory (see memory.h).
//
// Large buffers are mapped here, never taken from malloc. A process that has run a while (a
// tuning run, a measurement worker) has a heap full of memory already faulted in as 4 KiB
// pages, and glibc hands that memory out again for large requests once its mmap threshold has
// grown; advising huge pages on it then changes nothing. Fresh anonymous mappings fault in huge
// pages. Freed large blocks wait in a small cache for the next request of their size, so a
// kernel that allocates scratch memory on every call (tessera_alloc) reuses the same huge pages
// instead of mapping and zeroing new ones. A large buffer starts kReadMarginBytes into its
// block and ends as far before the block's end (memory.h says why).
#include "runtime/memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_map>

namespace tessera::runtime {

namespace {

// Freed large blocks kept mapped for reuse, at most this many bytes; more are unmapped. Enough
// for any kernel's per-call scratch; a network's buffers (250 MiB for ResNet-50) are mapped
// afresh when an executor is rebuilt, rather than held by a process between builds.
constexpr size_t kIdleCacheBytes = size_t{64} << 20;

constexpr size_t kSmallPageBytes = 4096;

struct LargeBlocks {
  std::mutex mutex;
  std::unordered_map<void*, size_t> in_use;  // block -> its mapped bytes
  std::multimap<size_t, void*> idle;         // freed blocks by mapped bytes
  size_t idle_bytes = 0;
};

// Never destroyed: a kernel's buffers may be freed by static destructors after this one's.
LargeBlocks& large_blocks() {
  static LargeBlocks* blocks = new LargeBlocks;
  return *blocks;
}

// `bytes` (a multiple of kHugePageBytes) of fresh memory at a kHugePageBytes boundary.
void* map_aligned(size_t bytes) {
  const size_t span = bytes + kHugePageBytes;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
  if (aligned > start) ::munmap(raw, aligned - start);
  if (const size_t tail = start + span - (aligned + bytes); tail > 0) {
    ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  }
  // Advice only: where transparent huge pages are off the block stays on 4 KiB pages.
  ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void* allocate_large(size_t bytes) {
  const size_t mapped = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  LargeBlocks& blocks = large_blocks();
  {
    std::lock_guard<std::mutex> lock(blocks.mutex);
    // The smallest idle block that fits and wastes at most half of itself.
    auto fit = blocks.idle.lower_bound(mapped);
    if (fit != blocks.idle.end() && fit->first <= 2 * mapped) {
      void* block = fit->second;
      blocks.in_use.emplace(block, fit->first);
      blocks.idle_bytes -= fit->first;
      blocks.idle.erase(fit);
      return block;
    }
  }
  void* block = map_aligned(mapped);
  if (!block) return nullptr;
  std::lock_guard<std::mutex> lock(blocks.mutex);
  blocks.in_use.emplace(block, mapped);
  return block;
}

// True when `memory` was a large block (now idle or unmapped).
bool free_large(void* memory) {
  LargeBlocks& blocks = large_blocks();
  std::lock_guard<std::mutex> lock(blocks.mutex);
  auto found = blocks.in_use.find(memory);
  if (found == blocks.in_use.end()) return false;
  const size_t mapped = found->second;
  blocks.in_use.erase(found);
  // First among blocks of its size: the next request takes the most recently used (cache-warm) one.
  blocks.idle.emplace_hint(blocks.idle.lower_bound(mapped), mapped, memory);
  blocks.idle_bytes += mapped;
  // Over the cache's size, the largest idle blocks go back to the system first.
  while (blocks.idle_bytes > kIdleCacheBytes) {
    auto largest = std::prev(blocks.idle.end());
    ::munmap(largest->second, largest->first);
    blocks.idle_bytes -= largest->first;
    blocks.idle.erase(largest);
  }
  return true;
}

}  // namespace

void* allocate_buffer_memory(size_t bytes, size_t alignment) {
  if (bytes >= kHugePageBytes / 2 && alignment <= kHugePageBytes) {
    auto* block = static_cast<unsigned char*>(allocate_large(bytes + 2 * kReadMarginBytes));
    if (!block) return nullptr;
    // The margins written (a byte a page), so that they are present however the block was
    // mapped; with huge pages they share the buffer's first and last pages anyway.
    for (size_t at = 0; at < kReadMarginBytes; at += kSmallPageBytes) {
      block[at] = 0;
      block[kReadMarginBytes + bytes + at] = 0;
    }
    return block + kReadMarginBytes;
  }
  const size_t total = (std::max<size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, total);
}

void free_buffer_memory(void* memory) {
  if (!memory) return;
  const uintptr_t at = reinterpret_cast<uintptr_t>(memory);
  if (at >= kReadMarginBytes && free_large(reinterpret_cast<void*>(at - kReadMarginBytes))) return;
  std::free(memory);
}

}  // namespace tessera::runtime

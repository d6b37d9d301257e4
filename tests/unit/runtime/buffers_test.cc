// Kernel buffers start on a page boundary (kBufferAlignment), so a schedule's speed does not
// depend on where the heap happened to put its buffers; guard zones catch writes on either
// side without touching the data.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/check.h"
#include "runtime/memory.h"

namespace tessera::runtime {
namespace {

bool page_aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0; }

// Bytes of transparent huge pages in the mappings that overlap [p, p + bytes), from
// /proc/self/smaps.
size_t huge_page_bytes(const void* p, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p), end = begin + bytes;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool overlaps = false;
  size_t total = 0;
  while (std::getline(smaps, line)) {
    uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream fields(line);
    if (fields >> std::hex >> from >> dash >> to && dash == '-') {
      overlaps = from < end && begin < to;
      continue;
    }
    size_t kb = 0;
    if (overlaps && std::sscanf(line.c_str(), "AnonHugePages: %zu kB", &kb) == 1) total += kb << 10;
  }
  return total;
}

TEST(Buffers, StartOnAPageBoundaryWhateverTheHeapDidBefore) {
  std::vector<std::unique_ptr<GuardedBuffer>> guarded;
  std::vector<std::unique_ptr<AlignedBuffer>> plain;
  for (size_t elements : {size_t{1}, size_t{1000}, size_t{1} << 20, size_t{3} << 18, size_t{77}}) {
    guarded.push_back(std::make_unique<GuardedBuffer>(elements));
    plain.push_back(std::make_unique<AlignedBuffer>(elements));
    EXPECT_TRUE(page_aligned(guarded.back()->data())) << elements;
    EXPECT_TRUE(page_aligned(plain.back()->data())) << elements;
    if (guarded.size() == 3) guarded.erase(guarded.begin());  // churn the heap
  }
}

// Once glibc's mmap threshold has grown, large requests come from heap memory that earlier
// allocations already faulted in as 4 KiB pages, and huge-page advice cannot change those: a
// tuning run's own network measurement, likely for that, read 1.4x slower than a fresh
// process's (bench/NOTES.md). Fails if large buffers come from malloc again.
TEST(Buffers, LargeOnesGetHugePagesEvenFromAHeapThatWasUsedBefore) {
  constexpr size_t kMiB = size_t{1} << 20;
  // Whether this machine gives huge pages to a fresh advised mapping at all, right now.
  {
    void* raw = ::mmap(nullptr, 8 * kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(raw, MAP_FAILED);
    char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + 2 * kMiB - 1) & ~(2 * kMiB - 1));
    ::madvise(aligned, 4 * kMiB, MADV_HUGEPAGE);
    std::memset(aligned, 1, 4 * kMiB);
    const size_t reference = huge_page_bytes(aligned, 4 * kMiB);
    ::munmap(raw, 8 * kMiB);
    if (reference == 0) GTEST_SKIP() << "no transparent huge pages for a fresh advised mapping here";
  }
  // Raise the mmap threshold past 16 MiB, then leave 16 MiB of touched memory on the heap
  // (through volatile pointers: the compiler may drop a malloc and free of an unused block).
  void* volatile threshold = std::malloc(20 * kMiB);
  std::free(threshold);
  void* volatile used = std::malloc(16 * kMiB);
  ASSERT_NE(used, nullptr);
  std::memset(used, 1, 16 * kMiB);
  std::free(used);

  void* buffer = allocate_buffer_memory(6 * kMiB, 64);
  ASSERT_NE(buffer, nullptr);
  std::memset(buffer, 2, 6 * kMiB);
  // Read at once: khugepaged collapses advised 4 KiB pages into huge ones within a second, so a
  // later look would miss the pages the buffer started with (and was measured on).
  EXPECT_GE(huge_page_bytes(buffer, 6 * kMiB), 2 * kMiB);
  free_buffer_memory(buffer);
}

// A freed large block serves the next request of its size: a kernel's per-call scratch memory
// keeps its huge pages and is not mapped and zeroed again on every call.
TEST(Buffers, AFreedLargeBlockIsReusedForTheSameSize) {
  void* first = allocate_buffer_memory(3 << 20, 64);
  ASSERT_NE(first, nullptr);
  free_buffer_memory(first);
  void* second = allocate_buffer_memory(3 << 20, 64);
  EXPECT_EQ(second, first);
  void* third = allocate_buffer_memory(3 << 20, 64);  // the block is taken: a new one
  EXPECT_NE(third, second);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(third) % kHugePageBytes, kReadMarginBytes);
  free_buffer_memory(second);
  free_buffer_memory(third);
}

// The read margins (memory.h): a large buffer's kReadMarginBytes on either side are mapped
// and present. Bugs caught: a buffer at its mapping's start or end again (mincore fails on the
// unmapped page, ENOMEM), or margins mapped but never touched (not resident: a masked-off read
// there cost hundreds of cycles).
TEST(Buffers, LargeOnesHaveTheirOwnMemoryPresentOnEitherSide) {
  const size_t bytes = (size_t{3} << 20) + 100;
  auto* buffer = static_cast<unsigned char*>(allocate_buffer_memory(bytes, 64));
  ASSERT_NE(buffer, nullptr);
  const size_t page = 4096;
  auto resident = [&](unsigned char* from, size_t length) {
    const uintptr_t first = reinterpret_cast<uintptr_t>(from) / page * page;
    const uintptr_t end = (reinterpret_cast<uintptr_t>(from) + length + page - 1) / page * page;
    std::vector<unsigned char> pages((end - first) / page);
    if (::mincore(reinterpret_cast<void*>(first), end - first, pages.data()) != 0) return -1;
    int present = 0;
    for (unsigned char p : pages) present += p & 1;
    return present == static_cast<int>(pages.size()) ? 1 : 0;
  };
  EXPECT_EQ(resident(buffer - kReadMarginBytes, kReadMarginBytes), 1);
  EXPECT_EQ(resident(buffer + bytes, kReadMarginBytes), 1);
  free_buffer_memory(buffer);
}

TEST(Buffers, GuardsSeeWritesOnEitherSideOnly) {
  GuardedBuffer b(100);
  for (size_t i = 0; i < b.size(); ++i) b.data()[i] = 1.0f;
  EXPECT_EQ(b.damage_before(), 0u);
  EXPECT_EQ(b.damage_after(), 0u);
  b.data()[100] = 2.0f;   // one element past the end
  b.data()[-1] = 2.0f;    // one before the start
  EXPECT_GT(b.damage_after(), 0u);
  EXPECT_GT(b.damage_before(), 0u);
}

}  // namespace
}  // namespace tessera::runtime

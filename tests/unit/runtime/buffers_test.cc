// Kernel buffers start on a page boundary (kBufferAlignment), so a schedule's speed does not
// depend on where the heap happened to put its buffers; guard zones catch writes on either
// side without touching the data.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/check.h"

namespace tessera::runtime {
namespace {

bool page_aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0; }

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

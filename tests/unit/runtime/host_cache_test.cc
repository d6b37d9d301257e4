// The L2 size the default schedule rule sizes loop orders by (runtime/host_cache.h): sysfs's
// size strings parsed with their units, and the host's reading a plausible size.
#include <gtest/gtest.h>

#include "runtime/host_cache.h"

namespace tessera::testing {
namespace {

// Fails if a unit is dropped or misread (a 2 MiB L2 read as 2048 bytes would keep every deep
// conv's weights "outside L2" and the rule's loop order blind to the machine).
TEST(HostCache, SysfsSizesParseWithTheirUnits) {
  EXPECT_EQ(runtime::parse_cache_size("2048K"), int64_t{2} << 20);
  EXPECT_EQ(runtime::parse_cache_size("512K"), int64_t{512} << 10);
  EXPECT_EQ(runtime::parse_cache_size("1M"), int64_t{1} << 20);
  EXPECT_EQ(runtime::parse_cache_size("524288"), int64_t{524288});
  EXPECT_EQ(runtime::parse_cache_size(""), 0);
  EXPECT_EQ(runtime::parse_cache_size("K"), 0);
  EXPECT_EQ(runtime::parse_cache_size("12Q"), 0);
}

// Fails if the sysfs walk picks the L1 or L3 (48 KiB or 480 MiB here) or nothing at all.
TEST(HostCache, TheHostsL2IsBetween128KiBAnd64MiB) {
  const int64_t l2 = runtime::host_l2_bytes();
  EXPECT_GE(l2, int64_t{128} << 10);
  EXPECT_LE(l2, int64_t{64} << 20);
}

}  // namespace
}  // namespace tessera::testing

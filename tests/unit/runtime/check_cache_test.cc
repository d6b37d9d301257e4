// Reference checks kept on disk (runtime/check_cache.h): a second task reads what the first
// wrote, and a file that does not match its task (truncated, another seed, other inputs) is
// recomputed, never trusted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "runtime/check.h"
#include "runtime/check_cache.h"
#include "schedule/ops.h"

namespace {

using namespace tessera;
using namespace tessera::runtime;

std::string fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("tessera_check_cache_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

void expect_same_checks(const MeasureTask& a, const MeasureTask& b) {
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (size_t o = 0; o < a.checks.size(); ++o) {
    EXPECT_EQ(a.checks[o].points, b.checks[o].points);
    EXPECT_EQ(a.checks[o].expected, b.checks[o].expected);
  }
}

constexpr uint64_t kSeed = 7;
constexpr int64_t kPoints = 512;  // of matmul 64's 4,096 outputs: a sampled check

// Bugs caught: the cache never written, never read (the altered value would not come back),
// or read without its points (a check that compares the wrong elements).
TEST(CheckCacheTest, ASecondTaskReadsTheChecksTheFirstWrote) {
  auto dag = schedule::matmul(64, 64, 64);
  ASSERT_TRUE(dag);
  const std::string dir = fresh_dir("read");
  auto plain = make_measure_task(*dag, kSeed, kPoints);
  auto first = make_measure_task(*dag, kSeed, kPoints, dir);
  ASSERT_TRUE(plain && first);
  const std::string path = checks_file(dir, dag->workload_key(), kSeed, kPoints);
  ASSERT_TRUE(std::filesystem::exists(path));
  ASSERT_EQ(first->checks.at(0).points.size(), static_cast<size_t>(kPoints));
  expect_same_checks(*plain, *first);
  auto second = make_measure_task(*dag, kSeed, kPoints, dir);
  ASSERT_TRUE(second);
  expect_same_checks(*plain, *second);

  MeasureTask altered = *first;
  altered.checks[0].expected[5] += 1.0f;
  ASSERT_TRUE(save_checks(path, altered, kSeed, kPoints));
  auto third = make_measure_task(*dag, kSeed, kPoints, dir);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->checks[0].expected[5], altered.checks[0].expected[5]);  // read, not recomputed
  std::filesystem::remove_all(dir);
}

// An output small enough to be compared whole has no points; its full reference round-trips.
TEST(CheckCacheTest, AWholeOutputCheckRoundTrips) {
  auto dag = schedule::matmul(8, 8, 8);
  ASSERT_TRUE(dag);
  const std::string dir = fresh_dir("whole");
  auto first = make_measure_task(*dag, kSeed, kCheckPoints, dir);
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->checks.at(0).points.empty());
  auto loaded = load_checks(checks_file(dir, dag->workload_key(), kSeed, kCheckPoints), *first, kSeed, kCheckPoints);
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].expected, first->checks[0].expected);
  EXPECT_TRUE((*loaded)[0].points.empty());
  std::filesystem::remove_all(dir);
}

// Bugs caught: a truncated file read as far as it goes (no checksum), a file of another seed
// trusted (its points and values belong to other inputs), a file made from other inputs trusted.
TEST(CheckCacheTest, AFileThatDoesNotMatchItsTaskIsRecomputed) {
  auto dag = schedule::matmul(64, 64, 64);
  ASSERT_TRUE(dag);
  const std::string dir = fresh_dir("mismatch");
  auto plain = make_measure_task(*dag, kSeed, kPoints);
  auto other_seed = make_measure_task(*dag, kSeed + 1, kPoints, dir);
  ASSERT_TRUE(plain && other_seed);
  const std::string path = checks_file(dir, dag->workload_key(), kSeed, kPoints);
  const std::string other_path = checks_file(dir, dag->workload_key(), kSeed + 1, kPoints);
  ASSERT_NE(path, other_path);

  std::filesystem::copy_file(other_path, path);  // another seed's file under this seed's name
  EXPECT_FALSE(load_checks(path, *plain, kSeed, kPoints));
  auto recomputed = make_measure_task(*dag, kSeed, kPoints, dir);
  ASSERT_TRUE(recomputed);
  expect_same_checks(*plain, *recomputed);

  const auto full_size = std::filesystem::file_size(path);  // rewritten by the recompute
  std::filesystem::resize_file(path, full_size - 100);
  EXPECT_FALSE(load_checks(path, *plain, kSeed, kPoints));
  auto after_truncation = make_measure_task(*dag, kSeed, kPoints, dir);
  ASSERT_TRUE(after_truncation);
  expect_same_checks(*plain, *after_truncation);
  EXPECT_EQ(std::filesystem::file_size(path), full_size);

  MeasureTask other_inputs = *plain;
  other_inputs.inputs[0][0] += 1.0f;
  EXPECT_TRUE(load_checks(path, *plain, kSeed, kPoints));
  EXPECT_FALSE(load_checks(path, other_inputs, kSeed, kPoints));
  std::filesystem::remove_all(dir);
}

}  // namespace

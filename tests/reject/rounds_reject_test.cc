// The round log of a network tune (rounds.jsonl, experiments/round_log.h) as a resumed run
// reads it after a kill: a half-written or malformed line is skipped with a warning naming the
// file and line, and every good line around it is kept.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "experiments/round_log.h"

namespace tessera::experiments {
namespace {

TEST(RoundLog, WrittenRoundsReadBackAndBadLinesAreSkippedByName) {
  const std::string path = ::testing::TempDir() + "/rounds_reject.jsonl";
  std::filesystem::remove(path);
  append_round(path, {"t0_conv", true, {0.002, 3, 1.5, false, 0.5, 0.9}});
  append_round(path, {"t1_dense", false, {INFINITY, 0, 0.25, true}});  // nothing correct yet: no best
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"task\": \"t2\", \"trials\": -4, \"seconds\": 1}\n";  // negative trials
    out << "{\"trials\": 4, \"seconds\": 1}\n";                     // no task
    out << "{\"task\": \"t0_conv\", \"trials\": 7, \"seconds\": 2.0, \"best_seconds\": 0.0015}\n";
    out << "{\"task\": \"t0_conv\", \"tri";                          // killed mid-line
  }
  std::vector<std::string> warnings;
  const auto rounds = read_rounds(path, &warnings);
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[0].task, "t0_conv");
  EXPECT_TRUE(rounds[0].transfer);
  EXPECT_DOUBLE_EQ(rounds[0].result.best_seconds, 0.002);
  EXPECT_EQ(rounds[0].result.trials, 3);
  EXPECT_DOUBLE_EQ(rounds[0].result.seconds, 1.5);
  EXPECT_DOUBLE_EQ(rounds[0].result.search_seconds, 0.5);  // where the round's time went
  EXPECT_DOUBLE_EQ(rounds[0].result.measure_seconds, 0.9);
  EXPECT_EQ(rounds[1].result.measure_seconds, 0.0);  // not logged: unknown
  EXPECT_FALSE(rounds[1].transfer);
  EXPECT_TRUE(std::isinf(rounds[1].result.best_seconds));
  EXPECT_TRUE(rounds[1].result.exhausted);
  EXPECT_EQ(rounds[2].result.trials, 7);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find(path + ":3: "), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find(path + ":4: "), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find(path + ":6: "), std::string::npos) << warnings[2];
  EXPECT_TRUE(read_rounds(path + ".missing", &warnings).empty());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tessera::experiments

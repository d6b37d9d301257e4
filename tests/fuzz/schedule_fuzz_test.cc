// The schedule fuzzer: random valid step sequences for every op of the library (seeded), each
// lowered, JIT-compiled and compared with the reference evaluator. It also checks that a refused
// step changes nothing and that a schedule's JSON replays to the same state. A failure is
// shrunk by dropping steps while it still fails, then printed as a reproducer (op, shapes,
// steps as JSON).
//
// CI runs 2,000 schedules in 8 shards. For a longer run:
//   TESSERA_FUZZ_SCHEDULES=40000 TESSERA_FUZZ_SEED=7 build/tests/tessera_fuzz_tests
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "jit_test_util.h"
#include "op_cases.h"
#include "random_steps.h"
#include "shrink_steps.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

constexpr int kShards = 8;

int64_t env_or(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  return text ? std::strtoll(text, nullptr, 10) : fallback;
}

class ScheduleFuzz : public ::testing::TestWithParam<int> {};

TEST_P(ScheduleFuzz, RandomSchedulesMatchTheReference) {
  const int shard = GetParam();
  const int64_t total = env_or("TESSERA_FUZZ_SCHEDULES", 2000);
  const uint64_t seed = static_cast<uint64_t>(env_or("TESSERA_FUZZ_SEED", 20261122));
  const std::vector<OpCase> ops = op_cases();
  int failures = 0, refused = 0, checked = 0, layouts = 0, packs = 0;
  for (int64_t g = shard; g < total && failures < 3; g += kShards) {
    const OpCase& op = ops[static_cast<size_t>(g) % ops.size()];
    auto dag = op.make();
    ASSERT_TRUE(dag.ok()) << dag.error().message;
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(g));
    const int wanted = 2 + static_cast<int>(g % 11);
    RandomSchedule schedule = random_schedule(*dag, rng, wanted);
    refused += schedule.refused;
    for (const Step& step : schedule.steps) {
      layouts += std::holds_alternative<LayoutStep>(step);
      packs += std::holds_alternative<PackStep>(step);
    }
    EXPECT_FALSE(schedule.refusal_changed_state) << "a refused step changed the state of " << op.label;

    State direct(*dag), replayed(*dag);
    ASSERT_TRUE(direct.apply_all(schedule.steps).ok());
    auto parsed = steps_from_json(nlohmann::json::parse(steps_to_json(schedule.steps).dump()));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    ASSERT_TRUE(replayed.apply_all(*parsed).ok());
    EXPECT_EQ(direct.describe(), replayed.describe()) << "JSON replay differs for " << op.label;

    ::testing::AssertionResult result = MatchesReference(*dag, schedule.steps);
    ++checked;
    if (!result) {
      ++failures;
      std::vector<Step> minimal = shrink_steps(*dag, schedule.steps, [&](const std::vector<Step>& steps) {
        return !MatchesReference(*dag, steps);
      });
      ADD_FAILURE() << "schedule " << g << " (seed " << seed << ") fails.\nreproducer:\n  op: "
                    << dag->summary() << "\n  steps: " << steps_to_json(minimal).dump()
                    << "\n" << MatchesReference(*dag, minimal).message();
    }
  }
  RecordProperty("schedules_checked", checked);
  RecordProperty("steps_refused", refused);
  RecordProperty("layouts", layouts);
  RecordProperty("packs", packs);
  EXPECT_GT(checked, 0);
  EXPECT_GT(layouts, 0) << "no schedule of this shard stores a stage in another layout";
  std::printf("shard %d: %d schedules, %d layouts, %d packed stages\n", shard, checked, layouts, packs);
}

INSTANTIATE_TEST_SUITE_P(Shards, ScheduleFuzz, ::testing::Range(0, kShards));

}  // namespace
}  // namespace tessera::testing

// JSON form of schedule steps (schedule/step_json.h): every step kind round-trips, a whole hand
// schedule round-trips and replays to the same State, and malformed JSON is refused with a
// message naming the offending field or kind.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schedule/hand_schedules.h"
#include "schedule/ops.h"
#include "schedule/state.h"
#include "schedule/step_json.h"

namespace {

using namespace tessera::schedule;
using nlohmann::json;

std::vector<Step> one_of_each() {
  return {
      SplitStep{"C", "i", {32, 8}},
      ReorderStep{"C", {"j", "i", "r0"}},
      FuseStep{"C", {"i", "j"}},
      AnnotateStep{"C", "i", "parallel"},
      ComputeInlineStep{"expval"},
      AutoUnrollStep{"C", 64},
      ComputeAtStep{"B.local", "C", "j.0"},
      ComputeRootStep{"B.local"},
      CacheWriteStep{"C", "local"},
      CacheReadStep{"B", "C", "global"},
      RFactorStep{"C", "r0.1"},
      LayoutStep{"W.local", {"0/16", "1", "2", "3", "0%16"}},
      PackStep{"W.local"},
      BindStep{"C", "i.0", "blockIdx.x"},
  };
}

// The error message of parsing `text` as one step; fails the test if it parses.
std::string parse_error(const std::string& text) {
  auto r = step_from_json(json::parse(text));
  EXPECT_FALSE(r.ok()) << text << " was accepted";
  return r.ok() ? std::string() : r.error().message;
}

void expect_contains(const std::string& text, const std::string& fragment) {
  EXPECT_NE(text.find(fragment), std::string::npos)
      << "message: " << text << "\nexpected fragment: " << fragment;
}

TEST(StepJsonTest, EveryStepKindRoundTrips) {
  for (const Step& step : one_of_each()) {
    json j = step_to_json(step);
    auto parsed = step_from_json(j);
    ASSERT_TRUE(parsed.ok()) << j.dump() << ": " << parsed.error().message;
    EXPECT_EQ(parsed->index(), step.index()) << j.dump();
    EXPECT_EQ(step_to_json(*parsed), j);
    EXPECT_EQ(describe_step(*parsed), describe_step(step));
    // Through text as well.
    auto reparsed = step_from_json(json::parse(j.dump()));
    ASSERT_TRUE(reparsed.ok());
    EXPECT_EQ(step_to_json(*reparsed), j);
  }
}

TEST(StepJsonTest, DocumentedShapeOfEachKind) {
  EXPECT_EQ(step_to_json(SplitStep{"C", "i", {32, 8}}),
            json::parse(R"({"step":"split","stage":"C","loop":"i","factors":[32,8]})"));
  EXPECT_EQ(step_to_json(ReorderStep{"C", {"j", "i"}}),
            json::parse(R"({"step":"reorder","stage":"C","order":["j","i"]})"));
  EXPECT_EQ(step_to_json(FuseStep{"C", {"i", "j"}}),
            json::parse(R"({"step":"fuse","stage":"C","loops":["i","j"]})"));
  EXPECT_EQ(step_to_json(AnnotateStep{"C", "j", "vectorize"}),
            json::parse(R"({"step":"annotate","stage":"C","loop":"j","annotation":"vectorize"})"));
  EXPECT_EQ(step_to_json(ComputeInlineStep{"pad"}),
            json::parse(R"({"step":"compute_inline","stage":"pad"})"));
  EXPECT_EQ(step_to_json(AutoUnrollStep{"C", 16}),
            json::parse(R"({"step":"auto_unroll","stage":"C","max_step":16})"));
  EXPECT_EQ(step_to_json(LayoutStep{"W.local", {"0/16", "1", "0%16"}}),
            json::parse(R"({"step":"layout","stage":"W.local","dims":["0/16","1","0%16"]})"));
  EXPECT_EQ(step_to_json(PackStep{"W.local"}),
            json::parse(R"({"step":"pack","stage":"W.local"})"));
  EXPECT_EQ(step_to_json(BindStep{"C", "i.1", "threadIdx.x"}),
            json::parse(R"({"step":"bind","stage":"C","loop":"i.1","thread":"threadIdx.x"})"));
}

TEST(StepJsonTest, ParsedFieldsAreThoseOfTheJson) {
  auto split = step_from_json(
      json::parse(R"({"factors":[4,2],"loop":"j","stage":"C","step":"split"})"));
  ASSERT_TRUE(split.ok()) << split.error().message;
  ASSERT_TRUE(std::holds_alternative<SplitStep>(*split));
  const auto& s = std::get<SplitStep>(*split);
  EXPECT_EQ(s.stage, "C");
  EXPECT_EQ(s.loop, "j");
  EXPECT_EQ(s.factors, (std::vector<int64_t>{4, 2}));

  auto unroll = step_from_json(json::parse(R"({"step":"auto_unroll","stage":"C","max_step":512})"));
  ASSERT_TRUE(unroll.ok()) << unroll.error().message;
  ASSERT_TRUE(std::holds_alternative<AutoUnrollStep>(*unroll));
  EXPECT_EQ(std::get<AutoUnrollStep>(*unroll).max_step, 512);
}

TEST(StepJsonTest, HandScheduleRoundTripsAndReplays) {
  const std::vector<Step> steps = matmul_hand_schedule(64, 64, 64);
  ASSERT_FALSE(steps.empty());
  json j = steps_to_json(steps);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j.size(), steps.size());

  auto parsed = steps_from_json(json::parse(j.dump()));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(steps_to_json(*parsed), j);

  auto dag = matmul(64, 64, 64);
  ASSERT_TRUE(dag.ok());
  State direct(*dag), replayed(*dag);
  auto r1 = direct.apply_all(steps);
  ASSERT_TRUE(r1.ok()) << r1.error().message;
  auto r2 = replayed.apply_all(*parsed);
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  EXPECT_EQ(replayed.describe(), direct.describe());
  EXPECT_EQ(steps_to_json(replayed.history()), j);
  // The schedule really changed the state (the comparison above is not trivially true).
  EXPECT_NE(direct.describe(), State(*dag).describe());
  EXPECT_NE(direct.describe().find("parallel"), std::string::npos) << direct.describe();
}

TEST(StepJsonTest, MissingFieldIsNamed) {
  std::string m = parse_error(R"({"step":"split","stage":"C","loop":"i"})");
  EXPECT_EQ(m, "split step: missing field 'factors' (a list of integers)");
  expect_contains(parse_error(R"({"step":"annotate","stage":"C","loop":"i"})"),
                  "annotate step: missing field 'annotation'");
  expect_contains(parse_error(R"({"step":"compute_inline"})"),
                  "compute_inline step: missing field 'stage' (a string)");
  expect_contains(parse_error(R"({"step":"auto_unroll","stage":"C"})"),
                  "auto_unroll step: missing field 'max_step' (an integer)");
  // A misspelt field reads as the real one missing.
  expect_contains(parse_error(R"({"step":"fuse","stage":"C","loop":["i","j"]})"),
                  "fuse step: missing field 'loops' (a list of strings)");
}

TEST(StepJsonTest, WrongTypeIsNamed) {
  expect_contains(parse_error(R"({"step":"split","stage":"C","loop":"i","factors":"8"})"),
                  "split step: field 'factors' must be a list of integers, got \"8\"");
  expect_contains(parse_error(R"({"step":"split","stage":"C","loop":"i","factors":[8,"x"]})"),
                  "field 'factors' must be a list of integers");
  expect_contains(parse_error(R"({"step":"split","stage":"C","loop":"i","factors":[2.5]})"),
                  "field 'factors' must be a list of integers");
  expect_contains(parse_error(R"({"step":"compute_inline","stage":3})"),
                  "compute_inline step: field 'stage' must be a string, got 3");
  expect_contains(parse_error(R"({"step":"auto_unroll","stage":"C","max_step":"16"})"),
                  "auto_unroll step: field 'max_step' must be an integer");
  expect_contains(parse_error(R"({"step":"reorder","stage":"C","order":["i",1]})"),
                  "reorder step: field 'order' must be a list of strings");
  expect_contains(parse_error(R"({"step":"annotate","stage":"C","loop":"i","annotation":null})"),
                  "annotate step: field 'annotation' must be a string, got null");
}

TEST(StepJsonTest, UnknownFieldIsNamed) {
  EXPECT_EQ(parse_error(R"({"step":"fuse","stage":"C","loops":["i","j"],"extra":1})"),
            "fuse step: unknown field 'extra'");
  expect_contains(parse_error(R"({"step":"compute_inline","stage":"B","loop":"i"})"),
                  "compute_inline step: unknown field 'loop'");
}

TEST(StepJsonTest, UnknownKindAndNonObjectsAreRefused) {
  expect_contains(parse_error(R"({"step":"tile","stage":"C"})"),
                  "unknown step kind 'tile' (expected split, reorder, fuse, annotate, "
                  "compute_inline, auto_unroll, compute_at, compute_root, cache_write, "
                  "cache_read, rfactor, layout, pack, bind)");
  expect_contains(parse_error(R"([1,2])"), "a step must be a JSON object, got [1,2]");
  expect_contains(parse_error(R"("split")"), "a step must be a JSON object");
  expect_contains(parse_error(R"({"stage":"C"})"), "a step needs a string field 'step'");
  expect_contains(parse_error(R"({"step":5,"stage":"C"})"), "a step needs a string field 'step'");
}

TEST(StepJsonTest, StepListsReportThePositionOfABadStep) {
  auto not_array = steps_from_json(json::parse(R"({"step":"compute_inline","stage":"B"})"));
  ASSERT_FALSE(not_array.ok());
  EXPECT_EQ(not_array.error().message, "steps must be a JSON array");

  auto bad = steps_from_json(json::parse(
      R"([{"step":"compute_inline","stage":"B"},{"step":"split","stage":"C","loop":"i"}])"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "step 1: split step: missing field 'factors' (a list of integers)");

  auto empty = steps_from_json(json::array());
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

}  // namespace

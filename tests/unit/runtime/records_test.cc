// Measurement records: JSON round trip, append-per-record writing, and a reader that reports
// corrupt, mistyped, too-new and half-written lines by file and line, and keeps the rest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/record_bests.h"
#include "runtime/record_ranking.h"
#include "runtime/records.h"

namespace tessera::testing {
namespace {

using runtime::MeasureError;
using runtime::MeasureRecord;

MeasureRecord sample(double cost) {
  runtime::MeasureResult result;
  result.costs = {cost, cost * 1.1, cost * 0.9};
  result.compile_seconds = 0.02;
  return runtime::make_record("matmul-0123456789abcdef", "matmul M=8 N=8 K=8", "",
                              nlohmann::json::array({{{"step", "split"}}}), result);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tessera_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(Records, RoundTripKeepsEveryField) {
  MeasureRecord r = sample(1e-3);
  r.error = MeasureError::kWrongAnswer;
  r.message = "output 'C' differs";
  auto back = runtime::record_from_json(nlohmann::json::parse(runtime::record_to_json(r).dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->workload_key, r.workload_key);
  EXPECT_EQ(back->costs, r.costs);
  EXPECT_EQ(back->error, MeasureError::kWrongAnswer);
  EXPECT_EQ(back->message, r.message);
  EXPECT_EQ(back->hardware.id(), runtime::host_fingerprint().id());
  EXPECT_EQ(back->steps, r.steps);
  EXPECT_EQ(back->timestamp, r.timestamp);
  EXPECT_DOUBLE_EQ(back->median_cost(), 1e-3);
}

// Bugs caught: a re-timing's scale dropped on the way out or in (a resumed run or the executor
// would rank its raw costs), or a zero scale read back (costs divided by it become infinite).
TEST(Records, ARetimingsScaleRoundTripsAndMustBePositive) {
  MeasureRecord r = sample(1e-3);
  r.source = runtime::kRetimeSource;
  r.scale = 1.25;
  nlohmann::json j = runtime::record_to_json(r);
  auto back = runtime::record_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_DOUBLE_EQ(back->scale, 1.25);
  EXPECT_EQ(back->costs, r.costs) << "the costs stay as measured";
  EXPECT_DOUBLE_EQ(back->comparable_costs()[0], 1e-3 / 1.25);
  EXPECT_FALSE(runtime::record_to_json(sample(1e-3)).contains("scale")) << "only re-timings carry one";
  j["scale"] = 0;
  auto zero = runtime::record_from_json(j);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("scale"), std::string::npos) << zero.error().message;
}

TEST(Records, HostFingerprintDescribesThisMachine) {
  const auto& f = runtime::host_fingerprint();
  EXPECT_GE(f.cores, 1);
  EXPECT_EQ(f.llvm_version.rfind("19.", 0), 0u) << f.llvm_version;
  EXPECT_FALSE(f.llvm_cpu.empty());
  EXPECT_EQ(f.id().size(), 16u);
}

TEST(Records, ReaderSkipsBadLinesWithTheirLineNumbers) {
  const std::string path = temp_path("records.jsonl");
  std::filesystem::remove(path);
  {
    auto writer = runtime::RecordWriter::open(path);
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    ASSERT_TRUE(writer->append(sample(1e-3)).ok());
    ASSERT_TRUE(writer->append(sample(2e-3)).ok());
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "{not json\n";                                       // line 3
    auto wrong = runtime::record_to_json(sample(3e-3));
    wrong["costs"] = "fast";
    out << wrong.dump() << "\n";                                // line 4
    auto newer = runtime::record_to_json(sample(4e-3));
    newer["format_version"] = runtime::kRecordFormatVersion + 1;
    out << newer.dump() << "\n";                                // line 5
  }
  {
    auto writer = runtime::RecordWriter::open(path);            // reopen: appends
    ASSERT_TRUE(writer->append(sample(5e-3)).ok());             // line 6
  }
  {
    std::ofstream out(path, std::ios::app);
    std::string half = runtime::record_to_json(sample(6e-3)).dump();
    out << half.substr(0, half.size() / 2);                     // line 7, killed mid-write
  }
  auto file = runtime::read_records(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_EQ(file->records.size(), 3u);
  EXPECT_DOUBLE_EQ(file->records[2].median_cost(), 5e-3);
  ASSERT_EQ(file->warnings.size(), 4u);
  EXPECT_EQ(file->warnings[0], path + ":3: not valid JSON; skipped");
  EXPECT_EQ(file->warnings[1],
            path + ":4: not a measurement record: field 'costs' is missing or has the wrong type; skipped");
  EXPECT_NE(file->warnings[2].find(path + ":5: not a measurement record: written in record format 2"),
            std::string::npos);
  EXPECT_EQ(file->warnings[3],
            path + ":7: incomplete last line (the run was killed while writing it); skipped");
  std::filesystem::remove(path);
}

// `records` written to `path`, then ranked as the network executor ranks them.
Result<runtime::RecordBests> written_and_ranked(const std::string& path, std::initializer_list<MeasureRecord> records) {
  {
    auto writer = runtime::RecordWriter::open(path);
    if (!writer) return writer.error();
    for (const MeasureRecord& r : records) {
      if (auto appended = writer->append(r); !appended) return appended.error();
    }
  }
  return runtime::load_record_bests(path);
}

// Bug caught: the executor (and tessera best) took a workload's fastest record whatever its
// timing, so a warm record from an earlier run outranked every cold one of a network run.
TEST(Records, TheNetworkPicksColdTimedRecordsBeforeWarmOnes) {
  const std::string path = temp_path("cold_warm.jsonl");
  std::filesystem::remove(path);
  MeasureRecord warm = sample(1e-3), cold = sample(2e-3), faster_cold = sample(1.5e-3);
  cold.target = faster_cold.target = std::string("llvm-cpu") + runtime::kColdConstantsSuffix;
  cold.sketch = "cold";
  faster_cold.sketch = "faster_cold";
  faster_cold.steps = nlohmann::json::array({{{"step", "split"}, {"factors", {4}}}});  // another schedule
  EXPECT_TRUE(cold.timed_cold());
  EXPECT_FALSE(warm.timed_cold());
  auto bests = written_and_ranked(path, {warm, cold, faster_cold});
  ASSERT_TRUE(bests.ok()) << bests.error().message;
  ASSERT_EQ(bests->by_workload.size(), 1u);
  EXPECT_EQ(bests->by_workload.begin()->second.sketch, "faster_cold");  // cold first, then fastest
  std::filesystem::remove(path);
}

// Bug caught: a schedule timed again (re-timed at a run's end) kept the lowest of its records,
// so the luckiest first timing still won the network its place.
TEST(Records, ASchedulesTimingsAreRankedTogether) {
  const std::string path = temp_path("timed_twice.jsonl");
  std::filesystem::remove(path);
  MeasureRecord lucky = sample(1e-3), again = sample(3e-3), steady = sample(2e-3);
  again.source = runtime::kRetimeSource;  // the same schedule as `lucky`, timed four times more
  again.costs = {3e-3, 3e-3, 3e-3, 3e-3};
  steady.sketch = "steady";
  steady.steps = nlohmann::json::array({{{"step", "split"}, {"factors", {8}}}});
  auto bests = written_and_ranked(path, {lucky, steady, again});
  ASSERT_TRUE(bests.ok()) << bests.error().message;
  ASSERT_EQ(bests->by_workload.size(), 1u);
  const MeasureRecord& best = bests->by_workload.begin()->second;
  EXPECT_EQ(best.sketch, "steady") << "the median of lucky's seven timings is 3 ms, over steady's 2 ms";
  EXPECT_EQ(bests->records_read, 3);
  std::filesystem::remove(path);
}

// Bugs caught: a network verdict joined its schedule's other timings like a re-timing, so the
// default's slow first timing outvoted the network (median of 1.2, 1.32, 1.08 and 0.95 ms is
// 1.14, behind the tuned 1 ms); or a verdict outranked a schedule that times faster still.
TEST(Records, ANetworkVerdictRanksItsScheduleByItsOwnCost) {
  const std::string path = temp_path("verdict.jsonl");
  std::filesystem::remove(path);
  MeasureRecord tuned = sample(1e-3), default_schedule = sample(1.2e-3), verdict = sample(0.95e-3);
  tuned.sketch = "tuned";
  default_schedule.sketch = verdict.sketch = "default";
  default_schedule.steps = verdict.steps = nlohmann::json::array({{{"step", "split"}, {"factors", {16}}}});
  verdict.source = runtime::kNetworkSource;
  verdict.costs = {0.95e-3};
  auto bests = written_and_ranked(path, {tuned, default_schedule});
  ASSERT_TRUE(bests.ok()) << bests.error().message;
  EXPECT_EQ(bests->by_workload.begin()->second.sketch, "tuned") << "without a verdict, timing decides";
  std::filesystem::remove(path);

  bests = written_and_ranked(path, {tuned, default_schedule, verdict});
  ASSERT_TRUE(bests.ok()) << bests.error().message;
  const MeasureRecord& best = bests->by_workload.begin()->second;
  EXPECT_EQ(best.sketch, "default");
  EXPECT_DOUBLE_EQ(best.median_cost(), 0.95e-3) << "ranked by the verdict alone";
  EXPECT_EQ(best.steps, verdict.steps) << "the executor builds the verdict's schedule";
  std::filesystem::remove(path);

  MeasureRecord later = sample(0.9e-3);  // found after the verdict, faster than its figure
  later.sketch = "later";
  later.steps = nlohmann::json::array({{{"step", "split"}, {"factors", {32}}}});
  bests = written_and_ranked(path, {tuned, default_schedule, verdict, later});
  ASSERT_TRUE(bests.ok()) << bests.error().message;
  EXPECT_EQ(bests->by_workload.begin()->second.sketch, "later");
  std::filesystem::remove(path);
}

// Bugs caught: the ranking kept the records' order instead of the executor's (the 3 ms
// schedule second), dropped the cut at `top`, or left the kept records without their steps.
TEST(Records, TheRankingKeepsEachWorkloadsFastestInTheExecutorsOrder) {
  const std::string path = temp_path("ranking.jsonl");
  std::filesystem::remove(path);
  std::vector<MeasureRecord> records;
  for (double ms : {3.0, 1.0, 2.0, 4.0}) {
    MeasureRecord r = sample(ms * 1e-3);
    r.sketch = "s" + std::to_string(static_cast<int>(ms));
    r.steps = nlohmann::json::array({{{"step", "split"}, {"factors", {static_cast<int>(ms)}}}});
    records.push_back(r);
  }
  {
    auto writer = runtime::RecordWriter::open(path);
    ASSERT_TRUE(writer.ok());
    for (const MeasureRecord& r : records) ASSERT_TRUE(writer->append(r).ok());
  }
  auto ranking = runtime::load_record_ranking(path, 3);
  ASSERT_TRUE(ranking.ok()) << ranking.error().message;
  ASSERT_EQ(ranking->size(), 1u);
  const std::vector<MeasureRecord>& ranked = ranking->begin()->second;
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].sketch, "s1");
  EXPECT_EQ(ranked[1].sketch, "s2");
  EXPECT_EQ(ranked[2].sketch, "s3");
  EXPECT_EQ(ranked[1].steps, records[2].steps);
  auto bests = runtime::load_record_bests(path);
  ASSERT_TRUE(bests.ok());
  EXPECT_EQ(bests->by_workload.begin()->second.sketch, ranked[0].sketch) << "the ranking's first is the executor's";
  std::filesystem::remove(path);
}

TEST(Records, MissingFileIsAnError) {
  auto file = runtime::read_records("/nonexistent/records.jsonl");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().message.find("cannot read records file '/nonexistent/records.jsonl'"),
            std::string::npos);
  auto writer = runtime::RecordWriter::open("/nonexistent/dir/records.jsonl");
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.error().message.find("cannot open records file"), std::string::npos);
}

}  // namespace
}  // namespace tessera::testing

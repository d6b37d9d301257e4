// Source credit end to end: propose_tagged tags an agent's candidates with its name (or keeps
// the agent's own tags), the task records each candidate's source, a resumed task credits the
// restored records by source in record order, and records written before sources existed
// still load (credited "unknown").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agents/random_search.h"
#include "agents/search_loop.h"
#include "runtime/replay_simulator.h"
#include "runtime/source_credit.h"
#include "schedule/ops.h"

namespace tessera::agents {
namespace {

std::unique_ptr<env::TuningTask> simulated_matmul(const std::string& records = "") {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  options.records_path = records;
  return env::TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
}

// Proposes random candidates, tagging them itself: half "left", half "right".
class TwoHanded : public RandomSearch {
 public:
  using RandomSearch::RandomSearch;
  std::string name() const override { return "two_handed"; }
  bool tags_sources() const override { return true; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override {
    auto out = RandomSearch::propose(task, count);
    for (size_t i = 0; i < out.size(); ++i) out[i].source = i % 2 ? "right" : "left";
    return out;
  }
};

TEST(SourceCredit, AgentsAreCreditedByNameOrByTheirOwnTags) {
  auto task = simulated_matmul();
  RandomSearch random(3);
  for (const env::Candidate& c : propose_tagged(random, *task, 4)) EXPECT_EQ(c.source, "random");
  TwoHanded hands(3);
  const auto proposed = propose_tagged(hands, *task, 4);
  EXPECT_EQ(proposed[0].source, "left");
  EXPECT_EQ(proposed[1].source, "right");
  task->measure(proposed);
  const auto& credit = task->credit().sources();
  EXPECT_EQ(credit.at("left").measured, 2);
  EXPECT_EQ(credit.at("right").measured, 2);
  // The first correct measurement is an improvement; the best of all is some source's best.
  int improvements = 0;
  double best = 1e9;
  for (const auto& [source, c] : credit) improvements += c.improvements, best = std::min(best, c.best_seconds);
  EXPECT_GE(improvements, 1);
  EXPECT_DOUBLE_EQ(best, task->best()->seconds());
}

TEST(SourceCredit, RecordsCarryTheSourceAndOldRecordsStillLoad) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "source_credit.jsonl").string();
  std::filesystem::remove(path);
  {
    auto task = simulated_matmul(path);
    TwoHanded hands(5);
    run_search(hands, *task, 8, 4);
  }
  auto file = runtime::read_records(path).value();
  ASSERT_EQ(file.records.size(), 8u);
  EXPECT_EQ(file.records[0].source, "left");
  EXPECT_EQ(file.records[1].source, "right");

  // A record as written before sources were recorded: no "source" field.
  nlohmann::json old = runtime::record_to_json(file.records[0]);
  old.erase("source");
  auto parsed = runtime::record_from_json(old);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->source, "");
  std::vector<runtime::MeasureRecord> records = file.records;
  records[0] = *parsed;

  // A resumed task credits what it restored, in record order, and keeps the tags.
  auto resumed = simulated_matmul();
  ASSERT_EQ(resumed->restore(records), 8);
  const auto& credit = resumed->credit().sources();
  EXPECT_EQ(credit.at(runtime::kUnknownSource).measured, 1);
  EXPECT_EQ(credit.at("left").measured, 3);
  EXPECT_EQ(credit.at("right").measured, 4);
  EXPECT_EQ(runtime::credit_of(records, resumed->dag().workload_key()).to_json(), resumed->credit().to_json());
  for (const auto& [c, m] : resumed->measurements()) EXPECT_EQ(c.source, m.candidate.source);
}

}  // namespace
}  // namespace tessera::agents

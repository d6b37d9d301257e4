// Transfer-tuning (env/transfer.h): the schedules other runs found, for the same workload or
// for a similar one, become a task's first candidates, fastest first, each one that the task
// can run, none it has measured already, and only records of this machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "env/transfer.h"
#include "schedule/ops.h"
#include "schedule/step_json.h"

namespace tessera::env {
namespace {

std::unique_ptr<TuningTask> conv_task(int64_t side) {
  auto dag = schedule::make_op("conv2d", {{"n", 1}, {"c", 16}, {"h", side}, {"w", side}, {"k", 32}, {"r", 3}, {"s", 3}, {"pad", 1}});
  EXPECT_TRUE(dag) << dag.error().message;
  TaskOptions options;
  options.measurable = false;  // candidates only; these tests measure nothing
  auto task = TuningTask::create(*dag, options);
  EXPECT_TRUE(task) << task.error().message;
  return std::move(*task);
}

// Records of `task`'s random candidates, the i-th taking (i + 1) ms, and one failed record.
std::vector<runtime::MeasureRecord> records_of(const TuningTask& task, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<runtime::MeasureRecord> out;
  std::set<Candidate> seen;
  while (static_cast<int>(out.size()) < count) {
    Candidate c = task.sample(rng);
    if (!seen.insert(c).second) continue;
    runtime::MeasureResult result;
    result.costs = {1e-3 * static_cast<double>(out.size() + 1)};
    const schedule::Sketch& sketch = task.sketch(c);
    out.push_back(runtime::make_record(task.dag().workload_key(), task.dag().summary(), sketch.id,
                                       schedule::steps_to_json(sketch.steps(c.knobs)), result, sketch.knobs.to_json(c.knobs)));
  }
  runtime::MeasureResult failed;
  failed.error = runtime::MeasureError::kWrongAnswer;
  Candidate c = task.sample(rng);
  out.push_back(runtime::make_record(task.dag().workload_key(), task.dag().summary(), task.sketch(c).id,
                                     schedule::steps_to_json(task.sketch(c).steps(c.knobs)), failed,
                                     task.sketch(c).knobs.to_json(c.knobs)));
  return out;
}

TEST(Transfer, SameWorkloadGivesItsFastestRecordsInOrder) {
  auto task = conv_task(14);
  const auto records = records_of(*task, 20, 1);
  TransferOptions options;
  options.limit = 5;
  const auto picks = transfer_candidates(*task, records, options);
  ASSERT_EQ(picks.size(), 5u);
  for (size_t i = 0; i < picks.size(); ++i) {
    EXPECT_TRUE(picks[i].exact);
    // records_of made record i the (i + 1)-th fastest: fails if picks are not fastest first
    EXPECT_EQ(picks[i].candidate, *task->candidate_of(records[i])) << i;
  }
}

// Another conv's schedules carry over to this one, at most `per_workload` of them, each one a
// candidate whose steps apply to this DAG; a failed record never carries over.
TEST(Transfer, SimilarWorkloadCarriesItsFastestOverWhereTheyApply) {
  auto from = conv_task(28), to = conv_task(14);
  auto records = records_of(*from, 20, 2);
  TransferOptions options;
  options.per_workload = 3;
  const auto picks = transfer_candidates(*to, records, options);
  ASSERT_FALSE(picks.empty()) << "no schedule of a 28x28 conv carried over to a 14x14 one";
  EXPECT_LE(picks.size(), 3u);
  for (const TransferPick& p : picks) {
    EXPECT_FALSE(p.exact);
    EXPECT_EQ(p.from_workload, from->dag().workload_key());
    EXPECT_TRUE(schedule::apply_candidate(to->dag(), to->sketch(p.candidate), p.candidate.knobs));
  }
  // The fastest record alone carries over to one candidate, which the full set also picked:
  // fails if a workload's records are taken other than fastest first.
  records.resize(1);
  const auto one = transfer_candidates(*to, records, options);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(std::any_of(picks.begin(), picks.end(), [&](const TransferPick& p) { return p.candidate == one[0].candidate; }));
}

// A record names the program it timed. Bug caught: after a sketch rule changed the steps it
// emits for the same knobs (a loop order, say), resume took the old program's time for the new
// one and the search never measured the new program.
TEST(Transfer, ARecordWhoseStepsTheSketchNoLongerEmitsIsNotRestored) {
  auto task = conv_task(14);
  auto records = records_of(*task, 3, 6);
  const auto timed = task->candidate_of(records[0]);
  ASSERT_TRUE(timed);
  nlohmann::json stale = records[0].steps;
  ASSERT_FALSE(stale.empty());
  stale.erase(stale.size() - 1);  // the same knobs, one step fewer
  records[0].steps = stale;
  EXPECT_FALSE(task->candidate_of(records[0]));
  EXPECT_EQ(task->restore(records), 3);  // the two others and the failed one
  EXPECT_FALSE(task->measured(*timed));
}

// A resumed run has measured its transfer candidates already: they are not proposed again.
TEST(Transfer, SkipsWhatTheTaskHasMeasured) {
  auto task = conv_task(14);
  const auto records = records_of(*task, 6, 3);
  const auto first = transfer_candidates(*task, records);
  ASSERT_EQ(first.size(), 6u);  // six correct records; the failed one is left out
  EXPECT_EQ(task->restore({records[0], records[1]}), 2);
  const auto again = transfer_candidates(*task, records);
  ASSERT_EQ(again.size(), 4u);
  for (const TransferPick& p : again) EXPECT_FALSE(task->measured(p.candidate));
}

// Within a network run, each other task's best carries over to a task's search round: one pick
// per task that has a best (not the task itself, not a task with nothing measured), at most
// `limit`, none the task has measured.
TEST(Transfer, SiblingsGiveTheirBestsCarriedOver) {
  auto a = conv_task(28), b = conv_task(56), idle = conv_task(7), to = conv_task(14);
  const auto a_records = records_of(*a, 5, 4), b_records = records_of(*b, 5, 5);
  ASSERT_EQ(a->restore(a_records), 6);  // five correct records and a failed one
  ASSERT_EQ(b->restore(b_records), 6);
  const std::vector<const TuningTask*> all = {a.get(), b.get(), idle.get(), to.get()};

  const auto picks = sibling_candidates(*to, all, 8);
  // fails if a task with nothing measured is offered, or a pick per schedule rather than per task
  ASSERT_EQ(picks.size(), 2u);
  std::set<std::string> from;
  for (const TransferPick& p : picks) {
    from.insert(p.from_workload);
    EXPECT_FALSE(p.exact);
    EXPECT_TRUE(schedule::apply_candidate(to->dag(), to->sketch(p.candidate), p.candidate.knobs));
  }
  EXPECT_EQ(from, (std::set<std::string>{a->dag().workload_key(), b->dag().workload_key()}));
  // It is the best that carries over (records_of made each task's first record its fastest):
  // fails if another of a's schedules is taken.
  std::vector<runtime::MeasureRecord> a_best = {a_records[0]};
  const auto only_best = transfer_candidates(*to, a_best);
  ASSERT_EQ(only_best.size(), 1u);
  EXPECT_TRUE(std::any_of(picks.begin(), picks.end(), [&](const TransferPick& p) { return p.candidate == only_best[0].candidate; }));

  EXPECT_EQ(sibling_candidates(*to, all, 1).size(), 1u);  // fails if the limit is ignored
  // Once measured, a pick is not offered again: fails if a run re-measures its siblings' bests.
  for (const TransferPick& p : picks) {
    runtime::MeasureResult result;
    result.costs = {1e-3};
    const schedule::Sketch& sketch = to->sketch(p.candidate);
    ASSERT_EQ(to->restore({runtime::make_record(to->dag().workload_key(), to->dag().summary(), sketch.id,
                                                schedule::steps_to_json(sketch.steps(p.candidate.knobs)), result,
                                                sketch.knobs.to_json(p.candidate.knobs))}), 1);
  }
  EXPECT_TRUE(sibling_candidates(*to, all, 8).empty());
}

// Bug caught: a run resumed with measure.cold_constants took back warm timings (or the other
// way round), and compared times no single mode measured.
TEST(Transfer, ARunRestoresOnlyRecordsTimedTheWayItTimes) {
  auto warm = conv_task(14);
  auto records = records_of(*warm, 4, 5);
  auto dag = schedule::make_op("conv2d", {{"n", 1}, {"c", 16}, {"h", 14}, {"w", 14}, {"k", 32}, {"r", 3}, {"s", 3}, {"pad", 1}});
  TaskOptions options;
  options.measurable = false;
  options.measure.cold_constants = true;
  auto cold = TuningTask::create(*dag, options);
  ASSERT_TRUE(cold) << cold.error().message;
  EXPECT_EQ((*cold)->record_target(), "llvm-cpu+cold-constants");
  EXPECT_EQ((*cold)->restore(records), 0);
  for (auto& r : records) r.target = (*cold)->record_target();
  EXPECT_EQ((*cold)->restore(records), 5);
  EXPECT_EQ(warm->restore(records), 0);
}

// Records of another machine would pose as timings of this one: they are counted and dropped.
TEST(Transfer, ReadsOnlyThisMachinesCorrectRecords) {
  auto task = conv_task(14);
  auto records = records_of(*task, 4, 4);
  records[1].hardware.cpu_model = "another CPU";
  const auto dir = std::filesystem::temp_directory_path() / ("tessera_transfer_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "records.jsonl");
    for (const auto& r : records) out << runtime::record_to_json(r).dump() << "\n";
  }
  int skipped = 0;
  auto read = read_transfer_records({dir.string()}, runtime::host_fingerprint().id(), &skipped, nullptr);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(read->size(), 3u);  // four correct, one elsewhere; the failed record dropped
  auto missing = read_transfer_records({(dir / "nowhere").string()}, runtime::host_fingerprint().id(), &skipped, nullptr);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nowhere"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tessera::env

// TaskOptions::drift_check: the task's best timed once before each batch, and the batch's
// timings scaled when the machine runs slower (or faster) than it did when the best was timed, so
// that a faster candidate timed in a slow stretch still becomes the best; records keep the ratio.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include <unistd.h>

#include "env/tuning_task.h"
#include "runtime/records.h"
#include "schedule/ops.h"
#include "schedule/step_json.h"

namespace tessera::env {
namespace {

// A machine whose speed the test sets: each schedule's time is its own (from `seconds`, 1 s when
// absent) times `slowdown`, the same for every repeat.
class DriftingMachine : public runtime::Measurer {
 public:
  std::map<std::string, double> seconds;
  double slowdown = 1.0;
  int timed = 0;                          // schedules timed, probes included
  std::vector<double> best_seconds_given;  // measure_each's `best_seconds`, per call (re-timings too)
  std::vector<runtime::MeasureResult> measure(const schedule::ComputeDAG&,
                                              const std::vector<std::vector<schedule::Step>>& schedules) override {
    std::vector<runtime::MeasureResult> out;
    for (const auto& steps : schedules) {
      ++timed;
      const std::string key = schedule::steps_to_json(steps).dump();
      const double s = (seconds.count(key) ? seconds[key] : 1.0) * slowdown;
      runtime::MeasureResult r;
      r.costs = {s, s, s};
      out.push_back(r);
    }
    return out;
  }
  void measure_each(const schedule::ComputeDAG& dag, const std::vector<runtime::Schedule>& schedules,
                    double best_seconds, const runtime::ResultSink& done) override {
    best_seconds_given.push_back(best_seconds);
    Measurer::measure_each(dag, schedules, best_seconds, done);
  }
};

struct Scene {
  std::shared_ptr<DriftingMachine> machine = std::make_shared<DriftingMachine>();
  std::unique_ptr<TuningTask> task;
  Candidate old_best, faster;  // 0.50 s and `faster_seconds` on the machine's own speed
};

// A task whose first candidate (0.50 s) was timed at full speed and whose second (0.40 s, or
// `faster_seconds`) is timed with the machine `slowdown` times slower.
Scene drift_scene(bool drift_check, double slowdown, double faster_seconds = 0.40,
                  const std::string& records_path = "") {
  Scene scene;
  TaskOptions options;
  options.measurer = scene.machine;
  options.drift_check = drift_check;
  options.records_path = records_path;
  scene.task = TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
  std::mt19937_64 rng(11);
  scene.old_best = scene.task->sample(rng);
  do scene.faster = scene.task->sample(rng);
  while (scene.faster == scene.old_best);
  auto key = [&](const Candidate& c) { return schedule::steps_to_json(scene.task->sketch(c).steps(c.knobs)).dump(); };
  scene.machine->seconds[key(scene.old_best)] = 0.50;
  scene.machine->seconds[key(scene.faster)] = faster_seconds;
  scene.task->measure({scene.old_best});
  scene.machine->slowdown = slowdown;
  scene.task->measure({scene.faster});
  return scene;
}

// The scene itself: without the check, the faster kernel timed 1.5x slow (0.60 s) loses to the
// 0.50 s best timed at full speed. Bug caught: a scene that shows nothing (the check's test below
// would then pass with the check doing nothing).
TEST(Drift, WithoutTheCheckASlowStretchHidesAFasterKernel) {
  Scene scene = drift_scene(/*drift_check=*/false, /*slowdown=*/1.5);
  ASSERT_TRUE(scene.task->best());
  EXPECT_EQ(scene.task->best()->candidate, scene.old_best);
  EXPECT_EQ(scene.task->drift_probes(), 0);
  EXPECT_EQ(scene.machine->timed, 2) << "no probe without the check";
}

// Bugs caught: a batch timed in a slow stretch compared raw with a best timed at full speed (the
// faster kernel is lost); the give-up limit left at the full-speed best (the worker stops timing
// every candidate of a slow batch early); the probe counted as a trial.
TEST(Drift, AFasterKernelTimedInASlowStretchBecomesTheBest) {
  Scene scene = drift_scene(/*drift_check=*/true, /*slowdown=*/1.5);
  ASSERT_TRUE(scene.task->best());
  EXPECT_EQ(scene.task->best()->candidate, scene.faster);
  EXPECT_NEAR(scene.task->best()->seconds(), 0.40, 1e-12) << "on the speed the 0.50 s best was timed at";
  EXPECT_NEAR(scene.task->drift(), 1.5, 1e-12);
  EXPECT_EQ(scene.task->drift_probes(), 1) << "the first batch has no best to probe";
  EXPECT_EQ(scene.task->drift_scaled(), 1);
  ASSERT_EQ(scene.machine->best_seconds_given.size(), 3u) << "first batch, probe (a re-timing), second batch";
  EXPECT_EQ(scene.machine->best_seconds_given[0], 0.0);
  EXPECT_NEAR(scene.machine->best_seconds_given[2], 0.75, 1e-12) << "the best at this minute's speed";
  EXPECT_EQ(scene.task->trials(), 2);
  EXPECT_EQ(scene.machine->timed, 3) << "two trials and one probe";
}

// Bug caught: every batch scaled by the noise of one probe (a 2% wobble would then move every
// candidate of the batch by its luck).
TEST(Drift, WithinTheToleranceNothingIsScaled) {
  Scene scene = drift_scene(/*drift_check=*/true, /*slowdown=*/1.02, /*faster_seconds=*/0.52);
  EXPECT_EQ(scene.task->drift_probes(), 1);
  EXPECT_EQ(scene.task->drift_scaled(), 0);
  EXPECT_EQ(scene.task->drift(), 1.0);
  EXPECT_NEAR(scene.task->measurements().at(scene.faster).seconds(), 0.52 * 1.02, 1e-12) << "its raw timing";
  EXPECT_NEAR(scene.machine->best_seconds_given.back(), 0.50, 1e-12);
}

// Bugs caught: scaled costs written without their ratio (the raw timing is lost), or a resumed
// task that reads them differently from the run that wrote them (another best after a kill).
TEST(Drift, RecordsKeepTheRatioAndAResumedTaskSeesTheSameBest) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tessera_drift_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "records.jsonl").string();
  Scene scene = drift_scene(/*drift_check=*/true, /*slowdown=*/1.5, 0.40, path);

  auto read = runtime::read_records(path);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->records.size(), 2u);
  EXPECT_EQ(read->records[0].drift, 1.0);
  EXPECT_NEAR(read->records[1].drift, 1.5, 1e-12);
  EXPECT_NEAR(read->records[1].median_cost(), 0.40, 1e-12);
  EXPECT_NEAR(read->records[1].median_cost() * read->records[1].drift, 0.60, 1e-12) << "the raw timing";

  TaskOptions options;
  options.measurer = std::make_shared<DriftingMachine>();
  auto resumed = TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
  EXPECT_EQ(resumed->restore(read->records), 2);
  ASSERT_TRUE(resumed->best());
  EXPECT_EQ(resumed->best()->candidate, scene.faster);
  std::filesystem::remove_all(dir);
}

// Bug caught: a record with a drift that cannot be a ratio read as if it were one (costs
// multiplied by 0 or a negative number when the raw timings are wanted).
TEST(Drift, ARecordWithANonPositiveDriftIsRefusedByName) {
  runtime::MeasureRecord record;
  record.workload_key = "k";
  record.costs = {0.1};
  record.drift = 2.0;
  nlohmann::json j = runtime::record_to_json(record);
  auto back = runtime::record_from_json(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->drift, 2.0);
  j["drift"] = 0.0;
  auto refused = runtime::record_from_json(j);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("'drift'"), std::string::npos) << refused.error().message;
  record.drift = 1.0;
  EXPECT_FALSE(runtime::record_to_json(record).contains("drift")) << "absent where nothing was scaled";
}

}  // namespace
}  // namespace tessera::env

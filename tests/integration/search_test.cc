// Random and Droplet search end to end on a small matmul, through the builder and the
// isolated runner: trials are counted, nothing is measured twice, Droplet starts from the
// best and converges, and every record names a sketch and knobs that replay.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "agents/droplet_search.h"
#include "agents/random_search.h"
#include "runtime/records.h"
#include "schedule/ops.h"
#include "schedule/step_json.h"

namespace tessera::testing {
namespace {

TEST(Search, RandomThenDropletOnASmallMatmul) {
  const std::string records = (std::filesystem::temp_directory_path() /
                               ("tessera_search_" + std::to_string(::getpid()) + ".jsonl")).string();
  std::filesystem::remove(records);
  auto dag = schedule::matmul(16, 32, 8);
  env::TaskOptions options;
  options.records_path = records;
  options.measure.min_repeat_ms = 2;
  auto task = env::TuningTask::create(*dag, options);
  ASSERT_TRUE(task.ok()) << task.error().message;

  agents::RandomSearch random(7);
  agents::run_search(random, **task, 12, 6);
  EXPECT_EQ((*task)->trials(), 12);
  ASSERT_TRUE((*task)->best().has_value());
  const double random_best = (*task)->best()->seconds();

  agents::DropletSearch droplet(7);
  agents::run_search(droplet, **task, 400, 8);
  EXPECT_TRUE(droplet.done()) << "Droplet should converge on a space this small";
  EXPECT_GT((*task)->trials(), 12);
  EXPECT_LE((*task)->best()->seconds(), random_best);

  auto file = runtime::read_records(records);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->warnings.empty());
  ASSERT_EQ(static_cast<int>(file->records.size()), (*task)->trials());
  std::set<std::string> identities;
  for (const auto& r : file->records) {
    EXPECT_TRUE(identities.insert(r.sketch + r.knobs.dump()).second) << "measured twice";
    const schedule::Sketch* sketch = nullptr;
    for (const auto& s : (*task)->sketches()) {
      if (s.id == r.sketch) sketch = &s;
    }
    ASSERT_NE(sketch, nullptr) << r.sketch;
    auto knobs = sketch->knobs.from_json(r.knobs);
    ASSERT_TRUE(knobs.ok()) << knobs.error().message;
    EXPECT_EQ(schedule::steps_to_json(sketch->steps(*knobs)), r.steps);
  }
  std::filesystem::remove(records);
}

}  // namespace
}  // namespace tessera::testing

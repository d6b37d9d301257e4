// Sampling a run's records for the measurement benches (see run_samples.h).
#include "bench/run_samples.h"

#include <algorithm>

#include "runtime/records.h"
#include "schedule/state.h"
#include "schedule/step_json.h"

namespace tessera::bench {

namespace {

// The run's config and tasks in `out`, and its correct records of those tasks.
Result<std::vector<runtime::MeasureRecord>> load_run(const std::filesystem::path& run_dir, RunSamples& out,
                                                     std::map<std::string, const schedule::ComputeDAG*>& by_key) {
  out.run_dir = run_dir;
  auto config = experiments::load_config((run_dir / "config.yaml").string());
  if (!config) return config.error();
  out.config = std::move(*config);
  auto tasks = experiments::run_tasks(out.config);
  if (!tasks) return tasks.error();
  out.tasks = std::move(*tasks);
  for (const auto& t : out.tasks) by_key[t.dag.workload_key()] = &t.dag;
  auto file = runtime::read_records((run_dir / "records.jsonl").string());
  if (!file) return file.error();
  std::vector<runtime::MeasureRecord> correct;
  for (auto& r : file->records) {
    if (r.error == runtime::MeasureError::kNone && by_key.count(r.workload_key)) correct.push_back(std::move(r));
  }
  if (correct.empty()) return make_error(run_dir.string() + ": no correct record of the run's tasks");
  out.correct_records = correct.size();
  return correct;
}

}  // namespace

Result<RunSamples> load_run_samples(const std::filesystem::path& run_dir, int wanted) {
  RunSamples out;
  std::map<std::string, const schedule::ComputeDAG*> by_key;
  auto correct = load_run(run_dir, out, by_key);
  if (!correct) return correct.error();
  const double stride = std::max(1.0, static_cast<double>(correct->size()) / std::max(1, wanted));
  for (double at = 0; at < correct->size() && static_cast<int>(out.samples.size()) < wanted; at += stride) {
    const runtime::MeasureRecord& r = (*correct)[static_cast<size_t>(at)];
    auto steps = schedule::steps_from_json(r.steps);
    if (!steps) return make_error("a record's steps: " + steps.error().message);
    const schedule::ComputeDAG* dag = by_key[r.workload_key];
    schedule::State state(*dag);
    if (auto applied = state.apply_all(*steps); !applied) return applied.error();
    auto func = schedule::lower(state, "k");
    if (!func) return func.error();
    out.samples.push_back({dag, std::move(*func)});
  }
  return out;
}

Result<RunSamples> load_run_batches(const std::filesystem::path& run_dir, int wanted, size_t least) {
  constexpr size_t kMostPerBatch = 16;
  RunSamples out;
  std::map<std::string, const schedule::ComputeDAG*> by_key;
  auto correct = load_run(run_dir, out, by_key);
  if (!correct) return correct.error();
  const std::vector<runtime::MeasureRecord>& records = *correct;
  std::vector<RunBatch> all;
  std::map<std::string, double> best;  // by workload, before the batch at hand
  for (size_t i = 0; i < records.size();) {
    size_t end = i;
    while (end < records.size() && end - i < kMostPerBatch && records[end].workload_key == records[i].workload_key) ++end;
    const std::string& key = records[i].workload_key;
    if (end - i >= least) {
      RunBatch batch;
      batch.dag = by_key[key];
      batch.best_before = best.count(key) ? best[key] : 0;
      for (size_t r = i; r < end; ++r) {
        auto steps = schedule::steps_from_json(records[r].steps);
        if (!steps) return make_error("a record's steps: " + steps.error().message);
        batch.schedules.push_back(std::move(*steps));
      }
      all.push_back(std::move(batch));
    }
    for (size_t r = i; r < end; ++r) {
      const double m = records[r].median_cost();
      if (m > 0 && (!best.count(key) || m < best[key])) best[key] = m;
    }
    i = end;
  }
  if (all.empty()) return make_error(run_dir.string() + ": no batch of " + std::to_string(least) + " correct records");
  const double stride = std::max(1.0, static_cast<double>(all.size()) / std::max(1, wanted));
  for (double at = 0; at < all.size() && static_cast<int>(out.batches.size()) < wanted; at += stride) {
    out.batches.push_back(std::move(all[static_cast<size_t>(at)]));
  }
  return out;
}

Result<const runtime::MeasureTask*> RunSamples::check(const schedule::ComputeDAG& dag) {
  const std::string key = dag.workload_key();
  auto found = checks_.find(key);
  if (found == checks_.end()) {
    auto made = runtime::make_measure_task(dag, config.seed, runtime::kCheckPoints, experiments::checks_dir_of(run_dir.string()));
    if (!made) return made.error();
    found = checks_.emplace(key, std::move(*made)).first;
  }
  return &found->second;
}

}  // namespace tessera::bench

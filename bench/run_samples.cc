// Sampling a run's records for the measurement benches (see run_samples.h).
#include "bench/run_samples.h"

#include <algorithm>

#include "runtime/records.h"
#include "schedule/state.h"
#include "schedule/step_json.h"

namespace tessera::bench {

Result<RunSamples> load_run_samples(const std::filesystem::path& run_dir, int wanted) {
  RunSamples out;
  out.run_dir_ = run_dir;
  auto config = experiments::load_config((run_dir / "config.yaml").string());
  if (!config) return config.error();
  out.config = std::move(*config);
  auto tasks = experiments::run_tasks(out.config);
  if (!tasks) return tasks.error();
  out.tasks = std::move(*tasks);
  std::map<std::string, const schedule::ComputeDAG*> by_key;
  for (const auto& t : out.tasks) by_key[t.dag.workload_key()] = &t.dag;
  auto file = runtime::read_records((run_dir / "records.jsonl").string());
  if (!file) return file.error();
  std::vector<const runtime::MeasureRecord*> correct;
  for (const auto& r : file->records) {
    if (r.error == runtime::MeasureError::kNone && by_key.count(r.workload_key)) correct.push_back(&r);
  }
  if (correct.empty()) return make_error(run_dir.string() + ": no correct record of the run's tasks");
  out.correct_records = correct.size();
  const double stride = std::max(1.0, static_cast<double>(correct.size()) / std::max(1, wanted));
  for (double at = 0; at < correct.size() && static_cast<int>(out.samples.size()) < wanted; at += stride) {
    const runtime::MeasureRecord& r = *correct[static_cast<size_t>(at)];
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

Result<const runtime::MeasureTask*> RunSamples::check(const schedule::ComputeDAG& dag) {
  const std::string key = dag.workload_key();
  auto found = checks_.find(key);
  if (found == checks_.end()) {
    auto made = runtime::make_measure_task(dag, config.seed, runtime::kCheckPoints, experiments::checks_dir_of(run_dir_.string()));
    if (!made) return made.error();
    found = checks_.emplace(key, std::move(*made)).first;
  }
  return &found->second;
}

}  // namespace tessera::bench

// Build on every core, or beside the timing on the cores it leaves; time in the isolated worker
// (see local_measurer.h).
#include "runtime/local_measurer.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "runtime/timing.h"
#include "schedule/step_json.h"

namespace tessera::runtime {

Result<const MeasureTask*> LocalMeasurer::reference(const schedule::ComputeDAG& dag) {
  auto known = references_.find(dag.workload_key());
  if (known != references_.end()) return &known->second;
  auto made = make_measure_task(dag, seed_, kCheckPoints, checks_dir_);
  if (!made) return made.error();
  return &references_.emplace(dag.workload_key(), std::move(*made)).first->second;
}

Result<void> LocalMeasurer::prepare(const schedule::ComputeDAG& dag) {
  auto made = reference(dag);
  if (!made) return made.error();
  return {};
}

std::vector<BuildResult> LocalMeasurer::build(const schedule::ComputeDAG& dag,
                                              const std::vector<Schedule>& schedules) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<BuildInput> inputs;
  for (const Schedule& steps : schedules) inputs.push_back({&dag, steps});
  std::vector<BuildResult> built = build_batch(inputs, build_);
  phases_.build += seconds_since(start);
  return built;
}

MeasureResult LocalMeasurer::run(const MeasureTask& check, const BuildResult& built, const MeasureOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  MeasureResult result = runner_.measure(check, built, options);
  phases_.run += seconds_since(start);
  return result;
}

std::vector<MeasureResult> LocalMeasurer::measure(const schedule::ComputeDAG& dag,
                                                  const std::vector<Schedule>& schedules) {
  std::vector<MeasureResult> results(schedules.size());
  measure_each(dag, schedules, 0, [&](size_t i, MeasureResult r) { results[i] = std::move(r); });
  return results;
}

void LocalMeasurer::measure_each(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules,
                                 double best_seconds, const ResultSink& done) {
  auto check = reference(dag);
  if (!check) {
    for (size_t i = 0; i < schedules.size(); ++i) {
      MeasureResult refused;
      refused.error = MeasureError::kRuntimeError;
      refused.message = "no reference outputs to check against: " + check.error().message;
      done(i, std::move(refused));
    }
    return;
  }
  // Candidate i's build: from the whole batch compiled on every core, or from a pipeline that
  // compiles on the cores the worker does not time on while it times (builder.h).
  std::vector<BuildResult> builds;
  std::optional<BuildPipeline> pipeline;
  const std::vector<int> spare = measure_.compile_while_timing ? spare_cpus(measure_.threads) : std::vector<int>{};
  if (spare.empty()) {
    builds = build(dag, schedules);
  } else {
    std::vector<BuildInput> inputs;
    for (const Schedule& steps : schedules) inputs.push_back({&dag, steps});
    pipeline.emplace(std::move(inputs), build_, spare);
  }
  auto built = [&](size_t i) {
    if (!pipeline) return std::move(builds[i]);
    const auto start = std::chrono::steady_clock::now();
    BuildResult b = pipeline->take(i);
    phases_.build += seconds_since(start);
    return b;
  };
  double best = best_seconds;
  for (size_t i = 0; i < schedules.size(); ++i) {
    MeasureOptions options = measure_;
    if (best > 0 && options.give_up_ratio > 0) {
      options.give_up_seconds = options.give_up_ratio * best;
      options.best_seconds = best;
    }
    const BuildResult b = built(i);
    keep(dag, schedules[i], b);
    MeasureResult result = run(**check, b, options);
    if (result.error == MeasureError::kNone && result.median() > 0) {
      best = best > 0 ? std::min(best, result.median()) : result.median();
    }
    done(i, std::move(result));
  }
}

namespace {
std::string kept_key(const schedule::ComputeDAG& dag, const Schedule& steps) {
  return dag.workload_key() + "\n" + schedule::steps_to_json(steps).dump();
}
}  // namespace

void LocalMeasurer::keep(const schedule::ComputeDAG& dag, const Schedule& steps, const BuildResult& built) {
  if (built.error != MeasureError::kNone) return;
  std::string key = kept_key(dag, steps);
  if (kept_.count(key)) return;
  kept_.emplace(key, built);
  kept_order_.push_back(std::move(key));
  if (kept_order_.size() > kKeptObjects) {
    kept_.erase(kept_order_.front());
    kept_order_.pop_front();
  }
}

const BuildResult* LocalMeasurer::kept(const schedule::ComputeDAG& dag, const Schedule& steps) const {
  auto found = kept_.find(kept_key(dag, steps));
  return found == kept_.end() ? nullptr : &found->second;
}

void LocalMeasurer::retime(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules, int rounds,
                           const ResultSink& done) {
  auto check = reference(dag);
  if (!check) return Measurer::retime(dag, schedules, rounds, done);  // every result says why
  std::vector<BuildResult> builds(schedules.size());
  std::vector<Schedule> missing;
  std::vector<size_t> missing_at;
  for (size_t i = 0; i < schedules.size(); ++i) {
    if (const BuildResult* k = kept(dag, schedules[i])) {
      builds[i] = *k;
    } else {
      missing.push_back(schedules[i]);
      missing_at.push_back(i);
    }
  }
  if (!missing.empty()) {
    std::vector<BuildResult> compiled = build(dag, missing);
    for (size_t m = 0; m < missing.size(); ++m) {
      keep(dag, missing[m], compiled[m]);
      builds[missing_at[m]] = std::move(compiled[m]);
    }
  }
  std::vector<bool> failed(builds.size(), false);
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < builds.size(); ++i) {
      if (failed[i]) continue;  // a failure is final: it is not run again
      MeasureResult result = run(**check, builds[i], measure_);
      failed[i] = result.error != MeasureError::kNone;
      done(i, std::move(result));
    }
  }
}

}  // namespace tessera::runtime

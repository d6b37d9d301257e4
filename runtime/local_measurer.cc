// Build on every core, time in the isolated worker (see local_measurer.h).
#include "runtime/local_measurer.h"

#include <algorithm>
#include <chrono>

#include "runtime/timing.h"

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
  auto builds = build(dag, schedules);
  double best = best_seconds;
  for (size_t i = 0; i < builds.size(); ++i) {
    MeasureOptions options = measure_;
    if (best > 0 && options.give_up_ratio > 0) {
      options.give_up_seconds = options.give_up_ratio * best;
      options.best_seconds = best;
    }
    MeasureResult result = run(**check, builds[i], options);
    if (result.error == MeasureError::kNone && result.median() > 0) {
      best = best > 0 ? std::min(best, result.median()) : result.median();
    }
    done(i, std::move(result));
  }
}

void LocalMeasurer::retime(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules, int rounds,
                           const ResultSink& done) {
  auto check = reference(dag);
  if (!check) return Measurer::retime(dag, schedules, rounds, done);  // every result says why
  auto builds = build(dag, schedules);
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

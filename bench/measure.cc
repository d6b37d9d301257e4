// Shared benchmark machinery (see measure.h).
#include "bench/measure.h"

#include <cmath>
#include <cstdlib>

#include "runtime/check.h"
#include "runtime/default_schedule.h"
#include "runtime/timing.h"
#include "schedule/lower.h"
#include "schedule/state.h"

namespace tessera::bench {

nlohmann::json error_json(const std::string& message) { return {{"error", message}}; }

Result<nlohmann::json> probe_knobs(const schedule::ComputeDAG& dag, const schedule::Sketch& sketch,
                                   const std::string& text) {
  if (text == "default") {
    // With TESSERA_PROBE_COLD, the defaults for weights that come from memory (a network's).
    const auto constants = std::getenv("TESSERA_PROBE_COLD") ? runtime::Constants::kFromMemory : runtime::Constants::kCached;
    for (const runtime::ScheduleChoice& choice : runtime::default_schedules(dag, constants)) {
      if (choice.sketch == sketch.id) return choice.knobs;
    }
    return make_error("the default rule gives sketch " + sketch.id + " no candidate");
  }
  nlohmann::json knobs = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (knobs.is_discarded()) return make_error("the probe's knobs are neither JSON nor \"default\": " + text);
  return knobs;
}

nlohmann::json no_sketch_json(const schedule::ComputeDAG& dag, const std::string& id, const std::string& what) {
  std::string ids;
  for (const schedule::Sketch& sketch : schedule::generate_sketches(dag)) ids += " " + sketch.id;
  return error_json("no sketch " + id + " for " + what + " (it has:" + ids + ")");
}

Result<CompiledSchedule> compile_and_check(const schedule::ComputeDAG& dag,
                                           const std::vector<schedule::Step>& steps,
                                           int compiles) {
  schedule::State state(dag);
  if (auto r = state.apply_all(steps); !r) return r.error();
  auto func = schedule::lower(state, "bench_kernel");
  if (!func) return func.error();
  CompiledSchedule out;
  std::vector<double> times;
  for (int i = 0; i < compiles; ++i) {
    auto kernel = runtime::compile_cpu(*func);
    if (!kernel) return kernel.error();
    times.push_back(kernel->compile_ms());
    out.kernel = std::make_unique<runtime::Kernel>(std::move(*kernel));
  }
  out.compile_ms = median(times);
  auto check = runtime::check_kernel(dag, *out.kernel);
  if (!check) return check.error();
  if (!check->ok()) {
    return make_error("wrong answer in " + check->worst_output + ": max error " +
                      std::to_string(check->comparison.max_error));
  }
  out.checked_points = check->points_checked;
  out.max_error = check->comparison.max_error;
  return out;
}

Medians time_alternately(const std::function<void()>& tessera, const std::function<void()>& baseline,
                         int rounds, const std::function<void()>& before_tessera,
                         const std::function<void()>& before_baseline) {
  runtime::TimingOptions ours_options;
  ours_options.repeats = 3;
  ours_options.min_repeat_ms = 100;
  runtime::TimingOptions theirs_options = ours_options;
  ours_options.before_each_call = before_tessera;
  theirs_options.before_each_call = before_baseline;
  std::vector<double> ours, theirs;
  for (int round = 0; round < rounds; ++round) {
    for (double s : runtime::time_callable(tessera, ours_options).seconds) ours.push_back(s);
    for (double s : runtime::time_callable(baseline, theirs_options).seconds) theirs.push_back(s);
  }
  return {median(ours), median(theirs)};
}

nlohmann::json result_json(double flops, const Medians& m, const std::string& baseline,
                           const CompiledSchedule& compiled) {
  auto round1 = [](double x) { return std::round(x * 10) / 10; };
  double ours = flops / m.tessera_seconds * 1e-9, theirs = flops / m.baseline_seconds * 1e-9;
  return {{"tessera_gflops", round1(ours)},
          {"baseline", baseline},
          {"baseline_gflops", round1(theirs)},
          {"tessera_us", round1(m.tessera_seconds * 1e6)},
          {"baseline_us", round1(m.baseline_seconds * 1e6)},
          {"ratio", std::round(ours / theirs * 1000) / 1000},
          {"compile_ms", round1(compiled.compile_ms)},
          {"checked_points", compiled.checked_points},
          {"max_error", compiled.max_error}};
}

}  // namespace tessera::bench

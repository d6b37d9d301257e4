// Reading a run directory back (see inspect.h).
#include "experiments/inspect.h"

#include <cstdio>
#include <filesystem>
#include <optional>

#include "experiments/config.h"
#include "runtime/builder.h"
#include "runtime/records.h"
#include "runtime/runner.h"
#include "schedule/lower.h"
#include "schedule/sketch.h"
#include "schedule/step_json.h"

namespace tessera::experiments {
namespace {

struct BestOfTask {
  TaskSpec spec;
  schedule::ComputeDAG dag;
  runtime::MeasureRecord record;
  std::vector<schedule::Step> steps;
};

// The best correct record of every task of the run, with its steps.
Result<std::vector<BestOfTask>> load_bests(const std::string& run_dir, TuneConfig* config_out) {
  const std::filesystem::path dir(run_dir);
  auto config = load_config((dir / "config.yaml").string());
  if (!config) return config.error();
  auto file = runtime::read_records((dir / "records.jsonl").string());
  if (!file) return file.error();
  for (const std::string& w : file->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::vector<BestOfTask> bests;
  for (const TaskSpec& spec : config->tasks) {
    auto dag = build_task(spec);
    if (!dag) return dag.error();
    std::optional<runtime::MeasureRecord> best;
    for (const auto& r : file->records) {
      if (r.workload_key != dag->workload_key() || r.error != runtime::MeasureError::kNone) continue;
      if (!best || r.median_cost() < best->median_cost()) best = r;
    }
    if (!best) {
      std::fprintf(stderr, "%s: no correct measurement in %s\n", spec.name.c_str(), run_dir.c_str());
      continue;
    }
    auto steps = schedule::steps_from_json(best->steps);
    if (!steps) return make_error(spec.name + ": the best record's steps: " + steps.error().message);
    bests.push_back({spec, std::move(*dag), *best, std::move(*steps)});
  }
  *config_out = *config;
  return bests;
}

}  // namespace

int run_best(const std::string& run_dir) {
  TuneConfig config;
  auto bests = load_bests(run_dir, &config);
  if (!bests) {
    std::fprintf(stderr, "tessera best: %s\n", bests.error().message.c_str());
    return 1;
  }
  for (const BestOfTask& b : *bests) {
    double gflops = b.dag.flop_count() / b.record.median_cost() * 1e-9;
    std::printf("== %s\nworkload %s\nbest %.3f ms (%.1f GFLOP/s), sketch %s\nknobs %s\nsteps %s\n",
                b.spec.name.c_str(), b.dag.workload_key().c_str(), b.record.median_cost() * 1e3, gflops,
                b.record.sketch.c_str(), b.record.knobs.dump().c_str(), b.record.steps.dump().c_str());
    schedule::State state(b.dag);
    if (auto r = state.apply_all(b.steps); !r) {
      std::printf("(the steps no longer apply: %s)\n", r.error().message.c_str());
      continue;
    }
    auto func = schedule::lower(state, "best");
    if (func) std::printf("loop nest:\n%s", schedule::to_string(*func).c_str());
  }
  return bests->empty() ? 1 : 0;
}

int run_replay(const std::string& run_dir) {
  TuneConfig config;
  auto bests = load_bests(run_dir, &config);
  if (!bests) {
    std::fprintf(stderr, "tessera replay: %s\n", bests.error().message.c_str());
    return 1;
  }
  int failures = 0;
  runtime::Runner runner;
  for (const BestOfTask& b : *bests) {
    auto check = runtime::make_measure_task(b.dag, config.seed);
    if (!check) {
      std::fprintf(stderr, "%s: %s\n", b.spec.name.c_str(), check.error().message.c_str());
      ++failures;
      continue;
    }
    auto builds = runtime::build_batch({{&b.dag, b.steps}});
    runtime::MeasureOptions options = config.measure;
    options.threads = config.threads;
    auto result = runner.measure(*check, builds[0], options);
    if (result.error != runtime::MeasureError::kNone) {
      std::printf("%s: replay FAILED: %s: %s\n", b.spec.name.c_str(), runtime::to_string(result.error),
                  result.message.c_str());
      ++failures;
      continue;
    }
    double recorded = b.dag.flop_count() / b.record.median_cost() * 1e-9;
    double now = b.dag.flop_count() / result.median() * 1e-9;
    std::printf("%s: recompiled, checked against the reference (max error %.2e): recorded %.1f GFLOP/s, "
                "replayed %.1f GFLOP/s (%.2fx)\n",
                b.spec.name.c_str(), result.max_error, recorded, now, now / recorded);
  }
  return failures == 0 && !bests->empty() ? 0 : 1;
}

}  // namespace tessera::experiments

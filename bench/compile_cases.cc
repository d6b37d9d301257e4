// What LLVM's pipeline level costs and buys on the kernels a tuner really measures: records of a
// run (TESSERA_COMPILE_RUN, a run directory, e.g. a network tune), a spread sample of its correct
// candidates (TESSERA_COMPILE_SAMPLES, 48 by default) compiled at O3, O2 and O1 on one core, each
// kernel checked against the reference (a wrong one is an error) and timed, the levels
// alternating within each candidate over two rounds. Prints compile seconds split into the IR pipeline and code generation, and
// each level's kernel time against O3's (geometric mean and worst): whether the tuner could
// compile cheaper without measuring different kernels.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "bench/cases.h"
#include "bench/measure.h"
#include "experiments/config.h"
#include "experiments/run_tasks.h"
#include "runtime/check.h"
#include "runtime/kernel.h"
#include "runtime/records.h"
#include "runtime/timing.h"
#include "schedule/lower.h"
#include "schedule/state.h"
#include "schedule/step_json.h"

namespace tessera::bench {
namespace {

constexpr int kLevels[] = {3, 2, 1};
constexpr int kRounds = 2;

struct Sample {
  const schedule::ComputeDAG* dag = nullptr;
  schedule::LoweredFunc func;
};

struct LevelTotals {
  double compile_s = 0, optimize_s = 0, codegen_s = 0;
  double log_ratio_sum = 0;  // of kernel time against O3's
  double worst_ratio = 0;
};

}  // namespace

nlohmann::json run_compile_levels() {
  const char* run = std::getenv("TESSERA_COMPILE_RUN");
  if (!run) return error_json("set TESSERA_COMPILE_RUN to a run directory (config.yaml + records.jsonl)");
  const std::filesystem::path dir(run);
  const char* samples_env = std::getenv("TESSERA_COMPILE_SAMPLES");
  const int wanted = samples_env ? std::max(1, std::atoi(samples_env)) : 48;
  auto config = experiments::load_config((dir / "config.yaml").string());
  if (!config) return error_json(config.error().message);
  auto tasks = experiments::run_tasks(*config);
  if (!tasks) return error_json(tasks.error().message);
  std::map<std::string, const schedule::ComputeDAG*> by_key;
  for (const auto& t : *tasks) by_key[t.dag.workload_key()] = &t.dag;
  auto file = runtime::read_records((dir / "records.jsonl").string());
  if (!file) return error_json(file.error().message);
  std::vector<const runtime::MeasureRecord*> correct;
  for (const auto& r : file->records) {
    if (r.error == runtime::MeasureError::kNone && by_key.count(r.workload_key)) correct.push_back(&r);
  }
  if (correct.empty()) return error_json(std::string(run) + ": no correct record of the run's tasks");

  std::vector<Sample> samples;
  const double stride = std::max(1.0, static_cast<double>(correct.size()) / wanted);
  for (double at = 0; at < correct.size() && static_cast<int>(samples.size()) < wanted; at += stride) {
    const runtime::MeasureRecord& r = *correct[static_cast<size_t>(at)];
    auto steps = schedule::steps_from_json(r.steps);
    if (!steps) return error_json("a record's steps: " + steps.error().message);
    const schedule::ComputeDAG* dag = by_key[r.workload_key];
    schedule::State state(*dag);
    if (auto applied = state.apply_all(*steps); !applied) return error_json(applied.error().message);
    auto func = schedule::lower(state, "k");
    if (!func) return error_json(func.error().message);
    samples.push_back({dag, std::move(*func)});
  }

  std::map<std::string, runtime::MeasureTask> checks;
  LevelTotals totals[std::size(kLevels)];
  for (const Sample& s : samples) {
    const std::string key = s.dag->workload_key();
    if (!checks.count(key)) {
      auto made = runtime::make_measure_task(*s.dag, config->seed, runtime::kCheckPoints, experiments::checks_dir_of(run));
      if (!made) return error_json(made.error().message);
      checks.emplace(key, std::move(*made));
    }
    const runtime::MeasureTask& check = checks.at(key);
    std::vector<runtime::Kernel> kernels;
    for (size_t l = 0; l < std::size(kLevels); ++l) {
      runtime::CompileOptions options;
      options.opt_level = kLevels[l];
      auto object = runtime::compile_object(s.func, options);
      if (!object) return error_json(object.error().message);
      totals[l].compile_s += object->compile_ms * 1e-3;
      totals[l].optimize_s += object->optimize_ms * 1e-3;
      totals[l].codegen_s += object->codegen_ms * 1e-3;
      auto kernel = runtime::load_kernel(*object);
      if (!kernel) return error_json(kernel.error().message);
      kernels.push_back(std::move(*kernel));
    }
    auto buffers = runtime::task_buffers(check);
    std::vector<float*> pointers;
    for (auto& b : buffers) pointers.push_back(b->data());
    std::vector<double> best(kernels.size(), INFINITY);
    for (size_t l = 0; l < kernels.size(); ++l) {
      auto checked = runtime::run_and_check(kernels[l], check, buffers);
      if (!checked) return error_json(checked.error().message);
      if (!checked->ok()) {  // a wrong kernel is an error, not a result
        return error_json("O" + std::to_string(kLevels[l]) + " compiled a wrong kernel for " + key + ": max error " +
                          std::to_string(checked->comparison.max_error) + checked->guard_violation);
      }
    }
    runtime::TimingOptions timing;  // the tuner's protocol: 30 ms warm-up, 3 repeats of 50 ms
    timing.min_warmup_ms = 30;
    timing.repeats = 3;
    timing.min_repeat_ms = 50;
    for (int round = 0; round < kRounds; ++round) {
      for (size_t l = 0; l < kernels.size(); ++l) {
        best[l] = std::min(best[l], runtime::time_kernel(kernels[l], pointers, timing).median());
      }
    }
    for (size_t l = 0; l < kernels.size(); ++l) {
      const double ratio = best[l] / best[0];
      totals[l].log_ratio_sum += std::log(ratio);
      totals[l].worst_ratio = std::max(totals[l].worst_ratio, ratio);
    }
  }

  nlohmann::json out = {{"run", run},
                        {"samples", samples.size()},
                        {"of_correct_records", correct.size()},
                        {"includes", "compile on one core; kernel time = best of 2 rounds' medians, levels alternating"}};
  for (size_t l = 0; l < std::size(kLevels); ++l) {
    const LevelTotals& t = totals[l];
    out["O" + std::to_string(kLevels[l])] = {
        {"compile_seconds", t.compile_s},
        {"optimize_seconds", t.optimize_s},
        {"codegen_seconds", t.codegen_s},
        {"compile_vs_O3", t.compile_s / totals[0].compile_s},
        {"kernel_time_vs_O3_geomean", std::exp(t.log_ratio_sum / samples.size())},
        {"kernel_time_vs_O3_worst", t.worst_ratio}};
  }
  return out;
}

}  // namespace tessera::bench

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

#include "bench/cases.h"
#include "bench/measure.h"
#include "bench/run_samples.h"
#include "runtime/kernel.h"
#include "runtime/timing.h"

namespace tessera::bench {
namespace {

constexpr int kLevels[] = {3, 2, 1};
constexpr int kRounds = 2;

struct LevelTotals {
  double compile_s = 0, optimize_s = 0, codegen_s = 0;
  double log_ratio_sum = 0;  // of kernel time against O3's
  double worst_ratio = 0;
};

}  // namespace

nlohmann::json run_compile_levels() {
  const char* run = std::getenv("TESSERA_COMPILE_RUN");
  if (!run) return error_json("set TESSERA_COMPILE_RUN to a run directory (config.yaml + records.jsonl)");
  const char* samples_env = std::getenv("TESSERA_COMPILE_SAMPLES");
  auto loaded = load_run_samples(run, samples_env ? std::max(1, std::atoi(samples_env)) : 48);
  if (!loaded) return error_json(loaded.error().message);
  RunSamples& sampled = *loaded;
  const std::vector<RunSample>& samples = sampled.samples;

  LevelTotals totals[std::size(kLevels)];
  for (const RunSample& s : samples) {
    const std::string key = s.dag->workload_key();
    auto made = sampled.check(*s.dag);
    if (!made) return error_json(made.error().message);
    const runtime::MeasureTask& check = **made;
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
                        {"of_correct_records", sampled.correct_records},
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

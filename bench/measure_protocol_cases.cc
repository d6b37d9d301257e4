// The tuner's measuring protocol against variants of it, on the same recorded batches: how much
// wall time each takes, and whether the batches still crown the same kernels.
//
// Batches of a run (TESSERA_PROTOCOL_RUN, a run directory; TESSERA_PROTOCOL_BATCHES, 16 by
// default, of at least 8 candidates, spread over the run), each measured as the tuner measures
// a round (LocalMeasurer::measure_each: the run's measure options, its task's best before the
// batch for the give-up and the cut of candidates whose median cannot beat it) under each
// protocol below, their order rotating from batch to batch, each with its own worker:
//   three_of_50        the reference, the default until stop 77: 3 repeats of 50 ms (all
//                      protocols warm up 3 ms right after another candidate and compile later
//                      candidates beside the timing, as shipped)
//   five_of_20         5 repeats of 20 ms
//   three_of_20        3 repeats of 20 ms: the default since stop 77
//   three_of_50_again  the reference once more: how far it agrees with itself
// (Stop 74 compared the 30 ms warm-up and the batch compiled first here; bench/NOTES.md.)
// Prints each protocol's wall seconds (all batches) and their ratio to the reference's, its
// build and run phases, and how often its batch's fastest candidate was the reference's (with
// the geometric mean of its fastest median over the reference's), and how far its candidates'
// medians sit from the reference's: the median over candidates of |log(ratio)|, as a fraction
// (three_of_50_again's is the reference's own spread, the floor for the others).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "bench/cases.h"
#include "bench/measure.h"
#include "bench/run_samples.h"
#include "runtime/local_measurer.h"
#include "runtime/timing.h"

namespace tessera::bench {
namespace {

struct Protocol {
  const char* name;
  int repeat;
  double min_repeat_ms;
};
// The first is the reference the others are set against.
constexpr Protocol kProtocols[] = {
    {"three_of_50", 3, 50}, {"five_of_20", 5, 20}, {"three_of_20", 3, 20}, {"three_of_50_again", 3, 50}};
constexpr size_t kCount = std::size(kProtocols);

}  // namespace

nlohmann::json run_measure_protocols() {
  const char* run = std::getenv("TESSERA_PROTOCOL_RUN");
  if (!run) return error_json("set TESSERA_PROTOCOL_RUN to a run directory (config.yaml + records.jsonl)");
  const char* batches_env = std::getenv("TESSERA_PROTOCOL_BATCHES");
  auto loaded = load_run_batches(run, batches_env ? std::max(1, std::atoi(batches_env)) : 16, 8);
  if (!loaded) return error_json(loaded.error().message);
  const RunSamples& sampled = *loaded;

  std::vector<std::unique_ptr<runtime::LocalMeasurer>> measurers;
  runtime::BuildOptions build;
  build.timeout_s = sampled.config.measure.compile_timeout_s;
  for (const Protocol& p : kProtocols) {
    runtime::MeasureOptions options = sampled.config.measure;
    options.threads = sampled.config.threads;
    options.repeat = p.repeat;
    options.min_repeat_ms = p.min_repeat_ms;
    measurers.push_back(std::make_unique<runtime::LocalMeasurer>(build, options, sampled.config.seed, runtime::RunnerOptions{},
                                                                 experiments::checks_dir_of(run)));
  }
  double wall[kCount] = {}, log_best_sum[kCount] = {};
  int same_fastest[kCount] = {}, candidates = 0;
  std::vector<double> spread[kCount];  // per candidate: |log(its median / the reference's)|
  for (size_t b = 0; b < sampled.batches.size(); ++b) {
    const RunBatch& batch = sampled.batches[b];
    size_t fastest[kCount];
    double fastest_median[kCount];
    std::vector<double> medians[kCount];
    for (size_t k = 0; k < kCount; ++k) {
      const size_t p = (k + b) % kCount;
      if (auto ready = measurers[p]->prepare(*batch.dag); !ready) return error_json(ready.error().message);
      std::vector<runtime::MeasureResult> results(batch.schedules.size());
      const auto start = std::chrono::steady_clock::now();
      measurers[p]->measure_each(*batch.dag, batch.schedules, batch.best_before,
                                 [&](size_t i, runtime::MeasureResult r) { results[i] = std::move(r); });
      wall[p] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fastest[p] = 0, fastest_median[p] = INFINITY;
      for (size_t i = 0; i < results.size(); ++i) {
        if (results[i].error != runtime::MeasureError::kNone) {  // recorded correct: a wrong one now is an error
          return error_json(batch.dag->workload_key() + ", a recorded candidate: " + results[i].message);
        }
        if (results[i].median() < fastest_median[p]) fastest_median[p] = results[i].median(), fastest[p] = i;
        medians[p].push_back(results[i].median());
      }
    }
    candidates += static_cast<int>(batch.schedules.size());
    for (size_t p = 0; p < kCount; ++p) {
      same_fastest[p] += fastest[p] == fastest[0];
      log_best_sum[p] += std::log(fastest_median[p] / fastest_median[0]);
      for (size_t i = 0; i < medians[p].size(); ++i) spread[p].push_back(std::abs(std::log(medians[p][i] / medians[0][i])));
    }
  }
  const size_t n = sampled.batches.size();
  nlohmann::json out = {{"run", run},
                        {"batches", n},
                        {"candidates", candidates},
                        {"includes", "LocalMeasurer::measure_each per batch, protocols rotating, each with its own worker"}};
  for (size_t p = 0; p < kCount; ++p) {
    const runtime::PhaseSeconds phases = measurers[p]->phase_seconds();
    out[kProtocols[p].name] = {{"wall_seconds", wall[p]},
                               {"wall_vs_reference", wall[p] / wall[0]},
                               {"build_seconds", phases.build},
                               {"run_seconds", phases.run},
                               {"same_fastest_as_reference", same_fastest[p]},
                               {"fastest_median_vs_reference_geomean", std::exp(log_best_sum[p] / n)},
                               {"median_spread_vs_reference", std::exp(runtime::median(spread[p])) - 1}};
  }
  return out;
}

}  // namespace tessera::bench

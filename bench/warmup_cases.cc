// What the timing protocol's 30 ms warm-up buys on the kernels a tuner really measures. The
// warm-up is there for the core's clock, which ramps up over milliseconds after an idle spell;
// inside a batch the worker times candidates back to back, so a later candidate may not need it.
//
// Records of a run (TESSERA_WARMUP_RUN, a run directory), a spread sample of its correct
// candidates (TESSERA_WARMUP_SAMPLES, 32 by default), each compiled, checked (a wrong kernel is
// an error) and measured as the worker measures (check call, cold constants, 3 repeats of 50 ms)
// under four protocols, their order rotating over three rounds:
//   full         30 ms of warm-up, right after another measurement (the tuner's protocol)
//   short        TESSERA_WARMUP_SHORT_MS (3) of warm-up, right after another measurement
//   short_idle   the same after 1.5 s idle, as the first candidate of a batch after a search round
//   full_idle    30 ms of warm-up after 1.5 s idle
// Prints each protocol's kernel time against full's (geometric mean and worst of the best of
// three rounds), its spread against full round by round beside full's spread against itself,
// how often it would have given up on a kernel its own median puts under the give-up limit
// (limit 1.1x full's median), and its wall time per measurement.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "bench/cases.h"
#include "bench/measure.h"
#include "bench/run_samples.h"
#include "runtime/kernel.h"
#include "runtime/measure_local.h"

namespace tessera::bench {
namespace {

constexpr int kRounds = 3;
constexpr double kIdleSeconds = 1.5;
constexpr double kGiveUpOverFull = 1.1;

struct Protocol {
  const char* name;
  bool short_warmup;
  bool idle_first;
};
constexpr Protocol kProtocols[] = {
    {"full", false, false}, {"short", true, false}, {"short_idle", true, true}, {"full_idle", false, true}};
constexpr size_t kCount = std::size(kProtocols);

struct Totals {
  double log_ratio_sum = 0, worst_ratio = 0;  // best-of-rounds median against full's
  double spread_sum = 0;                      // |log(this / full)| round by round
  int spread_n = 0;
  int gave_up = 0;                            // with the give-up limit on
  double wall_s = 0;
  int measurements = 0;
};

}  // namespace

nlohmann::json run_warmup_levels() {
  const char* run = std::getenv("TESSERA_WARMUP_RUN");
  if (!run) return error_json("set TESSERA_WARMUP_RUN to a run directory (config.yaml + records.jsonl)");
  const char* samples_env = std::getenv("TESSERA_WARMUP_SAMPLES");
  const char* short_env = std::getenv("TESSERA_WARMUP_SHORT_MS");
  const double short_ms = short_env ? std::atof(short_env) : 3.0;
  auto loaded = load_run_samples(run, samples_env ? std::max(1, std::atoi(samples_env)) : 32);
  if (!loaded) return error_json(loaded.error().message);
  RunSamples& sampled = *loaded;

  runtime::MeasureOptions tuner;  // the tuner's protocol, every repeat (no give-up, no best)
  tuner.cold_constants = sampled.config.measure.cold_constants;
  tuner.threads = 1;
  Totals totals[kCount];
  double self_spread_sum = 0;  // full's |log(round r / round r - 1)|
  int self_spread_n = 0;
  auto sleep_idle = [] { std::this_thread::sleep_for(std::chrono::duration<double>(kIdleSeconds)); };
  for (const RunSample& s : sampled.samples) {
    auto check = sampled.check(*s.dag);
    if (!check) return error_json(check.error().message);
    auto object = runtime::compile_object(s.func, runtime::CompileOptions{});
    if (!object) return error_json(object.error().message);
    auto kernel = runtime::load_kernel(*object);
    if (!kernel) return error_json(kernel.error().message);
    double median[kRounds][kCount];
    for (int round = 0; round < kRounds; ++round) {
      for (size_t k = 0; k < kCount; ++k) {
        const size_t p = (k + static_cast<size_t>(round)) % kCount;
        runtime::MeasureOptions options = tuner;
        if (kProtocols[p].short_warmup) options.min_warmup_ms = short_ms;
        if (kProtocols[p].idle_first) sleep_idle();
        const auto start = std::chrono::steady_clock::now();
        runtime::MeasureResult measured = runtime::measure_loaded_kernel(*kernel, **check, options);
        totals[p].wall_s += runtime::seconds_since(start);
        ++totals[p].measurements;
        if (measured.error != runtime::MeasureError::kNone) {
          return error_json(s.dag->workload_key() + ": " + measured.message);  // a wrong kernel is an error
        }
        median[round][p] = measured.median();
      }
    }
    // The give-up judgement, once per protocol, against a limit the kernel's full median is under.
    double full_best = INFINITY;
    for (int round = 0; round < kRounds; ++round) full_best = std::min(full_best, median[round][0]);
    for (size_t p = 0; p < kCount; ++p) {
      runtime::MeasureOptions options = tuner;
      if (kProtocols[p].short_warmup) options.min_warmup_ms = short_ms;
      options.give_up_seconds = kGiveUpOverFull * full_best;
      if (kProtocols[p].idle_first) sleep_idle();
      runtime::MeasureResult measured = runtime::measure_loaded_kernel(*kernel, **check, options);
      totals[p].gave_up += measured.costs.size() == 1;
    }
    for (size_t p = 0; p < kCount; ++p) {
      double best = INFINITY;
      for (int round = 0; round < kRounds; ++round) {
        best = std::min(best, median[round][p]);
        totals[p].spread_sum += std::abs(std::log(median[round][p] / median[round][0]));
        ++totals[p].spread_n;
      }
      const double ratio = best / full_best;
      totals[p].log_ratio_sum += std::log(ratio);
      totals[p].worst_ratio = std::max(totals[p].worst_ratio, std::max(ratio, 1 / ratio));
    }
    for (int round = 1; round < kRounds; ++round) {
      self_spread_sum += std::abs(std::log(median[round][0] / median[round - 1][0]));
      ++self_spread_n;
    }
  }

  const size_t n = sampled.samples.size();
  nlohmann::json out = {{"run", run},
                        {"samples", n},
                        {"of_correct_records", sampled.correct_records},
                        {"short_warmup_ms", short_ms},
                        {"cold_constants", tuner.cold_constants},
                        {"full_self_spread", std::exp(self_spread_sum / std::max(1, self_spread_n)) - 1},
                        {"includes", "measure_loaded_kernel as the worker runs it; best of 3 rounds' medians, protocols rotating"}};
  for (size_t p = 0; p < kCount; ++p) {
    const Totals& t = totals[p];
    out[kProtocols[p].name] = {
        {"kernel_time_vs_full_geomean", std::exp(t.log_ratio_sum / n)},
        {"kernel_time_vs_full_worst", t.worst_ratio},
        {"spread_vs_full", p == 0 ? 0.0 : std::exp(t.spread_sum / std::max(1, t.spread_n)) - 1},
        {"gave_up_under_limit", t.gave_up},
        {"wall_ms_per_measurement", 1e3 * t.wall_s / std::max(1, t.measurements)}};
  }
  return out;
}

}  // namespace tessera::bench

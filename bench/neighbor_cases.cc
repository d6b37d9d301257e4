// Whether a candidate can be timed while the next ones compile on the other cores: the same
// recorded kernels timed with the neighbouring cores quiet and with them compiling.
//
// Records of a run (TESSERA_NEIGHBOR_RUN, a run directory), a spread sample of its correct
// candidates (TESSERA_NEIGHBOR_SAMPLES, 24 by default), each compiled, checked (a wrong kernel is
// an error) and measured as the worker measures (check call, the run's cold constants, 30 ms
// warm-up, 3 repeats of 50 ms) on the measurement core (runtime::measurement_cpus), three rounds
// each way, alternating: `quiet`, nothing else running; `compiling`, one thread per other core
// compiling the sample's kernels in a loop (LLVM O3, as the builder does). Prints the kernel time
// compiling against quiet (geometric mean and worst of the best of three rounds), the round-by-
// round spread of compiling against quiet beside quiet's spread against itself, and how much
// compiling the neighbours got done.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "bench/cases.h"
#include "bench/measure.h"
#include "bench/run_samples.h"
#include "runtime/builder.h"
#include "runtime/kernel.h"
#include "runtime/measure_local.h"
#include "runtime/runner.h"

namespace tessera::bench {
namespace {

constexpr int kRounds = 3;

}  // namespace

nlohmann::json run_timing_neighbor() {
  const char* run = std::getenv("TESSERA_NEIGHBOR_RUN");
  if (!run) return error_json("set TESSERA_NEIGHBOR_RUN to a run directory (config.yaml + records.jsonl)");
  const char* samples_env = std::getenv("TESSERA_NEIGHBOR_SAMPLES");
  auto loaded = load_run_samples(run, samples_env ? std::max(1, std::atoi(samples_env)) : 24);
  if (!loaded) return error_json(loaded.error().message);
  RunSamples& sampled = *loaded;

  const std::vector<int> measuring = runtime::measurement_cpus(1);
  const std::vector<int> others = runtime::spare_cpus(1);  // where a BuildPipeline compiles
  if (measuring.empty() || others.empty()) return error_json("timing_neighbor needs two CPUs to run on");

  // The neighbours compile while `compiling` is set, the sample at `source` in a loop.
  std::atomic<bool> compiling{false}, stop{false};
  std::atomic<size_t> source{0}, compiled{0};
  std::vector<std::thread> neighbours;
  for (int cpu : others) {
    neighbours.emplace_back([&, cpu] {
      runtime::pin_this_thread({cpu});
      while (!stop) {
        if (!compiling) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          continue;
        }
        if (runtime::compile_object(sampled.samples[source].func, runtime::CompileOptions{})) ++compiled;
      }
    });
  }
  struct Stop {
    std::atomic<bool>& flag;
    std::vector<std::thread>& threads;
    ~Stop() {
      flag = true;
      for (auto& t : threads) t.join();
    }
  } stop_neighbours{stop, neighbours};
  if (!runtime::pin_this_thread(measuring)) return error_json("cannot pin the timing thread");

  runtime::MeasureOptions tuner;  // the tuner's protocol, every repeat (no give-up, no best)
  tuner.cold_constants = sampled.config.measure.cold_constants;
  double log_ratio_sum = 0, worst = 0, spread_sum = 0, self_spread_sum = 0, busy_seconds = 0;
  int spread_n = 0, self_spread_n = 0;
  for (size_t i = 0; i < sampled.samples.size(); ++i) {
    const RunSample& s = sampled.samples[i];
    auto check = sampled.check(*s.dag);
    if (!check) return error_json(check.error().message);
    auto kernel = runtime::compile_cpu(s.func);
    if (!kernel) return error_json(kernel.error().message);
    source = (i + 1) % sampled.samples.size();  // another kernel compiles beside this one
    double median[kRounds][2];
    for (int round = 0; round < kRounds; ++round) {
      for (int k = 0; k < 2; ++k) {
        const int busy = (k + round) % 2;
        compiling = busy == 1;
        if (busy) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the neighbours under way
        const auto start = std::chrono::steady_clock::now();
        runtime::MeasureResult measured = runtime::measure_loaded_kernel(*kernel, **check, tuner);
        if (busy) busy_seconds += runtime::seconds_since(start);
        compiling = false;
        if (measured.error != runtime::MeasureError::kNone) {
          return error_json(s.dag->workload_key() + ": " + measured.message);  // a wrong kernel is an error
        }
        median[round][busy] = measured.median();
      }
    }
    double best[2] = {INFINITY, INFINITY};
    for (int round = 0; round < kRounds; ++round) {
      for (int b = 0; b < 2; ++b) best[b] = std::min(best[b], median[round][b]);
      spread_sum += std::abs(std::log(median[round][1] / median[round][0]));
      ++spread_n;
      if (round > 0) self_spread_sum += std::abs(std::log(median[round][0] / median[round - 1][0])), ++self_spread_n;
    }
    const double ratio = best[1] / best[0];
    log_ratio_sum += std::log(ratio);
    worst = std::max(worst, std::max(ratio, 1 / ratio));
  }
  const size_t n = sampled.samples.size();
  return {{"run", run},
          {"samples", n},
          {"of_correct_records", sampled.correct_records},
          {"measuring_cpu", measuring},
          {"compiling_cpus", others},
          {"compiling_vs_quiet_geomean", std::exp(log_ratio_sum / n)},
          {"compiling_vs_quiet_worst", worst},
          {"spread_compiling_vs_quiet", std::exp(spread_sum / std::max(1, spread_n)) - 1},
          {"spread_quiet_vs_quiet", std::exp(self_spread_sum / std::max(1, self_spread_n)) - 1},
          {"neighbour_compiles_per_second", compiled / std::max(busy_seconds, 1e-9)},
          {"includes", "measure_loaded_kernel as the worker runs it; best of 3 rounds' medians, quiet and compiling alternating"}};
}

}  // namespace tessera::bench

// Measurement throughput, the cost of isolation, and repeatability.
//
// measure_sgemm_512: random SGEMM 512 schedules (the hand micro-kernel's template with random
// tile sizes, single- or multi-stage) go through the builder (TBB, both cores) and the isolated
// runner (one at a time, never while compiling) with the default protocol; the same built
// kernels are then measured in-process, and the ratio of the two measuring times is the cost
// of isolation. measure_repeatability: one kernel measured in 10 separate runs, each with a
// fresh worker; the spread is max/min of the 10 medians.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "bench/cases.h"
#include "bench/measure.h"
#include "runtime/builder.h"
#include "runtime/measure_local.h"
#include "runtime/runner.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"

namespace tessera::bench {
namespace {

using Clock = std::chrono::steady_clock;


std::vector<schedule::Step> random_sgemm_schedule(int64_t n, std::mt19937_64& rng) {
  auto pick = [&](std::vector<int64_t> v) { return v[rng() % v.size()]; };
  schedule::MatmulTiling t;
  t.mr = pick({1, 2, 4, 6, 8});
  t.nr = pick({1, 2, 3, 4});
  t.lanes = pick({4, 8, 16});
  t.kc = pick({16, 32, 64, 128, 256, 512});
  return rng() % 2 ? schedule::matmul_hand_schedule(n, n, n, t)
                   : schedule::matmul_cache_write_schedule(n, n, n, t);
}

}  // namespace

nlohmann::json run_measure_sgemm(int64_t n, int candidates) {
  auto dag = schedule::matmul(n, n, n);
  auto task = runtime::make_measure_task(*dag);
  if (!task) return error_json(task.error().message);
  std::mt19937_64 rng(512);
  std::vector<runtime::BuildInput> inputs;
  for (int i = 0; i < candidates; ++i) inputs.push_back({&*dag, random_sgemm_schedule(n, rng)});

  const runtime::MeasureOptions options;  // the default protocol
  runtime::Runner runner;
  std::vector<runtime::BuildResult> builds;
  std::vector<runtime::MeasureResult> isolated;
  double measure_seconds = 0;
  auto start = Clock::now();
  const size_t batch = 16;  // compile a batch on both cores, then time it one kernel at a time
  for (size_t first = 0; first < inputs.size(); first += batch) {
    std::vector<runtime::BuildInput> slice(inputs.begin() + first,
                                           inputs.begin() + std::min(inputs.size(), first + batch));
    auto built = runtime::build_batch(slice);
    auto measure_start = Clock::now();
    auto results = runner.measure_batch(*task, built, options);
    measure_seconds += seconds_since(measure_start);
    builds.insert(builds.end(), built.begin(), built.end());
    isolated.insert(isolated.end(), results.begin(), results.end());
  }
  double total_seconds = seconds_since(start);

  auto local_start = Clock::now();
  int local_ok = 0;
  for (const auto& b : builds) {
    if (b.error != runtime::MeasureError::kNone) continue;
    auto kernel = runtime::load_kernel(b.object);
    if (kernel && runtime::measure_loaded_kernel(*kernel, *task, options).error ==
                      runtime::MeasureError::kNone) {
      ++local_ok;
    }
  }
  double local_seconds = seconds_since(local_start);

  int ok = 0;
  double best = INFINITY;
  for (const auto& r : isolated) {
    if (r.error != runtime::MeasureError::kNone) continue;
    ++ok;
    best = std::min(best, r.median());
  }
  return {{"candidates", candidates},
          {"measured_ok", ok},
          {"in_process_ok", local_ok},
          {"seconds", std::round(total_seconds * 10) / 10},
          {"candidates_per_min", std::round(candidates / total_seconds * 60 * 10) / 10},
          {"isolation_overhead", std::round(measure_seconds / local_seconds * 1000) / 1000},
          {"best_gflops", std::round(dag->flop_count() / best * 1e-9 * 10) / 10},
          {"workers_started", runner.workers_started()},
          {"protocol", "repeat=3 min_repeat_ms=50 warmup=1 warmup_ms=30 threads=1, worker pinned"}};
}

nlohmann::json run_measure_repeatability(int64_t n, int runs) {
  auto dag = schedule::matmul(n, n, n);
  auto task = runtime::make_measure_task(*dag);
  if (!task) return error_json(task.error().message);
  auto builds = runtime::build_batch({{&*dag, schedule::matmul_cache_write_schedule(n, n, n)}});
  if (builds[0].error != runtime::MeasureError::kNone) return error_json(builds[0].message);
  std::vector<double> medians;
  for (int run = 0; run < runs; ++run) {
    runtime::Runner runner;  // a separate worker process each time
    auto r = runner.measure(*task, builds[0], runtime::MeasureOptions{});
    if (r.error != runtime::MeasureError::kNone) return error_json(r.message);
    medians.push_back(r.median());
  }
  auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  nlohmann::json ms = nlohmann::json::array();
  for (double m : medians) ms.push_back(std::round(m * 1e6) / 1e3);
  return {{"runs", runs},
          {"spread", std::round(*hi / *lo * 1000) / 1000},
          {"median_ms", ms},
          {"protocol", "repeat=3 min_repeat_ms=50 warmup=1 warmup_ms=30 threads=1, worker pinned"}};
}

}  // namespace tessera::bench

// Benchmark cases: each returns one JSON object with at least tessera_gflops, baseline,
// baseline_gflops and ratio (tessera / baseline, both measured in the same run), or "error".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/measure.h"
#include "schedule/ops.h"

namespace tessera::bench {

struct Case {
  std::string name;
  std::function<nlohmann::json()> run;
};

const std::vector<Case>& all_cases();

}  // namespace tessera::bench

namespace tessera::bench {

// Hand-scheduled SGEMM n x n x n against OpenBLAS cblas_sgemm, with `threads` threads each;
// `cache_write` picks the multi-stage schedule (register tile + packed B panel).
nlohmann::json run_sgemm(int64_t n, int threads, bool cache_write = false);

// Builder + isolated runner throughput on random SGEMM n schedules, and isolation's cost.
nlohmann::json run_measure_sgemm(int64_t n, int candidates);
// One SGEMM n kernel measured in `runs` separate worker processes.
nlohmann::json run_measure_repeatability(int64_t n, int runs);

// Random search for `random_trials`, then Droplet search (at most `droplet_trials`), on SGEMM
// n, single-threaded; the best found against OpenBLAS.
nlohmann::json run_droplet_sgemm(int64_t n, int random_trials, int droplet_trials);

// Candidates scheduled, lowered and featurized per second (one core).
nlohmann::json run_features_throughput(int candidates);

// Hand-scheduled conv2d + bias + relu (NCHW) against oneDNN's, with `threads` threads each.
nlohmann::json run_conv2d_bias_relu(const schedule::Conv2dParams& p, int threads);
// A compiled conv2d_bias_relu kernel of `p` against oneDNN (outputs compared, timed alternately).
nlohmann::json compare_with_onednn(const schedule::Conv2dParams& p, const schedule::ComputeDAG& dag,
                                   const CompiledSchedule& compiled, int threads);

// `trials` of the named agent (evolutionary uses a fresh learned proxy) on SGEMM n or on
// conv2d_bias_relu p, single-threaded; the best found against OpenBLAS / oneDNN, with the
// trials, search wall time and the time-to-quality curve.
nlohmann::json run_search_sgemm(const std::string& agent, int64_t n, int trials);
nlohmann::json run_search_conv2d(const std::string& agent, const schedule::Conv2dParams& p, int trials);

// Every task of configs/op_suite.yaml tuned by each strategy with the same trial budget and
// seed: one line per task and strategy (best GFLOP/s at checkpoints, the curve, and wall time
// to reach 95% of the best any strategy found on that task).
nlohmann::json run_search_suite(const std::vector<std::string>& agents, int trials);

// Issue 8's yardstick, run directly: on each op-suite task, evolutionary + proxy for `trials`,
// then each challenger until it matches that final best or has used half of evolutionary's wall
// time (or the trials). One line per task and strategy, with the time to the baseline's best.
nlohmann::json run_search_race(const std::vector<std::string>& challengers, int trials);
// After a race: the fastest schedule each of `challenger` and evolutionary recorded for every
// op-suite task (records of `trials`-trial runs), compiled, checked and timed alternately in
// this process, so a miss by less than the measurement noise shows as such.
nlohmann::json run_race_recheck(const std::string& challenger, int trials);

// Issue 19's memory-bound suite: softmax, layer_norm, gelu and add+relu tuned by
// $TESSERA_AGENT (harl) for $TESSERA_TRIALS (64) trials, against LibTorch's own kernels on one
// thread; one line per op with GB/s (memory_bound_cases.cc).
nlohmann::json run_memory_bound_suite();

}  // namespace tessera::bench

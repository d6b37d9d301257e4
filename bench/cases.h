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

// LLVM's O3, O2 and O1 on a run's recorded candidates: compile seconds and kernel time
// (compile_cases.cc; TESSERA_COMPILE_RUN, TESSERA_COMPILE_SAMPLES).
nlohmann::json run_compile_levels();

// The timing protocol's 30 ms warm-up against a short one, back to back and after an idle spell,
// on a run's recorded candidates (warmup_cases.cc; TESSERA_WARMUP_RUN, TESSERA_WARMUP_SAMPLES,
// TESSERA_WARMUP_SHORT_MS).
nlohmann::json run_warmup_levels();

// A run's recorded candidates timed with the other cores quiet and compiling (neighbor_cases.cc;
// TESSERA_NEIGHBOR_RUN, TESSERA_NEIGHBOR_SAMPLES).
nlohmann::json run_timing_neighbor();

// A run's recorded batches measured with the 30 ms warm-up, the short back-to-back one, and
// compiling beside the timing: wall time and the batches' fastest (measure_protocol_cases.cc;
// TESSERA_PROTOCOL_RUN, TESSERA_PROTOCOL_BATCHES).
nlohmann::json run_measure_protocols();

// The learned proxy trained round by round on a run's records under row budgets
// (proxy.rows_per_train): training seconds per round and how it ranks each round's candidates
// before seeing them (proxy_online_cases.cc; TESSERA_PROXY_RUN, TESSERA_PROXY_BUDGETS).
nlohmann::json run_proxy_online();

// Hand-scheduled conv2d + bias + relu (NCHW) against oneDNN's, with `threads` threads each.
nlohmann::json run_conv2d_bias_relu(const schedule::Conv2dParams& p, int threads);
// A compiled conv2d_bias_relu kernel of `p` against oneDNN (outputs compared, timed alternately).
// With `cold_weights`, each side's weights (its packed copy too) are evicted from every cache
// before each call, as network tuning measures (measure.cold_constants) and as a network's
// layers find them.
nlohmann::json compare_with_onednn(const schedule::Conv2dParams& p, const schedule::ComputeDAG& dag,
                                   const CompiledSchedule& compiled, int threads, bool cold_weights = false);

// Issue 20: every op-suite convolution and three more (conv + bias + relu), tuned by harl for
// `trials` each and timed against oneDNN; a last line with the geometric mean (conv_suite_cases.cc).
nlohmann::json run_conv_suite(int trials);
nlohmann::json run_conv_probe();

// The heaviest tasks' recorded kernels of one or two network runs timed alone under four cache
// states and inside the network (fidelity_cases.cc; TESSERA_FIDELITY_MODEL, _RUNS, _TASKS).
nlohmann::json run_network_fidelity();

// Every task allocator replayed on the searches of logged network runs (allocator_replay_cases.cc;
// TESSERA_REPLAY_RUNS, TESSERA_REPLAY_SECONDS).
nlohmann::json run_allocator_replay();

// The reference evaluator on two ResNet-50 convolutions' sampled checks against a plain double
// loop over the same points (reference_cases.cc).
nlohmann::json run_reference_check();

// The packed conv sketch on a grid of register tiles, each against oneDNN (conv_sweep_cases.cc).
nlohmann::json run_packed_conv_sweep(const schedule::Conv2dParams& p);

// `trials` of the named agent (evolutionary uses a fresh learned proxy) on SGEMM n or on
// conv2d_bias_relu p, single-threaded; the best found against OpenBLAS / oneDNN, with the
// trials, search wall time and the time-to-quality curve.
nlohmann::json run_search_sgemm(const std::string& agent, int64_t n, int trials);
nlohmann::json run_search_conv2d(const std::string& agent, const schedule::Conv2dParams& p, int trials);

// `trials` of `agent` on `dag`, single-threaded, records to build/bench_records/<records>.jsonl:
// the fastest schedule found, compiled and checked against the reference; `line` gets the
// search's description (agent, trials, seconds, best sketch and knobs, curve).
Result<CompiledSchedule> search_and_compile(const schedule::ComputeDAG& dag, const std::string& agent, int trials,
                                            const std::string& records, nlohmann::json& line);

// Issue 19: harl (`trials` each) on matmul 1009^3, 509x1000x777 and 1000^3 against OpenBLAS
// cblas_sgemm; and on dense_bias_gelu 128x3072x768 against sgemm of the same shape without
// the epilogue (odd_matmul_cases.cc). `ratio` is OpenBLAS's time over Tessera's.
nlohmann::json run_odd_matmul_suite(int trials);
nlohmann::json run_fused_epilogue(int trials);
// One matmul schedule against OpenBLAS: TESSERA_PROBE_SHAPE=m,n,k, TESSERA_PROBE_SKETCH=id,
// TESSERA_PROBE_KNOBS={json}; TESSERA_PROBE_IR=1 prints the lowered nest to stderr and
// TESSERA_PROBE_OBJECT=path writes the compiled object there (for objdump -d).
nlohmann::json run_odd_matmul_probe();

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

// Issue 23's plug-in suite: the example plug-in cost models (tlp, pruner) against the built-in
// proxy (mlp) with the evolutionary agent at `trials` trials per task (plugin_cases.cc).
nlohmann::json run_plugin_suite(int trials);

}  // namespace tessera::bench

// What a network tuning run shows of its progress besides the per-round lines: the network run
// end to end with the best kernels so far, and the plot of its latency against tuning time.
//
// The estimate (sum over tasks of weight x best) is what the allocator optimizes; the measured
// latency is what a user gets: the folded graph built by runtime::NetworkExecutor from the
// run's records (each kernel checked at load), timed as `tessera run` times it. curve.csv holds
// both, as rows of tasks "<network>" (estimate, each round) and "<network measured>", and
// curve.svg plots them in milliseconds against seconds of tuning.
#pragma once

#include <string>
#include <vector>

#include "experiments/run_outputs.h"
#include "graph/fuse.h"
#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::runtime {
class ExecutorCache;
}

namespace tessera::experiments {

inline constexpr const char* kNetworkEstimateRow = "<network>";
inline constexpr const char* kNetworkMeasuredRow = "<network measured>";

// The measured end-to-end latency in seconds of the network with `records` (a records file, or
// a run directory: its records.jsonl and the end's re-timings, retimed.jsonl): median of at
// least `runs` inferences and at least `min_seconds` of them, after three warm-up ones, on
// `threads` threads. The floor in seconds is for small networks: 20 runs of MobileNetV2 are
// 70 ms, which one burst of a neighbour's load spoils, and they read 3.8% over 300 runs' median
// (eight alternations, stop 79, bench/NOTES.md). With `cache`, kernels and references an
// earlier measurement built are reused (each kernel checked again); the checks are also kept in
// the records' run directory (checks/) for the next process.
Result<double> measure_network(const graph::Graph& folded, const graph::NetworkTasks& tasks, const std::string& records,
                               int threads, uint64_t seed, int runs = 20, runtime::ExecutorCache* cache = nullptr,
                               double min_seconds = 1.0);

// Estimated and measured latency (ms) against tuning time (s), from the network rows of a curve.
std::string network_curve_svg(const std::vector<CurvePoint>& points);

}  // namespace tessera::experiments

// Feature extraction throughput: random SGEMM 1024 sketch candidates, scheduled, lowered and
// featurized on one core; the proxy needs this to score thousands of candidates per round.
#include <chrono>
#include <cmath>
#include <random>

#include "bench/cases.h"
#include "bench/measure.h"
#include "schedule/features.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::bench {

nlohmann::json run_features_throughput(int candidates) {
  auto dag = schedule::matmul(1024, 1024, 1024);
  auto sketches = schedule::generate_sketches(*dag);
  std::mt19937_64 rng(3);
  std::vector<std::vector<schedule::Step>> schedules;
  for (int i = 0; i < candidates; ++i) {
    const auto& s = sketches[static_cast<size_t>(i) % sketches.size()];
    schedules.push_back(s.steps(s.knobs.sample(rng)));
  }
  auto start = std::chrono::steady_clock::now();
  double checksum = 0;
  for (const auto& steps : schedules) {
    schedule::State state(*dag);
    if (!state.apply_all(steps)) return error_json("a sampled candidate was rejected");
    auto func = schedule::lower(state, "k");
    if (!func) return error_json(func.error().message);
    for (float f : schedule::extract_features(*func)) checksum += f;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {{"candidates", candidates},
          {"candidates_per_second", std::round(candidates / seconds)},
          {"includes", "apply steps + lower + extract features, one core"},
          {"feature_length", schedule::feature_names().size()},
          {"checksum", checksum}};
}

}  // namespace tessera::bench

// The replay simulator and its analytic model (see replay_simulator.h).
#include "runtime/replay_simulator.h"

#include <algorithm>
#include <cmath>

#include "schedule/features.h"
#include "schedule/lower.h"
#include "schedule/step_json.h"

namespace tessera::runtime {
namespace {

std::string key_of(const std::string& workload_key, const nlohmann::json& steps) {
  return workload_key + "|" + steps.dump();
}

// A pooled feature by name, back on its linear scale.
class FeatureView {
 public:
  explicit FeatureView(const schedule::LoweredFunc& func) : values_(schedule::extract_features(func)) {}
  double operator()(const char* name) const {
    const auto& names = schedule::feature_names();
    auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? 0.0 : std::expm1(static_cast<double>(values_[static_cast<size_t>(it - names.begin())]));
  }

 private:
  std::vector<float> values_;
};

}  // namespace

double analytic_cpu_seconds(const schedule::LoweredFunc& func) {
  FeatureView f(func);
  const double lanes = std::clamp(f("max_vector_lanes"), 1.0, 16.0);
  const double unroll = std::clamp(f("max_unrolled"), 1.0, 64.0);
  const double arithmetic = f("sum_float_add") + f("sum_float_mul") + 4 * f("sum_float_div") +
                            f("sum_float_minmax") + 8 * f("sum_float_math") + 0.25 * f("sum_int_ops");
  // Vector lanes divide the arithmetic; unrolling hides latency up to a point.
  const double compute = arithmetic / lanes / (1.0 + std::log2(unroll) / 3.0);
  const double memory = f("sum_bytes_touched") / 4.0 / lanes + 4 * f("sum_gathered") + 2 * f("sum_strided");
  return 1e-9 * (compute + memory + 1000.0);  // 1 µs of call overhead keeps it positive
}

Result<ReplaySimulator> ReplaySimulator::from_records(const std::string& path, SecondsModel fallback) {
  auto file = read_records(path);
  if (!file) return file.error();
  return from_records(file->records, std::move(fallback));
}

ReplaySimulator ReplaySimulator::from_records(const std::vector<MeasureRecord>& records, SecondsModel fallback) {
  ReplaySimulator sim(std::move(fallback));
  for (const MeasureRecord& r : records) {
    MeasureResult result;
    result.costs = r.costs;
    result.error = r.error;
    result.message = r.message;
    result.compile_seconds = r.compile_seconds;
    sim.known_.emplace(key_of(r.workload_key, r.steps), std::move(result));  // first record wins
  }
  return sim;
}

std::vector<MeasureResult> ReplaySimulator::measure(const schedule::ComputeDAG& dag,
                                                    const std::vector<std::vector<schedule::Step>>& schedules) {
  std::vector<MeasureResult> out;
  for (const auto& steps : schedules) {
    auto known = known_.find(key_of(dag.workload_key(), schedule::steps_to_json(steps)));
    if (known != known_.end()) {
      ++replayed_;
      out.push_back(known->second);
      continue;
    }
    MeasureResult result;
    if (!model_) {
      result.error = MeasureError::kRuntimeError;
      result.message = "not in the replayed records";
      out.push_back(std::move(result));
      continue;
    }
    schedule::State state(dag);
    auto applied = state.apply_all(steps);
    auto func = applied ? schedule::lower(state, "kernel") : Result<schedule::LoweredFunc>(applied.error());
    if (!func) {
      result.error = MeasureError::kCompileError;
      result.message = func.error().message;
    } else {
      ++modelled_;
      double seconds = model_(*func);
      result.costs = {seconds, seconds, seconds};
    }
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace tessera::runtime

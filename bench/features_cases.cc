// Feature extraction throughput: random sketch candidates of four workloads (SGEMM 1024, a
// ResNet-50 3x3 convolution in NCHW, a stride-2 one in NHWC, a depthwise one in NHWC),
// scheduled, lowered and featurized on one core; the proxy needs this to score thousands of
// candidates per round. Each workload's `digest` hashes every lowered program's text and its
// features, so two builds that lower the same candidates the same way print the same digest:
// the check that a faster simplifier changed no generated code.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "bench/cases.h"
#include "bench/measure.h"
#include "schedule/features.h"
#include "schedule/hash.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::bench {
namespace {

struct Workload {
  std::string name;
  Result<schedule::ComputeDAG> dag;
};

std::vector<Workload> workloads() {
  schedule::Conv2dParams nchw;  // ResNet-50's conv3 3x3
  nchw.in_channels = nchw.out_channels = 128;
  nchw.height = nchw.width = 28;
  nchw.kernel_h = nchw.kernel_w = 3;
  nchw.pad_h = nchw.pad_w = 1;
  schedule::Conv2dParams strided = nchw;  // its stride-2 entry, channels last
  strided.in_channels = 64;
  strided.height = strided.width = 56;
  strided.stride_h = strided.stride_w = 2;
  strided.layout = schedule::Layout::kNHWC;
  schedule::Conv2dParams depthwise = nchw;  // MobileNetV2's 28x28 depthwise
  depthwise.in_channels = depthwise.out_channels = depthwise.groups = 144;
  depthwise.layout = schedule::Layout::kNHWC;
  std::vector<Workload> out;
  out.push_back({"sgemm_1024", schedule::matmul(1024, 1024, 1024)});
  out.push_back({"conv3x3_c128_28_nchw", schedule::conv2d_bias_relu(nchw)});
  out.push_back({"conv3x3_s2_c64_56_nhwc", schedule::conv2d_bias_relu(strided)});
  out.push_back({"depthwise3x3_c144_28_nhwc", schedule::conv2d_bias_relu(depthwise)});
  return out;
}

nlohmann::json throughput(const schedule::ComputeDAG& dag, int candidates) {
  auto sketches = schedule::generate_sketches(dag);
  std::mt19937_64 rng(3);
  std::vector<std::vector<schedule::Step>> schedules;
  for (int i = 0; i < candidates; ++i) {
    const auto& s = sketches[static_cast<size_t>(i) % sketches.size()];
    schedules.push_back(s.steps(s.knobs.sample(rng)));
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<schedule::LoweredFunc> funcs;
  std::vector<std::vector<float>> features;
  int rejected = 0;
  for (const auto& steps : schedules) {
    schedule::State state(dag);
    if (!state.apply_all(steps)) {
      ++rejected;
      continue;
    }
    auto func = schedule::lower(state, "k");
    if (!func) return error_json(func.error().message);
    features.push_back(schedule::extract_features(*func));
    funcs.push_back(std::move(*func));
  }
  double seconds = seconds_since(start);
  uint64_t digest = schedule::kFnvOffsetBasis;
  for (size_t i = 0; i < funcs.size(); ++i) {
    const std::string program = schedule::to_string(funcs[i]);
    digest = schedule::fnv1a64(program.data(), program.size(), digest);
    digest = schedule::fnv1a64(features[i].data(), features[i].size() * sizeof(float), digest);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(digest));
  return {{"candidates", candidates},
          {"rejected", rejected},
          {"candidates_per_second", std::round(candidates / seconds)},
          {"digest", hex}};
}

}  // namespace

nlohmann::json run_features_throughput(int candidates) {
  nlohmann::json out = {{"includes", "apply steps + lower + extract features, one core; the "
                                     "program text is printed outside the timing"},
                        {"feature_length", schedule::feature_names().size()}};
  for (auto& w : workloads()) {
    if (!w.dag) return error_json(w.name + ": " + w.dag.error().message);
    nlohmann::json one = throughput(*w.dag, candidates);
    if (one.contains("error")) return one;
    out[w.name] = one;
  }
  out["candidates_per_second"] = out["sgemm_1024"]["candidates_per_second"];
  return out;
}

}  // namespace tessera::bench

// reference_check: the reference evaluator (schedule/reference.h) on the sampled check of two
// ResNet-50 3x3 convolutions (conv + bias + relu, channels last), against the same sums written
// as a plain double-precision loop, timed in the same run. The interpreter is most of preparing
// a network tune (every task's check is 65,536 sampled outputs), so its cost per reduction term,
// as a ratio to the plain loop's, says how far from free that preparation is.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bench/cases.h"
#include "schedule/reference.h"

namespace tessera::bench {
namespace {

// Y[n, h, w, k] = max(0, bias[k] + sum over r, s, c of X[n, h + r - pad, w + s - pad, c] W[r, s, c, k]).
double direct_point(const schedule::Conv2dParams& p, const schedule::TensorValues& in, int64_t flat) {
  const std::vector<float>& x = in.at("X");
  const std::vector<float>& w = in.at("W");
  const int64_t k = flat % p.out_channels, pixel = flat / p.out_channels;
  const int64_t col = pixel % p.width, row = pixel / p.width % p.height;
  double sum = 0;
  for (int64_t r = 0; r < p.kernel_h; ++r) {
    const int64_t y = row + r - p.pad_h;
    if (y < 0 || y >= p.height) continue;
    for (int64_t s = 0; s < p.kernel_w; ++s) {
      const int64_t xx = col + s - p.pad_w;
      if (xx < 0 || xx >= p.width) continue;
      const float* xr = &x[static_cast<size_t>((y * p.width + xx) * p.in_channels)];
      const float* wr = &w[static_cast<size_t>(((r * p.kernel_w + s) * p.in_channels) * p.out_channels + k)];
      for (int64_t c = 0; c < p.in_channels; ++c) sum += double(xr[c]) * wr[static_cast<size_t>(c * p.out_channels)];
    }
  }
  return std::max(0.0, sum + in.at("bias")[static_cast<size_t>(k)]);
}

nlohmann::json check_one(const std::string& name, const schedule::Conv2dParams& p, int points_count) {
  auto dag = schedule::conv2d_bias_relu(p);
  if (!dag) return {{"case", "reference_check"}, {"shape", name}, {"error", dag.error().message}};
  const schedule::TensorValues in = schedule::random_inputs(*dag, 1);
  const schedule::Tensor& out = dag->outputs().front();
  std::mt19937_64 rng(7);
  std::vector<int64_t> points(static_cast<size_t>(points_count));
  for (int64_t& q : points) q = static_cast<int64_t>(rng() % static_cast<uint64_t>(out.num_elements()));
  double interpreter = INFINITY, direct = INFINITY, worst = 0;
  std::vector<double> plain(points.size());
  for (int round = 0; round < 3; ++round) {  // alternating, best of 3 each
    auto start = std::chrono::steady_clock::now();
    auto values = schedule::evaluate_reference_at(*dag, in, out->name, points);
    interpreter = std::min(interpreter, seconds_since(start));
    if (!values) return {{"case", "reference_check"}, {"shape", name}, {"error", values.error().message}};
    start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < points.size(); ++i) plain[i] = direct_point(p, in, points[i]);
    direct = std::min(direct, seconds_since(start));
    for (size_t i = 0; i < points.size(); ++i)
      worst = std::max(worst, std::fabs((*values)[i] - plain[i]) / (1 + std::fabs(plain[i])));
  }
  if (worst > 1e-6) return {{"case", "reference_check"}, {"shape", name}, {"error", "the two disagree"}, {"max_error", worst}};
  const double terms = double(points.size()) * double(p.kernel_h * p.kernel_w * p.in_channels);
  return {{"case", "reference_check"},
          {"shape", name},
          {"points", points.size()},
          {"terms_per_point", p.kernel_h * p.kernel_w * p.in_channels},
          {"interpreter_s", interpreter},
          {"interpreter_ns_per_term", interpreter / terms * 1e9},
          {"baseline", "a plain double loop over the same points"},
          {"baseline_s", direct},
          {"ratio", direct / interpreter},
          {"max_error", worst}};
}

}  // namespace

nlohmann::json run_reference_check() {
  schedule::Conv2dParams stage3;  // ResNet-50's 3x3 convolution of its third stage
  stage3.in_channels = stage3.out_channels = 256, stage3.height = stage3.width = 14;
  stage3.kernel_h = stage3.kernel_w = 3, stage3.pad_h = stage3.pad_w = 1, stage3.layout = schedule::Layout::kNHWC;
  schedule::Conv2dParams stage1 = stage3;  // ...and of its first
  stage1.in_channels = stage1.out_channels = 64, stage1.height = stage1.width = 56;
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& [name, p] : {std::pair{std::string("resnet50_stage3_3x3"), stage3}, std::pair{std::string("resnet50_stage1_3x3"), stage1}}) {
    lines.push_back(check_one(name, p, 4096));
  }
  return lines;
}

}  // namespace tessera::bench

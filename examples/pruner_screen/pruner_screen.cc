// Example plug-in: a Pruner-style static screen ("pruner"). Like Pruner (Qiao et al.,
// ASPLOS'25), which drafts candidates with a hardware-aware analytic latency model and lets
// the learned model verify only the promising drafts, it estimates each candidate's time with
// a roofline — arithmetic at the core's peak scaled by its vector lanes and parallel loops,
// against its estimated DRAM and L2 traffic, with the register-spill cliff — and screens out
// of each batch of at least `min_batch` those estimated slower than the `keep` quantile; the
// learned model (`mlp`, configured by the run's proxy.* keys) ranks only the survivors. The
// screened-out are ranked below every survivor, by their estimate. Training goes to the
// learned model; the screen itself learns nothing.
//
// It reads Tessera's program features by name (schedule/features.h: log1p of per-store sums
// and maxima), so it needs no access to the loop nest. Selected with
//   plugins: [path/libtessera_pruner.so]
//   proxy: {model: pruner, params: {keep: 0.5}}
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "agents/plugin.h"
#include "schedule/features.h"

namespace {

using namespace tessera;

struct Roofline {
  double peak_gflops = 100;  // per core, all lanes busy
  double dram_gbps = 20;
  double l2_gbps = 100;
  double cores = 1;          // threads the candidate may use
};

class PrunerScreen : public env::CostModel {
 public:
  PrunerScreen(std::shared_ptr<env::CostModel> learned, Roofline roofline, double keep, int min_batch)
      : learned_(std::move(learned)), roofline_(roofline), keep_(keep), min_batch_(min_batch) {
    const auto& names = schedule::feature_names();
    auto index = [&](const char* name) {
      auto it = std::find(names.begin(), names.end(), name);
      return it == names.end() ? -1 : static_cast<int>(it - names.begin());
    };
    for (const char* op : {"sum_float_add", "sum_float_mul", "sum_float_div", "sum_float_minmax", "sum_float_math"}) {
      flops_.push_back(index(op));
    }
    lanes_ = index("max_vector_lanes");
    parallel_ = index("max_parallel");
    dram_ = index("sum_l2_traffic");   // bytes that miss a 1 MiB L2
    l2_ = index("sum_l1_traffic");     // bytes that miss a 32 KiB L1
    spill_ = index("max_register_spill");
  }

  std::string name() const override { return "pruner(" + learned_->name() + ")"; }
  void add(const std::vector<env::ProxySample>& samples) override { learned_->add(samples); }
  void train() override { learned_->train(); }
  bool reads_steps() const override { return learned_->reads_steps(); }

  std::vector<float> predict(const std::vector<std::vector<float>>& features) override {
    return screen(features, {});
  }
  std::vector<float> predict_with_steps(const std::vector<std::vector<float>>& features,
                                        const std::vector<std::vector<std::string>>& steps) override {
    return screen(features, steps);
  }

  // The roofline's seconds for one feature vector.
  double estimate(const std::vector<float>& f) const {
    auto value = [&](int i) { return i < 0 || i >= static_cast<int>(f.size()) ? 0.0 : std::expm1(static_cast<double>(f[i])); };
    double flops = 0;
    for (int i : flops_) flops += value(i);
    const double lanes = std::clamp(value(lanes_), 1.0, 16.0);
    const double cores = std::clamp(value(parallel_), 1.0, roofline_.cores);
    double compute = flops / (roofline_.peak_gflops * 1e9 * lanes / 16.0 * cores);
    if (value(spill_) > 0) compute *= 10;  // accumulators spilled: the cliff features.h measured
    const double dram = value(dram_) / (roofline_.dram_gbps * 1e9);
    const double l2 = value(l2_) / (roofline_.l2_gbps * 1e9);
    return std::max({compute, dram, l2, 1e-12});
  }

 private:
  std::vector<float> screen(const std::vector<std::vector<float>>& features,
                            const std::vector<std::vector<std::string>>& steps) {
    const size_t n = features.size();
    std::vector<double> est(n);
    for (size_t i = 0; i < n; ++i) est[i] = estimate(features[i]);
    double threshold = std::numeric_limits<double>::infinity();
    if (static_cast<int>(n) >= min_batch_) {
      std::vector<double> sorted = est;
      const size_t k = std::min(n - 1, static_cast<size_t>(keep_ * static_cast<double>(n)));
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(k), sorted.end());
      threshold = sorted[k];
    }
    std::vector<size_t> kept;
    std::vector<std::vector<float>> kept_features;
    std::vector<std::vector<std::string>> kept_steps;
    for (size_t i = 0; i < n; ++i) {
      if (est[i] > threshold) continue;
      kept.push_back(i);
      kept_features.push_back(features[i]);
      if (!steps.empty()) kept_steps.push_back(steps[i]);
    }
    std::vector<float> scores(n, 0.0f);
    std::vector<float> ranked = learned_->reads_steps() ? learned_->predict_with_steps(kept_features, kept_steps)
                                                        : learned_->predict(kept_features);
    float floor = std::numeric_limits<float>::max();
    for (size_t j = 0; j < kept.size(); ++j) {
      scores[kept[j]] = ranked[j];
      floor = std::min(floor, ranked[j]);
    }
    if (kept.empty()) floor = 0;
    for (size_t i = 0; i < n; ++i) {
      if (est[i] > threshold) scores[i] = floor - 1.0f - static_cast<float>(std::log(est[i] / threshold));
    }
    return scores;
  }

  std::shared_ptr<env::CostModel> learned_;
  Roofline roofline_;
  double keep_;
  int min_batch_;
  std::vector<int> flops_;
  int lanes_ = -1, parallel_ = -1, dram_ = -1, l2_ = -1, spill_ = -1;
};

void add_entries(agents::PluginRegistrar& r) {
  using Kind = env::Param::Kind;
  r.add_cost_model(
      {"pruner",
       "Pruner-style: a roofline estimate screens each batch, the learned proxy (mlp) ranks the survivors",
       {{"keep", Kind::kProbability, 0, 0.5, "share of a batch that passes the screen"},
        {"min_batch", Kind::kInteger, 1, 8, "smaller batches pass unscreened"},
        {"peak_gflops", Kind::kNumber, 1e-3, 100, "per-core FP32 peak with every vector lane busy"},
        {"dram_gbps", Kind::kNumber, 1e-3, 20, "DRAM bandwidth"},
        {"l2_gbps", Kind::kNumber, 1e-3, 100, "L2 bandwidth"},
        {"cores", Kind::kInteger, 1, 1, "threads a candidate may use"}},
       [](const env::ParamValues& p, const env::CostModelContext& c) -> std::shared_ptr<env::CostModel> {
         if (!c.make_model) throw std::runtime_error("needs the learned model to wrap, and the context builds none");
         auto learned = c.make_model("mlp");
         if (!learned) throw std::runtime_error(learned.error().message);
         Roofline roofline{p.at("peak_gflops"), p.at("dram_gbps"), p.at("l2_gbps"), p.at("cores")};
         return std::make_shared<PrunerScreen>(*learned, roofline, p.at("keep"), static_cast<int>(p.at("min_batch")));
       }});
}

}  // namespace

TESSERA_PLUGIN("pruner_screen", add_entries)

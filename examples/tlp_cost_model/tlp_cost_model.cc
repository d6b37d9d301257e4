// Example plug-in: a TLP-style cost model ("tlp"). Like TLP (Zhai et al., ASPLOS'23) it reads
// the schedule itself — the sequence of schedule steps (split, reorder, fuse, parallel,
// vectorize, unroll, compute_at, ...) with their arguments — and no hand-made program
// features. Where TLP embeds the steps with a transformer, this one stays small: each step is
// cut into tokens (its kind, its position and kind, each argument with its value, the pair
// of it and the next step's kind), tokens are hashed into 2^dim_log2 signed buckets, and a
// linear model over them is fitted online by stochastic gradient descent on the log of
// throughput relative to the task's best (scores compare within a task only). Until
// `min_samples` measurements are in, it scores with a deterministic hash of the steps, so a
// search still explores.
//
// Built out of tree against an installed Tessera (examples/CMakeLists.txt); selected with
//   plugins: [path/libtessera_tlp.so]
//   proxy: {model: tlp, params: {epochs: 20}}
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "agents/plugin.h"

namespace {

using namespace tessera;

uint64_t fnv1a(const std::string& text, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

struct Options {
  int dim_log2 = 14;
  int epochs = 20;
  double learning_rate = 0.05;
  double l2 = 1e-4;
  int min_samples = 16;
  uint64_t seed = 1;
};

class TlpModel : public env::CostModel {
 public:
  explicit TlpModel(Options o) : o_(o), weights_(size_t{1} << o.dim_log2, 0.0f) {}

  std::string name() const override { return "tlp"; }
  bool reads_steps() const override { return true; }

  void add(const std::vector<env::ProxySample>& samples) override {
    for (const env::ProxySample& s : samples) {
      if (s.steps.empty()) continue;
      samples_.push_back({tokens(s.steps), s.throughput, s.group});
      best_[s.group] = std::max(best_[s.group], s.throughput);
    }
  }

  void train() override {
    if (static_cast<int>(samples_.size()) < o_.min_samples) return;
    std::vector<double> targets;
    double mean = 0;
    for (const Sample& s : samples_) {
      const double best = best_[s.group];
      // Failures sit below the slowest correct candidate (1% of the best).
      targets.push_back(std::log(std::max(s.throughput / best, 0.01)));
      mean += targets.back();
    }
    bias_ = static_cast<float>(mean / static_cast<double>(samples_.size()));
    std::mt19937_64 rng(o_.seed);
    std::vector<size_t> order(samples_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (int epoch = 0; epoch < o_.epochs; ++epoch) {
      std::shuffle(order.begin(), order.end(), rng);
      const double rate = o_.learning_rate / (1.0 + epoch * 0.1);
      for (size_t i : order) {
        const Sample& s = samples_[i];
        const double error = score(s.tokens) - targets[i];
        const double step = rate * error / static_cast<double>(s.tokens.size());
        for (const Token& t : s.tokens) {
          float& w = weights_[t.bucket];
          w -= static_cast<float>(step * t.sign + rate * o_.l2 * w);
        }
      }
    }
    trained_ = true;
  }

  std::vector<float> predict(const std::vector<std::vector<float>>& features) override {
    return std::vector<float>(features.size(), 0.0f);  // it reads steps, not features
  }

  std::vector<float> predict_with_steps(const std::vector<std::vector<float>>&,
                                        const std::vector<std::vector<std::string>>& steps) override {
    std::vector<float> out;
    out.reserve(steps.size());
    for (const auto& s : steps) {
      const std::vector<Token> t = tokens(s);
      if (trained_) {
        out.push_back(static_cast<float>(score(t)));
      } else {  // cold start: a deterministic pseudo-random score per schedule
        uint64_t h = o_.seed;
        for (const Token& token : t) h = h * 31 + token.bucket;
        out.push_back(static_cast<float>((h % 100000) / 100000.0));
      }
    }
    return out;
  }

 private:
  struct Token {
    uint32_t bucket;
    float sign;
  };
  struct Sample {
    std::vector<Token> tokens;
    double throughput;
    std::string group;
  };

  void token(const std::string& text, std::vector<Token>* out) const {
    const uint64_t h = fnv1a(text, o_.seed);
    out->push_back({static_cast<uint32_t>(h & (weights_.size() - 1)), (h >> 63) ? 1.0f : -1.0f});
  }

  // A step {"step":"split","stage":"C","loop":"i","factors":[32,8]} becomes "split",
  // "3:split", "split.stage=C", "split.loop=i", "split.factors=[32,8]", "split.factors.0=32",
  // ..., and "split>vectorize" with the next step's kind.
  std::vector<Token> tokens(const std::vector<std::string>& steps) const {
    std::vector<Token> out;
    std::vector<std::string> kinds;
    for (const std::string& text : steps) {
      auto step = nlohmann::json::parse(text, nullptr, false);
      if (step.is_discarded() || !step.is_object()) continue;
      const std::string kind = step.value("step", std::string("?"));
      kinds.push_back(kind);
      token(kind, &out);
      token(std::to_string(kinds.size() - 1) + ":" + kind, &out);
      for (const auto& [key, value] : step.items()) {
        if (key == "step") continue;
        token(kind + "." + key + "=" + value.dump(), &out);
        if (value.is_array()) {
          for (size_t i = 0; i < value.size(); ++i) token(kind + "." + key + "." + std::to_string(i) + "=" + value[i].dump(), &out);
        }
      }
    }
    for (size_t i = 0; i + 1 < kinds.size(); ++i) token(kinds[i] + ">" + kinds[i + 1], &out);
    if (out.empty()) token("<empty>", &out);
    return out;
  }

  double score(const std::vector<Token>& tokens) const {
    double s = 0;
    for (const Token& t : tokens) s += weights_[t.bucket] * t.sign;
    return bias_ + s;
  }

  Options o_;
  std::vector<float> weights_;
  float bias_ = 0;
  bool trained_ = false;
  std::vector<Sample> samples_;
  std::map<std::string, double> best_;
};

void add_entries(agents::PluginRegistrar& r) {
  using Kind = env::Param::Kind;
  r.add_cost_model(
      {"tlp",
       "TLP-style: a linear model over hashed tokens of the schedule-step sequence, trained online (no hand-made features)",
       {{"dim_log2", Kind::kInteger, 8, 14, "log2 of the hashed token buckets"},
        {"epochs", Kind::kInteger, 1, 20, "SGD passes over the samples per training"},
        {"learning_rate", Kind::kNumber, 1e-6, 0.05, "SGD step size"},
        {"l2", Kind::kNumber, 0, 1e-4, "weight decay"},
        {"min_samples", Kind::kInteger, 1, 16, "measurements before predictions replace the cold-start hash"}},
       [](const env::ParamValues& p, const env::CostModelContext& c) {
         Options o;
         o.dim_log2 = std::min(24, static_cast<int>(p.at("dim_log2")));  // 16M buckets at most
         o.epochs = static_cast<int>(p.at("epochs"));
         o.learning_rate = p.at("learning_rate");
         o.l2 = p.at("l2");
         o.min_samples = static_cast<int>(p.at("min_samples"));
         o.seed = c.seed;
         return std::make_shared<TlpModel>(o);
       }});
}

}  // namespace

TESSERA_PLUGIN("tlp_cost_model", add_entries)

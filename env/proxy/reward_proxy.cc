// The learned reward proxy in LibTorch (see reward_proxy.h).
#include "env/proxy/reward_proxy.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "schedule/features.h"

namespace tessera::env {

struct RewardProxy::Impl {
  ProxyOptions options;
  std::mt19937_64 rng;
  std::vector<ProxySample> samples;
  int in_features = 0;
  torch::nn::Sequential net{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  torch::Tensor mean, spread;
  size_t trained_on = 0;
  bool loaded = false;

  explicit Impl(ProxyOptions o) : options(std::move(o)), rng(options.seed) {}

  void build(int features) {
    in_features = features;
    torch::manual_seed(options.seed);
    net = torch::nn::Sequential();
    int width = features;
    for (int h : options.hidden) {
      net->push_back(torch::nn::Linear(width, h));
      net->push_back(torch::nn::ReLU());
      width = h;
    }
    net->push_back(torch::nn::Linear(width, 1));
    optimizer = std::make_unique<torch::optim::Adam>(
        net->parameters(),
        torch::optim::AdamOptions(options.learning_rate).weight_decay(options.weight_decay));
    mean = torch::zeros({features});
    spread = torch::ones({features});
  }

  torch::Tensor stack(const std::vector<const std::vector<float>*>& rows) const {
    auto x = torch::empty({static_cast<int64_t>(rows.size()), in_features});
    float* p = x.data_ptr<float>();
    for (size_t i = 0; i < rows.size(); ++i) std::copy(rows[i]->begin(), rows[i]->end(), p + i * in_features);
    return (x - mean) / spread;
  }
};

RewardProxy::RewardProxy(ProxyOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  torch::set_num_threads(1);  // Tessera's parallelism is TBB's; see TOOLCHAIN.md
}
RewardProxy::~RewardProxy() = default;

bool RewardProxy::ready() const {
  return impl_->loaded || (impl_->trained_on > 0 &&
                           impl_->trained_on >= static_cast<size_t>(impl_->options.min_samples));
}
size_t RewardProxy::samples() const { return impl_->samples.size(); }

void RewardProxy::add(const std::vector<ProxySample>& samples) {
  for (const ProxySample& s : samples) {
    if (impl_->in_features == 0) impl_->build(static_cast<int>(s.features.size()));
    if (static_cast<int>(s.features.size()) != impl_->in_features) continue;  // other feature set
    impl_->samples.push_back(s);
  }
}

int passes_for(const ProxyOptions& options, size_t samples) {
  if (options.rows_per_train <= 0 || samples == 0) return options.epochs;
  const size_t fit = static_cast<size_t>(options.rows_per_train) / samples;
  return static_cast<int>(std::clamp<size_t>(fit, 1, static_cast<size_t>(std::max(1, options.epochs))));
}

TrainReport RewardProxy::train_report() {
  Impl& m = *impl_;
  TrainReport report;
  report.samples = static_cast<int>(m.samples.size());
  if (m.samples.size() < 2) return report;
  auto start = std::chrono::steady_clock::now();

  // Per-task normalized labels and minibatches drawn from one task at a time.
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < m.samples.size(); ++i) groups[m.samples[i].group].push_back(i);
  std::vector<float> label(m.samples.size(), 0.f);
  for (auto& [group, idx] : groups) {
    double best = 0;
    for (size_t i : idx) best = std::max(best, m.samples[i].throughput);
    if (best > 0) for (size_t i : idx) label[i] = static_cast<float>(m.samples[i].throughput / best);
  }
  std::vector<const std::vector<float>*> rows;
  for (const ProxySample& s : m.samples) rows.push_back(&s.features);
  {
    m.mean = torch::zeros({m.in_features});
    m.spread = torch::ones({m.in_features});
    auto raw = m.stack(rows);
    m.mean = raw.mean(0);
    m.spread = raw.std(0, /*unbiased=*/false).clamp_min(1e-3);
  }
  auto x_all = m.stack(rows);
  auto y_all = torch::from_blob(label.data(), {static_cast<int64_t>(label.size())}).clone();

  m.net->train();
  report.epochs = passes_for(m.options, m.samples.size());
  for (int epoch = 0; epoch < report.epochs; ++epoch) {
    std::vector<std::vector<int64_t>> batches;
    for (auto& [group, idx] : groups) {
      std::vector<size_t> order = idx;
      std::shuffle(order.begin(), order.end(), m.rng);
      for (size_t b = 0; b < order.size(); b += static_cast<size_t>(m.options.batch_size)) {
        size_t e = std::min(order.size(), b + static_cast<size_t>(m.options.batch_size));
        if (e - b < 2) continue;
        batches.emplace_back(order.begin() + static_cast<long>(b), order.begin() + static_cast<long>(e));
      }
    }
    std::shuffle(batches.begin(), batches.end(), m.rng);
    double epoch_loss = 0;
    int counted = 0;
    for (auto& batch : batches) {
      auto index = torch::tensor(batch, torch::kLong);
      auto y = y_all.index_select(0, index);
      // i faster than j, trusted in proportion to the relative gap until it clears the noise
      auto yi = y.unsqueeze(1), yj = y.unsqueeze(0);
      auto relative = (yi - yj) / torch::max(yi, yj).clamp_min(1e-12);
      auto gap = (relative / m.options.pair_noise).clamp(0, 1);
      auto total = gap.sum();
      if (total.item<float>() <= 0) continue;
      auto s = m.net->forward(x_all.index_select(0, index)).squeeze(1);
      auto margin = s.unsqueeze(1) - s.unsqueeze(0);
      auto loss = (torch::softplus(-margin) * gap).sum() / total;
      m.optimizer->zero_grad();
      loss.backward();
      m.optimizer->step();
      epoch_loss += loss.item<double>();
      ++counted;
      ++report.steps;
    }
    if (counted) report.final_loss = epoch_loss / counted;
  }
  m.net->eval();
  m.trained_on = m.samples.size();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

std::vector<float> RewardProxy::predict(const std::vector<std::vector<float>>& features) {
  Impl& m = *impl_;
  std::vector<float> out(features.size());
  if (!ready()) {
    std::uniform_real_distribution<float> uniform(0.f, 1.f);
    for (float& v : out) v = uniform(m.rng);
    return out;
  }
  std::vector<const std::vector<float>*> rows;
  std::vector<size_t> where;
  for (size_t i = 0; i < features.size(); ++i) {
    if (static_cast<int>(features[i].size()) != m.in_features) {
      out[i] = -1e30f;  // not comparable: rank last
      continue;
    }
    rows.push_back(&features[i]);
    where.push_back(i);
  }
  if (rows.empty()) return out;
  torch::NoGradGuard no_grad;
  auto scores = m.net->forward(m.stack(rows)).squeeze(1).contiguous();
  const float* p = scores.data_ptr<float>();
  for (size_t r = 0; r < rows.size(); ++r) out[where[r]] = p[r];
  return out;
}

Result<void> RewardProxy::save(const std::string& path) const {
  const Impl& m = *impl_;
  if (!m.net) return make_error(path + ": nothing to save (the proxy has seen no samples)");
  try {
    torch::serialize::OutputArchive archive;
    m.net->save(archive);
    archive.write("tessera.in_features", torch::tensor({static_cast<int64_t>(m.in_features)}));
    archive.write("tessera.hidden", torch::tensor(std::vector<int64_t>(m.options.hidden.begin(), m.options.hidden.end())));
    archive.write("tessera.mean", m.mean);
    archive.write("tessera.spread", m.spread);
    archive.save_to(path);
  } catch (const c10::Error& e) {
    return make_error(path + ": cannot save the proxy: " + e.what_without_backtrace());
  }
  return {};
}

Result<void> RewardProxy::load(const std::string& path) {
  Impl& m = *impl_;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    torch::Tensor in_features, hidden, mean, spread;
    archive.read("tessera.in_features", in_features);
    archive.read("tessera.hidden", hidden);
    archive.read("tessera.mean", mean);
    archive.read("tessera.spread", spread);
    std::vector<int> widths;
    for (int64_t i = 0; i < hidden.numel(); ++i) widths.push_back(static_cast<int>(hidden[i].item<int64_t>()));
    int features = static_cast<int>(in_features[0].item<int64_t>());
    int expected = static_cast<int>(schedule::feature_names().size());
    if (features != expected) {
      return make_error(path + ": proxy expects " + std::to_string(features) +
                        " features, this build extracts " + std::to_string(expected));
    }
    m.options.hidden = widths;
    m.build(features);
    m.net->load(archive);
    m.mean = mean;
    m.spread = spread;
    m.net->eval();
    m.loaded = true;
  } catch (const c10::Error& e) {
    return make_error(path + ": not a Tessera proxy file: " + e.what_without_backtrace());
  }
  return {};
}

}  // namespace tessera::env

// PPO in LibTorch (see ppo.h).
#include "agents/rl/ppo.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace tessera::agents::rl {
namespace {

torch::nn::Sequential mlp(int in, const std::vector<int>& hidden, int out) {
  torch::nn::Sequential net;
  int width = in;
  for (int h : hidden) {
    net->push_back(torch::nn::Linear(width, h));
    net->push_back(torch::nn::Tanh());
    width = h;
  }
  net->push_back(torch::nn::Linear(width, out));
  return net;
}

struct Step {
  std::vector<float> observation;  // standardized, as the policy saw it
  std::vector<bool> mask;
  int action;
  float log_prob;
  float value;
  float reward = 0;
};

}  // namespace

struct PpoAgent::Impl {
  int observation_size, action_count;
  PpoOptions options;
  std::mt19937_64 rng;
  torch::nn::Sequential actor{nullptr}, critic{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  // Running observation statistics (Welford).
  std::vector<double> mean, m2;
  double count = 0;
  std::vector<Step> open;                 // the trajectory being recorded
  std::vector<Step> closed;               // finished trajectories' steps
  std::vector<float> advantages, returns; // per closed step
  Step pending;                           // the last act(), until recorded
  bool has_pending = false;

  Impl(int obs, int actions, PpoOptions o)
      : observation_size(obs), action_count(actions), options(std::move(o)), rng(options.seed),
        mean(static_cast<size_t>(obs), 0.0), m2(static_cast<size_t>(obs), 0.0) {
    torch::manual_seed(options.seed);
    actor = mlp(obs, options.hidden, actions);
    critic = mlp(obs, options.hidden, 1);
    std::vector<torch::Tensor> params = actor->parameters();
    for (auto& p : critic->parameters()) params.push_back(p);
    optimizer = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(options.learning_rate));
  }

  std::vector<float> standardize(const std::vector<float>& raw, bool learn) {
    if (learn) {
      count += 1;
      for (size_t i = 0; i < raw.size(); ++i) {
        double d = raw[i] - mean[i];
        mean[i] += d / count;
        m2[i] += d * (raw[i] - mean[i]);
      }
    }
    std::vector<float> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      double sd = count > 1 ? std::sqrt(m2[i] / (count - 1)) : 1.0;
      out[i] = static_cast<float>(std::clamp((raw[i] - mean[i]) / std::max(sd, 1e-3), -10.0, 10.0));
    }
    return out;
  }

  static torch::Tensor row(const std::vector<float>& v) {
    return torch::from_blob(const_cast<float*>(v.data()), {1, static_cast<int64_t>(v.size())}).clone();
  }
  static torch::Tensor mask_tensor(const std::vector<std::vector<bool>>& masks, int actions) {
    auto m = torch::zeros({static_cast<int64_t>(masks.size()), actions}, torch::kBool);
    auto a = m.accessor<bool, 2>();
    for (size_t i = 0; i < masks.size(); ++i) {
      for (int j = 0; j < actions; ++j) a[static_cast<int64_t>(i)][j] = masks[i][static_cast<size_t>(j)];
    }
    return m;
  }
  static torch::Tensor masked_log_softmax(const torch::Tensor& logits, const torch::Tensor& mask) {
    return torch::log_softmax(logits.masked_fill(mask.logical_not(), -1e9), 1);
  }
};

PpoAgent::PpoAgent(int observation_size, int action_count, PpoOptions options)
    : impl_(std::make_unique<Impl>(observation_size, action_count, std::move(options))) {
  torch::set_num_threads(1);  // Tessera's parallelism is TBB's; see TOOLCHAIN.md
}
PpoAgent::~PpoAgent() = default;
PpoAgent::PpoAgent(PpoAgent&&) noexcept = default;
PpoAgent& PpoAgent::operator=(PpoAgent&&) noexcept = default;

int PpoAgent::observation_size() const { return impl_->observation_size; }
int PpoAgent::action_count() const { return impl_->action_count; }
size_t PpoAgent::recorded() const { return impl_->closed.size() + impl_->open.size(); }

PpoDecision PpoAgent::act(const std::vector<float>& observation, const std::vector<bool>& mask, bool greedy) {
  Impl& m = *impl_;
  PpoDecision d;
  if (std::find(mask.begin(), mask.end(), true) == mask.end()) return d;
  auto x = m.standardize(observation, /*learn=*/!greedy);
  torch::NoGradGuard no_grad;
  auto input = Impl::row(x);
  auto log_probs = Impl::masked_log_softmax(m.actor->forward(input), Impl::mask_tensor({mask}, m.action_count))[0];
  std::vector<double> probs(static_cast<size_t>(m.action_count));
  auto lp = log_probs.accessor<float, 1>();
  for (int a = 0; a < m.action_count; ++a) probs[static_cast<size_t>(a)] = mask[static_cast<size_t>(a)] ? std::exp(lp[a]) : 0.0;
  if (greedy) {
    d.action = static_cast<int>(std::max_element(probs.begin(), probs.end()) - probs.begin());
  } else {
    d.action = static_cast<int>(std::discrete_distribution<int>(probs.begin(), probs.end())(m.rng));
  }
  d.log_prob = lp[d.action];
  d.value = m.critic->forward(input).item<float>();
  m.pending = Step{std::move(x), mask, d.action, d.log_prob, d.value};
  m.has_pending = !greedy;
  return d;
}

void PpoAgent::record(const PpoDecision& decision, double reward) {
  Impl& m = *impl_;
  if (!m.has_pending || m.pending.action != decision.action) return;  // greedy or stale: nothing to learn
  m.pending.reward = static_cast<float>(reward);
  m.open.push_back(std::move(m.pending));
  m.has_pending = false;
}

void PpoAgent::end_trajectory(double bootstrap) {
  Impl& m = *impl_;
  float next_value = static_cast<float>(bootstrap), gae = 0;
  std::vector<float> adv(m.open.size()), ret(m.open.size());
  for (size_t i = m.open.size(); i-- > 0;) {
    float delta = m.open[i].reward + static_cast<float>(m.options.gamma) * next_value - m.open[i].value;
    gae = delta + static_cast<float>(m.options.gamma * m.options.gae_lambda) * gae;
    adv[i] = gae;
    ret[i] = gae + m.open[i].value;
    next_value = m.open[i].value;
  }
  for (size_t i = 0; i < m.open.size(); ++i) {
    m.closed.push_back(std::move(m.open[i]));
    m.advantages.push_back(adv[i]);
    m.returns.push_back(ret[i]);
  }
  m.open.clear();
}

float PpoAgent::value(const std::vector<float>& observation) {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  return m.critic->forward(Impl::row(m.standardize(observation, false))).item<float>();
}

PpoUpdate PpoAgent::update() {
  Impl& m = *impl_;
  PpoUpdate report;
  const int64_t n = static_cast<int64_t>(m.closed.size());
  report.samples = static_cast<int>(n);
  if (n < 2) return report;
  auto obs = torch::empty({n, m.observation_size});
  std::vector<std::vector<bool>> masks;
  std::vector<int64_t> actions;
  std::vector<float> old_log_probs;
  for (int64_t i = 0; i < n; ++i) {
    const Step& s = m.closed[static_cast<size_t>(i)];
    std::copy(s.observation.begin(), s.observation.end(), obs[i].data_ptr<float>());
    masks.push_back(s.mask);
    actions.push_back(s.action);
    old_log_probs.push_back(s.log_prob);
  }
  auto mask = Impl::mask_tensor(masks, m.action_count);
  auto action = torch::tensor(actions, torch::kLong);
  auto old_lp = torch::tensor(old_log_probs);
  auto adv = torch::tensor(m.advantages);
  adv = (adv - adv.mean()) / (adv.std() + 1e-8);
  auto ret = torch::tensor(m.returns);

  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  int batches = 0;
  for (int epoch = 0; epoch < m.options.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), m.rng);
    for (int64_t start = 0; start < n; start += m.options.minibatch) {
      int64_t end = std::min<int64_t>(n, start + m.options.minibatch);
      auto idx = torch::tensor(std::vector<int64_t>(order.begin() + start, order.begin() + end), torch::kLong);
      auto x = obs.index_select(0, idx);
      auto log_probs = Impl::masked_log_softmax(m.actor->forward(x), mask.index_select(0, idx));
      auto lp = log_probs.gather(1, action.index_select(0, idx).unsqueeze(1)).squeeze(1);
      auto ratio = torch::exp(lp - old_lp.index_select(0, idx));
      auto a = adv.index_select(0, idx);
      auto surrogate = torch::min(ratio * a, torch::clamp(ratio, 1 - m.options.clip, 1 + m.options.clip) * a);
      auto probs = torch::exp(log_probs);
      auto entropy = -(probs * log_probs.masked_fill(mask.index_select(0, idx).logical_not(), 0)).sum(1).mean();
      auto value_loss = (m.critic->forward(x).squeeze(1) - ret.index_select(0, idx)).pow(2).mean();
      auto policy_loss = -surrogate.mean();
      auto loss = policy_loss + m.options.value_coef * value_loss - m.options.entropy_coef * entropy;
      m.optimizer->zero_grad();
      loss.backward();
      std::vector<torch::Tensor> params = m.actor->parameters();
      for (auto& p : m.critic->parameters()) params.push_back(p);
      torch::nn::utils::clip_grad_norm_(params, 0.5);
      m.optimizer->step();
      report.policy_loss += policy_loss.item<double>();
      report.value_loss += value_loss.item<double>();
      report.entropy += entropy.item<double>();
      ++batches;
    }
  }
  if (batches) {
    report.policy_loss /= batches;
    report.value_loss /= batches;
    report.entropy /= batches;
  }
  m.closed.clear();
  m.advantages.clear();
  m.returns.clear();
  return report;
}

Result<void> PpoAgent::save(const std::string& path) const {
  const Impl& m = *impl_;
  try {
    torch::serialize::OutputArchive archive, actor, critic, optimizer;
    m.actor->save(actor);
    m.critic->save(critic);
    m.optimizer->save(optimizer);
    archive.write("actor", actor);
    archive.write("critic", critic);
    archive.write("optimizer", optimizer);
    archive.write("tessera.sizes", torch::tensor({static_cast<int64_t>(m.observation_size),
                                                   static_cast<int64_t>(m.action_count)}));
    archive.write("tessera.count", torch::tensor({m.count}, torch::kDouble));
    archive.write("tessera.mean", torch::tensor(m.mean, torch::kDouble));
    archive.write("tessera.m2", torch::tensor(m.m2, torch::kDouble));
    archive.save_to(path);
  } catch (const c10::Error& e) {
    return make_error(path + ": cannot save the PPO agent: " + e.what_without_backtrace());
  }
  return {};
}

Result<void> PpoAgent::load(const std::string& path) {
  Impl& m = *impl_;
  try {
    torch::serialize::InputArchive archive, actor, critic, optimizer;
    archive.load_from(path);
    torch::Tensor sizes, count, mean, m2;
    archive.read("tessera.sizes", sizes);
    if (sizes.numel() != 2 || sizes[0].item<int64_t>() != m.observation_size ||
        sizes[1].item<int64_t>() != m.action_count) {
      return make_error(path + ": PPO agent for another space (observation and action sizes " +
                        std::to_string(m.observation_size) + ", " + std::to_string(m.action_count) + " expected)");
    }
    archive.read("tessera.count", count);
    archive.read("tessera.mean", mean);
    archive.read("tessera.m2", m2);
    archive.read("actor", actor);
    archive.read("critic", critic);
    archive.read("optimizer", optimizer);
    // Into fresh networks first, so a file that fails half way leaves this agent untouched.
    auto fresh_actor = mlp(m.observation_size, m.options.hidden, m.action_count);
    auto fresh_critic = mlp(m.observation_size, m.options.hidden, 1);
    fresh_actor->load(actor);
    fresh_critic->load(critic);
    std::vector<torch::Tensor> params = fresh_actor->parameters();
    for (auto& p : fresh_critic->parameters()) params.push_back(p);
    auto fresh_optimizer =
        std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(m.options.learning_rate));
    fresh_optimizer->load(optimizer);
    m.actor = fresh_actor;
    m.critic = fresh_critic;
    m.optimizer = std::move(fresh_optimizer);
    m.count = count[0].item<double>();
    auto read = [](const torch::Tensor& t) {
      auto c = t.contiguous();
      return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
    };
    m.mean = read(mean);
    m.m2 = read(m2);
  } catch (const c10::Error& e) {
    return make_error(path + ": not a Tessera PPO agent file: " + e.what_without_backtrace());
  }
  return {};
}

}  // namespace tessera::agents::rl

// PPO in LibTorch (see ppo.h), the learning half: `update` turns the closed steps recorded by
// ppo.cc (observations, masks, actions, old log-probabilities, GAE advantages and returns) into
// `epochs` passes of shuffled minibatches of the clipped objective, plus the critic's value
// loss and an entropy bonus, then forgets them.
#include "agents/rl/ppo.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "agents/rl/ppo_state.h"

namespace tessera::agents::rl {

using ppo_internal::Step;

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

}  // namespace tessera::agents::rl

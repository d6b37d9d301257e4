// PPO in LibTorch (see ppo.h), the rollout half: building the agent, acting on a masked action
// space, recording each step's reward, and closing a trajectory with its GAE(γ, λ) advantages
// and returns. ppo_update.cc learns from the closed steps; ppo_checkpoint.cc saves and loads;
// ppo_state.h holds what they share.
#include "agents/rl/ppo.h"

#include <algorithm>
#include <random>

#include "agents/rl/ppo_state.h"

namespace tessera::agents::rl {

using ppo_internal::Step;

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

}  // namespace tessera::agents::rl

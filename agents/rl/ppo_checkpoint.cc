// PPO in LibTorch (see ppo.h), the checkpoint: `save` writes the networks, the optimizer's
// moments and the observation statistics into one archive with the space's sizes; `load`
// refuses another space's or a foreign file by name and builds into fresh networks first, so
// a failed load leaves the agent as it was. A resumed run continues where it stopped.
#include "agents/rl/ppo.h"

#include <string>
#include <vector>

#include "agents/rl/ppo_state.h"

namespace tessera::agents::rl {

using ppo_internal::mlp;

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

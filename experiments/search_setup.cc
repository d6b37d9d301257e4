// Agents and the shared proxy for a tuning run (see search_setup.h).
#include "experiments/search_setup.h"

#include "agents/registry.h"
#include "agents/rl/register.h"
#include "env/proxy/reward_proxy.h"

namespace tessera::experiments {

void register_all_agents() { agents::rl::register_rl_agents(); }

Result<std::shared_ptr<env::CostModel>> make_cost_model(const ProxySpec& spec, uint64_t seed) {
  env::ProxyOptions options;
  options.hidden = spec.hidden;
  options.epochs = static_cast<int>(spec.epochs);
  options.min_samples = static_cast<int>(spec.min_samples);
  options.learning_rate = spec.learning_rate;
  options.pair_noise = spec.pair_noise;
  options.seed = seed;
  auto proxy = std::make_shared<env::RewardProxy>(options);
  if (!spec.weights.empty()) {
    if (auto loaded = proxy->load(spec.weights); !loaded) return make_error("proxy.weights: " + loaded.error().message);
  }
  return std::shared_ptr<env::CostModel>(proxy);
}

bool needs_cost_model(const SearchSpec& spec) {
  register_all_agents();
  const agents::AgentEntry* entry = agents::find_agent(spec.agent);
  return entry && entry->needs_cost_model;
}

Result<std::unique_ptr<agents::SearchAgent>> make_agent(const SearchSpec& spec, uint64_t seed,
                                                        std::shared_ptr<env::CostModel> model,
                                                        const std::string& state_dir) {
  register_all_agents();
  agents::AgentContext context{seed, std::move(model), state_dir};
  return agents::make_agent(spec.agent, spec.params, context);
}

Result<void> save_cost_model(const env::CostModel& model, const std::string& path) {
  auto* proxy = dynamic_cast<const env::RewardProxy*>(&model);
  if (!proxy || proxy->samples() == 0) return {};
  return proxy->save(path);
}

}  // namespace tessera::experiments

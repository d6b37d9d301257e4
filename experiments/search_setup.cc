// Agents and the shared proxy for a tuning run (see search_setup.h).
#include "experiments/search_setup.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <mutex>

#include "agents/plugin_loader.h"
#include "agents/registry.h"
#include "agents/rl/register.h"
#include "env/cost_model_registry.h"
#include "env/proxy/reward_proxy.h"

namespace tessera::experiments {

void register_all_agents() {
  agents::rl::register_rl_agents();
  static std::once_flag once;
  std::call_once(once, [] {
    // Its settings are the config's proxy.* keys (make_cost_model), not registry parameters;
    // this factory gives the defaults to code that asks the registry directly.
    env::register_cost_model({"mlp", "the learned reward proxy: an MLP over program features, pairwise ranking loss (LibTorch)",
                              {}, [](const env::ParamValues&, const env::CostModelContext& c) {
                                env::ProxyOptions options;
                                options.seed = c.seed;
                                return std::make_shared<env::RewardProxy>(options);
                              }});
  });
}

Result<std::vector<std::string>> load_plugins(const std::vector<std::string>& paths) {
  register_all_agents();  // a plug-in's names are checked against every built-in one
  std::vector<std::string> loaded;
  for (const std::string& path : paths) {
    auto plugin = agents::load_plugin(path);
    if (!plugin) return plugin.error();
    loaded.push_back(plugin->path);
  }
  return loaded;
}

Result<std::shared_ptr<env::CostModel>> make_cost_model(const ProxySpec& spec, uint64_t seed) {
  register_all_agents();
  if (spec.model != "mlp") {
    env::CostModelContext context;
    context.seed = seed;
    context.make_model = [spec, seed](const std::string& name) -> Result<std::shared_ptr<env::CostModel>> {
      if (name == spec.model) return make_error("cost model '" + name + "' cannot wrap itself");
      ProxySpec inner = spec;
      inner.model = name;
      inner.params.clear();
      return make_cost_model(inner, seed);
    };
    auto made = env::make_cost_model(spec.model, spec.params, context);
    if (!made) return make_error("proxy.model: " + made.error().message);
    return made;
  }
  env::ProxyOptions options;
  options.hidden = spec.hidden;
  options.epochs = static_cast<int>(spec.epochs);
  options.rows_per_train = static_cast<int>(std::min<int64_t>(spec.rows_per_train, INT32_MAX));
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

env::TaskOptions task_options(const TuneConfig& config, std::shared_ptr<runtime::Measurer> measurer) {
  const std::filesystem::path dir(config.run_dir);
  env::TaskOptions options;
  options.measure = config.measure;
  options.measure.threads = config.threads;
  options.build.timeout_s = config.measure.compile_timeout_s;
  options.records_path = (dir / "records.jsonl").string();
  options.retimes_path = (dir / "retimed.jsonl").string();
  options.confirm_rounds = config.confirm_rounds;
  options.confirm_within = config.confirm_within;
  options.seed = config.seed;
  options.checks_dir = checks_dir_of(config.run_dir);
  options.measurer = std::move(measurer);
  return options;
}

}  // namespace tessera::experiments

// The search a config asks for: its agent from the registry and, for agents that rank with
// one, the cost model they share (one per run, across tasks, as Ansor shares its cost model;
// its samples are grouped by task): `proxy.model` from the cost-model registry, the learned
// reward proxy `mlp` by default. Plug-ins are loaded here too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agents/search_agent.h"
#include "env/cost_model.h"
#include "env/tuning_task.h"
#include "experiments/config.h"

namespace tessera::experiments {

// Puts the learned agents (agents/rl/) in the agent registry beside the built-in ones, and the
// learned proxy (`mlp`) in the cost-model registry; idempotent. Configs are read, plug-ins
// loaded and agents made only after this.
void register_all_agents();

// Loads plug-in libraries (agents/plugin_loader.h) after the built-in entries are registered;
// the first refusal is the error (one line naming its path).
Result<std::vector<std::string>> load_plugins(const std::vector<std::string>& paths);

// The cost model a ProxySpec describes. For `mlp`, the RewardProxy of its settings, starting
// from its pretrained weights if it names any; for another model, its registry entry, whose
// context builds any model it wraps (e.g. `mlp`) from the same spec.
Result<std::shared_ptr<env::CostModel>> make_cost_model(const ProxySpec& spec, uint64_t seed);

// True when the config's agent ranks candidates with a cost model.
bool needs_cost_model(const SearchSpec& spec);

// The config's agent, seeded; `model` is handed to agents that need one, `state_dir` to agents
// that keep learned state across a resumed run (empty: none is kept).
Result<std::unique_ptr<agents::SearchAgent>> make_agent(const SearchSpec& spec, uint64_t seed,
                                                        std::shared_ptr<env::CostModel> model,
                                                        const std::string& state_dir = "");

// The options a run's tasks are measured with: the config's timing protocol, threads, compile
// timeout, confirmations and seed; records, re-timings and reference checks kept in its run
// directory; `measurer` (null: each task's own LocalMeasurer).
env::TaskOptions task_options(const TuneConfig& config, std::shared_ptr<runtime::Measurer> measurer);

// Saves the model if it is a RewardProxy that has learned something (for transfer).
Result<void> save_cost_model(const env::CostModel& model, const std::string& path);

}  // namespace tessera::experiments

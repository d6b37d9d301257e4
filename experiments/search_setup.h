// The search a config asks for: its agent from the registry and, for agents that rank with
// one, the learned reward proxy they share (one per run, across tasks, as Ansor shares its
// cost model; its samples are grouped by task).
#pragma once

#include <memory>

#include "agents/search_agent.h"
#include "env/cost_model.h"
#include "experiments/config.h"

namespace tessera::experiments {

// Puts the learned agents (agents/rl/) in the registry beside the built-in ones; idempotent.
// Configs are read and agents made only after this.
void register_all_agents();

// The RewardProxy a ProxySpec describes, starting from its pretrained weights if it names any.
Result<std::shared_ptr<env::CostModel>> make_cost_model(const ProxySpec& spec, uint64_t seed);

// True when the config's agent ranks candidates with a cost model.
bool needs_cost_model(const SearchSpec& spec);

// The config's agent, seeded; `model` is handed to agents that need one, `state_dir` to agents
// that keep learned state across a resumed run (empty: none is kept).
Result<std::unique_ptr<agents::SearchAgent>> make_agent(const SearchSpec& spec, uint64_t seed,
                                                        std::shared_ptr<env::CostModel> model,
                                                        const std::string& state_dir = "");

// Saves the model if it is a RewardProxy that has learned something (for transfer).
Result<void> save_cost_model(const env::CostModel& model, const std::string& path);

}  // namespace tessera::experiments

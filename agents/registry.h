// The agent registry: names in configs -> agents, with their parameters.
//
// Each entry names an agent, says what it does, lists its parameters (kind, lower bound,
// default, help) and builds it from validated values. Configs are checked against the
// entries (an unknown agent or parameter is an error naming the key), so an agent added here
// is selectable from YAML with no other change.
//
// Adding an agent:
//   1. implement SearchAgent (search_agent.h) in agents/<name>.{h,cc};
//   2. add an AgentEntry for it in registry.cc (or call `register_agent` from your own code
//      before configs are read), with every parameter it reads;
//   3. set `needs_cost_model` if it ranks candidates with the learned proxy; it then gets
//      the experiment's shared model in AgentContext::cost_model;
//   4. it then runs in the conformance tests (agents/conformance.h, run on every entry by
//      tests/unit/rl/conformance_test.cc and on plug-ins by `tessera conformance --plugin`).
// A plug-in shared library adds entries the same way (agents/plugin.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/search_agent.h"
#include "env/cost_model.h"
#include "env/param.h"
#include "schedule/result.h"

namespace tessera::agents {

using AgentParam = env::Param;      // declared once (env/param.h), shared with cost models
using AgentParams = env::ParamValues;

struct AgentContext {
  uint64_t seed = 1;
  std::shared_ptr<env::CostModel> cost_model;  // set for agents that need one
  std::string state_dir{};  // where an agent may keep what it learned across a resumed run; may be empty
};

struct AgentEntry {
  std::string name;
  std::string summary;
  std::vector<AgentParam> params;
  bool needs_cost_model = false;
  // Gets every parameter (config values over defaults), already validated.
  std::function<std::unique_ptr<SearchAgent>(const AgentParams&, const AgentContext&)> make;
};

const std::vector<AgentEntry>& agent_registry();
const AgentEntry* find_agent(const std::string& name);
std::vector<std::string> agent_names();
// Adds (or replaces) an entry. Plug-ins go through agents/plugin_loader.h, which refuses a
// name that is already taken instead.
void register_agent(AgentEntry entry);

// Checks one parameter value; the error says what is allowed (the caller adds where).
Result<double> check_param(const AgentEntry& entry, const std::string& name, double value);
// The entry's agent with `params` over its defaults; errors for an unknown agent or
// parameter, a missing cost model, or a factory that throws or returns nothing.
Result<std::unique_ptr<SearchAgent>> make_agent(const std::string& name, const AgentParams& params,
                                                const AgentContext& context);

}  // namespace tessera::agents

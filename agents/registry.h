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
//   4. add it to the conformance tests (tests/unit/agents/registry_test.cc runs every entry).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/search_agent.h"
#include "env/cost_model.h"
#include "schedule/result.h"

namespace tessera::agents {

struct AgentParam {
  enum class Kind { kInteger, kNumber, kProbability };
  std::string name;
  Kind kind = Kind::kInteger;
  double min = 0;        // smallest allowed value (probabilities are also <= 1)
  double fallback = 0;   // the value when a config leaves it out
  std::string help;
};

using AgentParams = std::map<std::string, double>;

struct AgentContext {
  uint64_t seed = 1;
  std::shared_ptr<env::CostModel> cost_model;  // set for agents that need one
  std::string state_dir;  // where an agent may keep what it learned across a resumed run; may be empty
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
// Adds (or replaces) an entry: the hook for plug-in agents.
void register_agent(AgentEntry entry);

// Checks one parameter value; the error says what is allowed (the caller adds where).
Result<double> check_param(const AgentEntry& entry, const std::string& name, double value);
// The entry's agent with `params` over its defaults; errors for an unknown agent or
// parameter, or a missing cost model.
Result<std::unique_ptr<SearchAgent>> make_agent(const std::string& name, const AgentParams& params,
                                                const AgentContext& context);

}  // namespace tessera::agents

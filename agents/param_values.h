// Agent parameter values as configs write them and run directories list them. Parameters are
// declared once (option_params.h, registry.h); this reads a boolean parameter from the words a
// YAML config may use for it, and lists every declared parameter with the value a run uses, set
// or defaulted, so a run's resolved config says everything the agent ran with. experiments/
// config.cc calls both: read_boolean while parsing search.params, resolved_params when writing
// the resolved config.
#pragma once

#include <string>
#include <vector>

#include "agents/registry.h"
#include "schedule/result.h"

namespace tessera::agents {

// Whether `entry` declares `name` a boolean (Kind::kBoolean).
bool is_boolean(const AgentEntry& entry, const std::string& name);

// A boolean's value from its text: true/false, yes/no, on/off or 1/0 (any case) give 1 or 0;
// anything else is an error saying what is allowed (the caller adds where).
Result<double> read_boolean(const std::string& text);

struct ParamSetting {
  AgentParam param;  // the declaration (name, kind, bound, default, help)
  double value;      // the run's value: the config's where it sets one, else the default
};

// Every parameter agent `agent` declares, in declaration order, with `set` over the defaults.
// An agent the registry does not know gives `set` as it is (as numbers).
std::vector<ParamSetting> resolved_params(const std::string& agent, const AgentParams& set);
// The same for a given declaration (nullptr: an agent nobody declared).
std::vector<ParamSetting> resolved_params(const AgentEntry* entry, const AgentParams& set);

}  // namespace tessera::agents

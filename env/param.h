// Param: one numeric parameter of a registry entry (an agent, a cost model), declared once —
// name, kind, lower bound, default and help — so that configs are validated against the
// declaration and a plug-in's parameters are checked exactly like a built-in's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schedule/result.h"

namespace tessera::env {

struct Param {
  enum class Kind { kInteger, kNumber, kProbability, kBoolean };  // a boolean is 0 or 1
  std::string name;
  Kind kind = Kind::kInteger;
  double min = 0;        // smallest allowed value (probabilities are also <= 1)
  double fallback = 0;   // the value when a config leaves it out
  std::string help;
};

using ParamValues = std::map<std::string, double>;

// Checks one value against `params`; the error says what is allowed (the caller adds where).
// `owner` names the entry for an unknown parameter, e.g. "agent 'droplet'".
Result<double> check_param(const std::vector<Param>& params, const std::string& owner,
                           const std::string& name, double value);

// Every parameter's default, overridden by `values` (each checked); an error names the
// parameter as `prefix` + name, e.g. "search.params.population: ...".
Result<ParamValues> resolve_params(const std::vector<Param>& params, const std::string& owner,
                                   const ParamValues& values, const std::string& prefix);

}  // namespace tessera::env

// Boolean words and resolved parameter lists for agent parameters (see param_values.h).
#include "agents/param_values.h"

#include <algorithm>
#include <cctype>

namespace tessera::agents {

bool is_boolean(const AgentEntry& entry, const std::string& name) {
  return std::any_of(entry.params.begin(), entry.params.end(), [&](const AgentParam& p) {
    return p.name == name && p.kind == AgentParam::Kind::kBoolean;
  });
}

Result<double> read_boolean(const std::string& text) {
  std::string word = text;
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  if (word == "true" || word == "yes" || word == "on" || word == "1") return 1.0;
  if (word == "false" || word == "no" || word == "off" || word == "0") return 0.0;
  return make_error("expected a boolean (true/false, yes/no, on/off or 1/0), got " +
                    (text.empty() ? std::string("no single value") : "'" + text + "'"));
}

std::vector<ParamSetting> resolved_params(const AgentEntry* entry, const AgentParams& set) {
  std::vector<ParamSetting> out;
  if (!entry) {
    for (const auto& [name, value] : set) out.push_back({{name, AgentParam::Kind::kNumber, 0, value, ""}, value});
    return out;
  }
  for (const AgentParam& p : entry->params) {
    auto it = set.find(p.name);
    out.push_back({p, it != set.end() ? it->second : p.fallback});
  }
  return out;
}

std::vector<ParamSetting> resolved_params(const std::string& agent, const AgentParams& set) {
  return resolved_params(find_agent(agent), set);
}

}  // namespace tessera::agents

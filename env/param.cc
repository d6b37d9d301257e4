// Parameter checks shared by the agent and cost-model registries (see param.h).
#include "env/param.h"

#include <cmath>
#include <cstdio>

namespace tessera::env {

Result<double> check_param(const std::vector<Param>& params, const std::string& owner,
                           const std::string& name, double value) {
  for (const Param& p : params) {
    if (p.name != name) continue;
    if (p.kind == Param::Kind::kInteger && value != std::floor(value)) return make_error("expected an integer");
    if (p.kind == Param::Kind::kProbability && (value < 0 || value > 1)) {
      return make_error("must be a probability in [0, 1]");
    }
    if (p.kind == Param::Kind::kBoolean && value != 0 && value != 1) return make_error("must be 0 or 1 (off or on)");
    if (value < p.min) {
      char text[64];
      std::snprintf(text, sizeof text, "must be at least %g", p.min);
      return make_error(text);
    }
    return value;
  }
  std::string known;
  for (const Param& p : params) known += (known.empty() ? "" : ", ") + p.name;
  return make_error(owner + " has no parameter '" + name + "'" +
                    (known.empty() ? " (it takes none)" : " (expected " + known + ")"));
}

Result<ParamValues> resolve_params(const std::vector<Param>& params, const std::string& owner,
                                   const ParamValues& values, const std::string& prefix) {
  ParamValues all;
  for (const Param& p : params) all[p.name] = p.fallback;
  for (const auto& [key, value] : values) {
    auto checked = check_param(params, owner, key, value);
    if (!checked) return make_error(prefix + key + ": " + checked.error().message);
    all[key] = *checked;
  }
  return all;
}

}  // namespace tessera::env

// The cost-model registry: names in configs (`proxy.model`) -> cost models, beside the agent
// registry (agents/registry.h) and built the same way: each entry names a model, says what it
// does, declares its numeric parameters (env/param.h) and builds it from validated values.
//
// The built-in learned proxy (`mlp`, LibTorch, env/proxy/) is one entry, registered by
// experiments/ before configs are read; plug-ins add theirs through agents/plugin.h. A model
// that refines another (a static screen in front of a learned ranker) asks the context for it
// by name, so the other is configured exactly as the run configures it.
//
// Adding a cost model: implement CostModel (cost_model.h), then `register_cost_model` an
// entry for it (or return one from a plug-in); `proxy.model: NAME` selects it and
// `proxy.params` sets its parameters.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "env/cost_model.h"
#include "env/param.h"
#include "schedule/result.h"

namespace tessera::env {

struct CostModelContext {
  uint64_t seed = 1;
  // Another registered model, configured as the run configures it (e.g. "mlp" with the
  // config's proxy.* settings); unset: models that wrap another cannot be built.
  std::function<Result<std::shared_ptr<CostModel>>(const std::string& name)> make_model;
};

struct CostModelEntry {
  std::string name;
  std::string summary;
  std::vector<Param> params;
  // Gets every parameter (config values over defaults), already validated.
  std::function<std::shared_ptr<CostModel>(const ParamValues&, const CostModelContext&)> make;
};

const std::vector<CostModelEntry>& cost_model_registry();
const CostModelEntry* find_cost_model(const std::string& name);
std::vector<std::string> cost_model_names();
// Adds (or replaces) an entry. Plug-ins go through agents/plugin_loader.h, which refuses a
// name that is already taken instead.
void register_cost_model(CostModelEntry entry);

// The entry's model with `params` over its defaults; errors for an unknown model or
// parameter, or a factory that throws or returns nothing.
Result<std::shared_ptr<CostModel>> make_cost_model(const std::string& name, const ParamValues& params,
                                                   const CostModelContext& context);

}  // namespace tessera::env

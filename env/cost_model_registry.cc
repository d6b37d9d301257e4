// The cost-model registry's table and lookups (see cost_model_registry.h).
#include "env/cost_model_registry.h"

#include <exception>

namespace tessera::env {
namespace {

std::vector<CostModelEntry>& entries() {
  static std::vector<CostModelEntry> table;
  return table;
}

}  // namespace

const std::vector<CostModelEntry>& cost_model_registry() { return entries(); }

const CostModelEntry* find_cost_model(const std::string& name) {
  for (const CostModelEntry& e : entries()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> cost_model_names() {
  std::vector<std::string> names;
  for (const CostModelEntry& e : entries()) names.push_back(e.name);
  return names;
}

void register_cost_model(CostModelEntry entry) {
  for (CostModelEntry& e : entries()) {
    if (e.name == entry.name) {
      e = std::move(entry);
      return;
    }
  }
  entries().push_back(std::move(entry));
}

Result<std::shared_ptr<CostModel>> make_cost_model(const std::string& name, const ParamValues& params,
                                                   const CostModelContext& context) {
  const CostModelEntry* entry = find_cost_model(name);
  if (!entry) {
    std::string known;
    for (const std::string& n : cost_model_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error("unknown cost model '" + name + "' (expected " + known + ")");
  }
  auto all = resolve_params(entry->params, "cost model '" + name + "'", params, "proxy.params.");
  if (!all) return all.error();
  // A plug-in's factory is foreign code: what it throws becomes an error, never a crash.
  try {
    auto model = entry->make(*all, context);
    if (!model) return make_error("cost model '" + name + "': its factory returned nothing");
    return model;
  } catch (const std::exception& e) {
    return make_error("cost model '" + name + "': its factory threw: " + e.what());
  } catch (...) {
    return make_error("cost model '" + name + "': its factory threw a non-standard exception");
  }
}

}  // namespace tessera::env

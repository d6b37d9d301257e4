// Writing a Tessera plug-in: a shared library that adds agents and/or cost models.
//
// A plug-in exports ONE entry point, `tessera_plugin`, made by the TESSERA_PLUGIN macro: it
// returns the interface version the library was built against, its name, and a function that
// adds registry entries (agents/registry.h, env/cost_model_registry.h) to a PluginRegistrar.
// Tessera loads only the paths a user names (YAML `plugins:`, `--plugin`), checks the version
// before calling anything else, then refuses the whole library — registering nothing — when a
// name is already taken, when registering throws, or when a factory throws or returns nothing
// on a trial build with its defaults (agents/plugin_loader.h). Symbols of Tessera itself are
// resolved from the host program, so a plug-in links no Tessera library: build it with
// `find_package(Tessera)` and `target_link_libraries(x PRIVATE Tessera::plugin)`.
//
//   void add_entries(tessera::agents::PluginRegistrar& r) {
//     r.add_agent({"my_agent", "what it does", {/* params */}, false,
//                  [](const auto& params, const auto& context) { return std::make_unique<MyAgent>(context.seed); }});
//   }
//   TESSERA_PLUGIN("my_plugin", add_entries)
//
// Bump kPluginInterfaceVersion whenever a public header changes in a way that breaks a
// plug-in built against the old one (a class layout, a virtual method, an entry's fields).
#pragma once

#include <cstdint>
#include <vector>

#include "agents/registry.h"
#include "env/cost_model_registry.h"

namespace tessera::agents {

inline constexpr uint32_t kPluginInterfaceVersion = 2;  // 2: env::Candidate::source, SearchAgent::tags_sources

// What a plug-in's registering function fills; the loader checks it before anything is added.
class PluginRegistrar {
 public:
  void add_agent(AgentEntry entry) { agents_.push_back(std::move(entry)); }
  void add_cost_model(env::CostModelEntry entry) { cost_models_.push_back(std::move(entry)); }
  std::vector<AgentEntry>& agents() { return agents_; }
  std::vector<env::CostModelEntry>& cost_models() { return cost_models_; }

 private:
  std::vector<AgentEntry> agents_;
  std::vector<env::CostModelEntry> cost_models_;
};

// What `tessera_plugin` returns. Plain C layout, so the version can be read before anything
// else of the library is trusted.
struct PluginDescriptor {
  uint32_t interface_version;
  const char* name;
  void (*add_entries)(PluginRegistrar& registrar);
};

}  // namespace tessera::agents

// The exported entry point's name, for the loader's dlsym.
#define TESSERA_PLUGIN_ENTRY_POINT "tessera_plugin"

#define TESSERA_PLUGIN(NAME, ADD_ENTRIES)                                                          \
  extern "C" __attribute__((visibility("default"))) const ::tessera::agents::PluginDescriptor*     \
  tessera_plugin() {                                                                               \
    static const ::tessera::agents::PluginDescriptor descriptor{                                   \
        ::tessera::agents::kPluginInterfaceVersion, NAME, ADD_ENTRIES};                            \
    return &descriptor;                                                                            \
  }

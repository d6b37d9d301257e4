// Loading plug-in shared libraries (agents/plugin.h) into the agent and cost-model registries.
//
// Only the path given is opened (made absolute first, so the dynamic loader's search path is
// never consulted). The library is refused, with one line naming the path and nothing
// registered, when: the file is missing or cannot be loaded; it has no `tessera_plugin` entry
// point; its interface version is not this Tessera's; registering throws or adds nothing; a
// name clashes with an agent or cost model already registered (or twice within it); or a
// factory throws or returns nothing when built once with its defaults. Loading a path that
// is already loaded does nothing. A refused library is unloaded; an accepted one stays loaded
// for the life of the process (its entries point into it).
#pragma once

#include <string>
#include <vector>

#include "schedule/result.h"

namespace tessera::agents {

struct LoadedPlugin {
  std::string path;                      // absolute
  std::string name;                      // as the plug-in names itself
  std::vector<std::string> agents;       // the names it registered
  std::vector<std::string> cost_models;
  bool already_loaded = false;           // true: an earlier load of the same file
};

Result<LoadedPlugin> load_plugin(const std::string& path);

// Every plug-in loaded so far in this process, in load order.
const std::vector<LoadedPlugin>& loaded_plugins();

}  // namespace tessera::agents

// `tessera agents` (see list_agents.h).
#include "experiments/list_agents.h"

#include <cstdio>

#include "agents/option_params.h"
#include "agents/registry.h"
#include "experiments/search_setup.h"

namespace tessera::experiments {

int run_list_agents(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin" && i + 1 < args.size()) {
      plugins.push_back(args[++i]);
    } else {
      std::fprintf(stderr, "tessera agents: unexpected argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  register_all_agents();
  if (auto loaded = load_plugins(plugins); !loaded) {
    std::fprintf(stderr, "tessera agents: %s\n", loaded.error().message.c_str());
    return 2;
  }
  for (const agents::AgentEntry& entry : agents::agent_registry()) {
    std::printf("%s%s — %s\n", entry.name.c_str(), entry.needs_cost_model ? " (ranks with the proxy)" : "",
                entry.summary.c_str());
    for (const std::string& line : agents::describe_params(entry.params)) std::printf("    %s\n", line.c_str());
  }
  return 0;
}

}  // namespace tessera::experiments

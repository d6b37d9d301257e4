// `tessera agents`: every registered agent (built-in, learned, from plug-ins) with its
// parameters — kind, lower bound, default and help, from the one declaration each has
// (agents/option_params.h) — as configs set them under search.params.
#pragma once

#include <string>
#include <vector>

namespace tessera::experiments {

// Returns the process exit code (2 for a bad argument or a refused plug-in).
int run_list_agents(const std::vector<std::string>& args);

}  // namespace tessera::experiments

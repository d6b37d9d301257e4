// `tessera conformance`: the conformance checks of agents/conformance.h on the agents and
// cost models that plug-ins register (or on every registered one), one line each.
#pragma once

#include <string>
#include <vector>

namespace tessera::experiments {

// Returns the process exit code: 0 when everything checked conforms.
int run_conformance(const std::vector<std::string>& args);

}  // namespace tessera::experiments

// `tessera quickstart`: compile the hand-scheduled matmul, check it, time it.
#pragma once

#include <string>
#include <vector>

namespace tessera::experiments {

// Returns the process exit code; prints the report to stdout and errors to stderr.
int run_quickstart(const std::vector<std::string>& args);

}  // namespace tessera::experiments

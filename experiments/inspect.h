// `tessera best RUN_DIR` and `tessera replay RUN_DIR`: the best schedule of each task of a run,
// shown with its loop nest, or compiled again, checked against the reference and re-measured.
#pragma once

#include <string>

namespace tessera::experiments {

int run_best(const std::string& run_dir);
int run_replay(const std::string& run_dir);

}  // namespace tessera::experiments

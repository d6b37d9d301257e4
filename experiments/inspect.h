// `tessera best RUN_DIR` and `tessera replay RUN_DIR`: the best schedule of each task of a run,
// shown with its loop nest, or compiled again, checked against the reference and re-measured;
// `tessera inspect MODEL.onnx`: the tasks a network fuses into.
#pragma once

#include <string>
#include <vector>

namespace tessera::experiments {

int run_best(const std::string& run_dir);
int run_replay(const std::string& run_dir);
// Imports, folds and fuses an ONNX model and prints its task table (name, ops fused, output
// shape, FLOPs, weight). `args`: the model path, then optional --dim NAME=VALUE.
int run_inspect(const std::vector<std::string>& args);

}  // namespace tessera::experiments

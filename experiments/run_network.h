// `tessera run MODEL.onnx`: one network, end to end. Imports, folds and fuses the model,
// builds the network executor (recorded schedules from --records, else default ones), runs it
// on seeded random or given float32 inputs, checks the outputs against the double-precision
// graph interpreter, then times it (median of >= 20 runs after warm-up) and prints a per-task
// time table; --json ends stdout with one JSON line for bench/e2e.sh. The activation layout is
// the records' run's (graph/prepare.h), NHWC without one, or --layout's. With --records given
// more than once the networks are compared: each built and checked, all timed in one process,
// an inference of each in turn, each with its paired ratio to the first.
#pragma once

#include <string>
#include <vector>

namespace tessera::experiments {

// `args`: MODEL.onnx [--records PATH ...] [--layout nhwc|nchw] [--threads N] [--input IN.bin] [--output OUT.bin]
// [--runs N] [--seed N] [--json] [--no-check] [--dim NAME=VALUE ...]. Exit code 0 on success,
// 1 when the model fails or its outputs differ from the reference, 2 for bad arguments.
int run_network(const std::vector<std::string>& args);

}  // namespace tessera::experiments

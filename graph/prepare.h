// From an imported ONNX graph to the tasks Tessera tunes and runs: constant folding, the
// network's activation layout (channels_last.h), Winograd convs (winograd.h) and fusion, in the one order every command
// (tune, run, inspect) must share so that their tasks, and so their records, agree.
#pragma once

#include <string>

#include "graph/fuse.h"
#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::graph {

// The layout of a network's 4-D activations between tasks. NCHW keeps the model's own;
// NHWC converts once at the network's inputs and outputs (channels_last.h).
enum class ActivationLayout { kNCHW, kNHWC };

const char* layout_name(ActivationLayout layout);  // "nchw", "nhwc"
// "nchw" or "nhwc"; an error naming the accepted values otherwise.
Result<ActivationLayout> parse_layout(const std::string& text);

struct PreparedNetwork {
  Graph graph;  // folded, in `layout`: the graph the executor runs
  NetworkTasks tasks;
};

// `winograd`: NHWC convs that qualify compute by Winograd F(2x2, 3x3) (winograd.h); tasks, and
// so records, differ with it too.
Result<PreparedNetwork> prepare_network(const Graph& imported, ActivationLayout layout, bool winograd = true);

}  // namespace tessera::graph

// Channels-last activations for a whole network: the layout decision made once for all tasks.
//
// A convolution computed from NCHW activations keeps its output channels, the axis a CPU
// vectorizes, outermost: the kernel either vectorizes along a row of pixels (a shuffle per tap
// when strided) or copies its input into a blocked layout and its output back, inside every
// call. Computed from NHWC with HWIO weights, the channels are innermost on both sides and no
// copy is needed. oneDNN and ONNX Runtime pick such a layout once for the whole network and
// convert only at its edges; this pass does the same for a folded graph, before fusion:
//
//   - Conv (2-D, constant weights), MaxPool, AveragePool and GlobalAveragePool run in NHWC:
//     the node gets `data_layout = "NHWC"`, a Conv's weights become a constant in HWIO order;
//   - elementwise and broadcast nodes whose 4-D inputs are already NHWC stay in NHWC (their
//     constant operands, per-channel biases and scales, are permuted to match);
//   - every other reader of an NHWC tensor, and every 4-D graph output, gets the NCHW tensor
//     back through a Transpose under the tensor's own name; graph inputs reach NHWC nodes
//     through a Transpose too. Fusion folds these into the neighbouring tasks.
//
// An NHWC tensor is named `<name>__nhwc` and has its shape permuted; the graph's inputs and
// outputs keep their names, shapes and layout, so callers see the same network.
#pragma once

#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::graph {

// The attribute (on Conv and the pools) that says a node reads and writes NHWC tensors.
inline constexpr const char* kDataLayoutAttr = "data_layout";
// Whether `node` carries data_layout = "NHWC".
bool is_channels_last(const Node& node);

// The graph with its 4-D activations in NHWC where the nodes allow it (see above). Errors name
// the node and file.
Result<Graph> to_channels_last(const Graph& graph);

}  // namespace tessera::graph

// Constant folding: everything about a network that is known before any input arrives.
//
// Constant nodes become constants; a node whose inputs are all constants is evaluated (with
// the interpreter) into a constant, which covers the shape arithmetic torch.onnx.export emits
// for Reshape/Flatten (Shape, Gather, Unsqueeze, Concat) and Reshape/Transpose of weights;
// Shape needs only its input's static shape. BatchNormalization after a Conv is folded into
// the conv's weights and bias; any other BatchNormalization becomes a Mul and an Add by
// per-channel constants. Identity nodes are bypassed, dead nodes and constants dropped.
#pragma once

#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::graph {

Result<Graph> fold_constants(const Graph& graph);

}  // namespace tessera::graph

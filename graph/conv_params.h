// A Conv node's parameters for the op library (schedule::Conv2dParams), read once for every
// pass that needs them: op_compute builds the conv's stages from them, winograd.cc decides from
// them which convs to rewrite.
//
// The attributes take ONNX's defaults (strides and dilations 1, no padding, one group).
// auto_pad may be NOTSET or VALID (whose `pads` are absent, so zero); SAME_* are not
// supported. The operand shapes are read in the node's layout: NCHW input with OIHW weights,
// NHWC input with HWIO weights (channels_last.h), or NHWC input with Winograd weights
// [16, C, K] (winograd.h). The interpreter, the network check's oracle, reads the attributes
// with its own code on purpose.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "schedule/ops.h"
#include "schedule/result.h"

namespace tessera::graph {

// An Error (one line, without the node's name) when the node is not a 2-D convolution of a
// supported form or its shapes disagree with its layout; the parameters are not yet checked
// against each other (schedule::validate_conv2d does that).
Result<schedule::Conv2dParams> conv2d_params_of(const Node& node, const std::vector<int64_t>& input_shape,
                                                const std::vector<int64_t>& weight_shape);

}  // namespace tessera::graph

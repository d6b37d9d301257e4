// ONNX import: a .onnx file (or its bytes) into a graph::Graph, ONNX-free in its interface.
//
// The model is checked before any work: every node must be a supported operator of the
// default domain (else one line: "model.onnx: node 17 'conv_5' (LSTM): unsupported operator"),
// IR version <= 8, opset <= 17, every node input defined, every graph-input dimension static
// (or given a value in ImportOptions::dim_values). Then ONNX's own shape inference (strict,
// with data propagation) gives every tensor its static shape. Import does not fold: the result
// keeps Constant, Shape, BatchNormalization... nodes as in the file (see fold.h). Nothing is
// written anywhere; errors are one-line values naming the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::graph {

struct ImportOptions {
  // Values for symbolic dimensions of graph inputs, by dim_param name (e.g. "batch": 1).
  std::map<std::string, int64_t> dim_values;
};

Result<Graph> import_onnx(const std::string& path, const ImportOptions& options = {});
// The same from the serialized ModelProto; `source` names it in messages.
Result<Graph> import_onnx_bytes(const std::string& bytes, const std::string& source,
                                const ImportOptions& options = {});

// The ONNX op types import accepts, sorted.
std::vector<std::string> supported_onnx_ops();

constexpr int kMaxOnnxIrVersion = 8;
constexpr int kMaxOnnxOpset = 17;

}  // namespace tessera::graph

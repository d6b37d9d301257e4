// A node-by-node interpreter of a Graph in double precision: the reference for whole networks.
//
// It reads the ONNX semantics of each supported operator straight from the node (attributes,
// broadcasting, padding) and shares no code with the tensor-expression lowering in
// op_compute.cc, so comparing a fused task's reference evaluation with it checks import,
// folding, fusion and lowering together. Constant folding uses it for subgraphs whose inputs
// are all constants (shape arithmetic). Slow by design: meant for small tests.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::graph {

// A tensor value; int64 tensors hold their integers exactly in `data` (they are small).
struct Value {
  std::vector<int64_t> shape;
  std::vector<double> data;
  DType dtype = DType::kFloat32;
};

Value value_of(const Constant& c);
Constant constant_of(const std::string& name, const Value& v);

// The outputs of one node given its inputs (nullptr for an omitted optional input). `opset`
// is the model's default-domain opset (Softmax and Unsqueeze changed at 13).
Result<std::vector<Value>> evaluate_node(const Node& node, const std::vector<const Value*>& inputs,
                                         int opset);

// Every tensor of the graph (inputs, constants and every node output), given the graph
// inputs' float32 values.
Result<std::map<std::string, Value>> interpret(
    const Graph& graph, const std::map<std::string, std::vector<float>>& inputs);

}  // namespace tessera::graph

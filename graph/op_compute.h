// Lowering of graph nodes to tensor expressions (the FCompute of each supported operator),
// and the fusion pattern of each operator (TVM's OpPatternKind).
//
// A fused task's ComputeDAG is built by calling compute_node on its nodes in order, each over
// the stages its producers gave (or placeholders for the task's inputs). Scalar constants
// (one element) become immediates in the expressions. Output shapes come from the graph's
// TensorInfo (ONNX shape inference); the lowering checks them against its own arithmetic.
//
// Adding an operator: give it a pattern in op_pattern, a rule in compute_node, a rule in
// interpret.cc, its name in the supported list (graph/onnx/import.cc) and a model test.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "schedule/result.h"
#include "schedule/tensor.h"

namespace tessera::graph {

enum class OpPattern {
  kElemwise,   // out[i] = f(in[i]) on the same shape
  kBroadcast,  // elementwise with numpy broadcasting of some operand
  kInjective,  // each output reads one input point: reshape, transpose, concat
  kReduction,  // pooling, softmax, reduce-mean
  kAnchor,     // conv, gemm, matmul: out-elementwise-fusable, at most one per task
  kOpaque,
};
OpPattern op_pattern(const std::string& op_type);
const char* pattern_name(OpPattern p);

// One input of a node as the lowering sees it: a stage or placeholder, or a scalar constant.
struct Operand {
  schedule::Tensor tensor;
  std::optional<double> scalar;
};

// Unique stage names inside one DAG: "add", then "add_1", ...
class StageNamer {
 public:
  std::string operator()(const std::string& base);
  void reserve(const std::string& name) { used_[name] = 1; }

 private:
  std::map<std::string, int> used_;
};

// The output stage of `node` over `inputs` (one per node input, absent ones default).
Result<schedule::Tensor> compute_node(const Node& node, const std::vector<Operand>& inputs,
                                      const Graph& graph, StageNamer& names);

}  // namespace tessera::graph

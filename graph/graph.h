// The network IR: operator nodes over named tensors, constants with their data, and the
// graph's inputs and outputs.
//
// A Graph is a plain value (ONNX import builds one, constant folding rewrites one, fusion reads
// one). Nodes are kept in topological order; a node's inputs and outputs are tensor names
// (an empty input name is an omitted optional input, as in ONNX). Attributes keep ONNX's
// names and kinds. Every tensor a node reads is a graph input, a constant or an earlier
// node's output, and its TensorInfo is in `tensors`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "graph/tensor_info.h"
#include "schedule/result.h"

namespace tessera::graph {

// A constant tensor (an initializer or a folded value). float32 data in `f32`, int64 in `i64`.
struct Constant {
  TensorInfo info;
  std::vector<float> f32;
  std::vector<int64_t> i64;

  double at(int64_t i) const {
    return info.dtype == DType::kFloat32 ? f32[i] : static_cast<double>(i64[i]);
  }
};

using AttrValue =
    std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>, Constant>;

struct Node {
  std::string name;     // may be empty in the file; `label()` never is
  std::string op_type;  // ONNX op type, e.g. "Conv"
  int index = 0;        // position in the source file's node list (for messages)
  std::map<std::string, AttrValue> attrs;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;

  bool has(const std::string& attr) const { return attrs.count(attr) > 0; }
  int64_t get_int(const std::string& attr, int64_t fallback) const;
  double get_float(const std::string& attr, double fallback) const;
  std::string get_string(const std::string& attr, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& attr, std::vector<int64_t> fallback) const;
  // "node 17 'conv_5' (Conv)": how messages name a node.
  std::string label() const;
  // The i-th input's name, or "" when absent or omitted.
  std::string input(size_t i) const { return i < inputs.size() ? inputs[i] : std::string(); }
};

struct Graph {
  std::string source;               // the file it came from (for messages)
  int opset = 17;                   // the default ONNX domain's opset
  std::vector<std::string> inputs;  // graph inputs that are not constants
  std::vector<std::string> outputs;
  std::vector<Node> nodes;  // topological order
  std::map<std::string, Constant> constants;
  std::map<std::string, TensorInfo> tensors;  // every value, constants included

  bool is_constant(const std::string& name) const { return constants.count(name) > 0; }
  const TensorInfo* info(const std::string& name) const;
  // Index in `nodes` of the node producing `name`, or -1 (inputs, constants).
  int producer(const std::string& name) const;
  // Indices of the nodes reading `name`.
  std::vector<int> consumers(const std::string& name) const;
  // "model.onnx: node 17 'conv_5' (Conv): <message>"
  Error node_error(const Node& node, const std::string& message) const;
  // Checks the invariants above: every read defined before use, every tensor with info.
  Result<void> validate() const;
};

// A float32 constant of `shape` holding `values`.
Constant make_constant(std::string name, std::vector<int64_t> shape, std::vector<float> values);
Constant make_int_constant(std::string name, std::vector<int64_t> shape,
                           std::vector<int64_t> values);

}  // namespace tessera::graph

// The network IR's accessors and its invariant check (see graph.h).
#include "graph/graph.h"

#include <set>

namespace tessera::graph {

int64_t Node::get_int(const std::string& attr, int64_t fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (auto* f = std::get_if<double>(&it->second)) return static_cast<int64_t>(*f);
  return fallback;
}

double Node::get_float(const std::string& attr, double fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* f = std::get_if<double>(&it->second)) return *f;
  if (auto* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  return fallback;
}

std::string Node::get_string(const std::string& attr, const std::string& fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* s = std::get_if<std::string>(&it->second)) return *s;
  return fallback;
}

std::vector<int64_t> Node::get_ints(const std::string& attr, std::vector<int64_t> fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  return fallback;
}

std::string Node::label() const {
  return "node " + std::to_string(index) + " '" + name + "' (" + op_type + ")";
}

const TensorInfo* Graph::info(const std::string& name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

int Graph::producer(const std::string& name) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& out : nodes[i].outputs) {
      if (out == name) return static_cast<int>(i);
    }
  }
  return -1;
}

std::vector<int> Graph::consumers(const std::string& name) const {
  std::vector<int> result;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : nodes[i].inputs) {
      if (in == name) {
        result.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return result;
}

Error Graph::node_error(const Node& node, const std::string& message) const {
  return make_error(source + ": " + node.label() + ": " + message);
}

Result<void> Graph::validate() const {
  std::set<std::string> defined(inputs.begin(), inputs.end());
  for (const auto& [name, c] : constants) defined.insert(name);
  for (const Node& node : nodes) {
    for (const std::string& in : node.inputs) {
      if (in.empty()) continue;
      if (!defined.count(in))
        return node_error(node, "input '" + in + "' is not defined before it");
      if (!info(in)) return node_error(node, "input '" + in + "' has no shape");
    }
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      if (!defined.insert(out).second)
        return node_error(node, "output '" + out + "' is defined twice");
    }
  }
  for (const std::string& out : outputs) {
    if (!defined.count(out))
      return make_error(source + ": graph output '" + out + "' is never computed");
    if (!info(out)) return make_error(source + ": graph output '" + out + "' has no shape");
  }
  return {};
}

Constant make_constant(std::string name, std::vector<int64_t> shape, std::vector<float> values) {
  Constant c;
  c.info = TensorInfo{std::move(name), std::move(shape), DType::kFloat32};
  c.f32 = std::move(values);
  return c;
}

Constant make_int_constant(std::string name, std::vector<int64_t> shape,
                           std::vector<int64_t> values) {
  Constant c;
  c.info = TensorInfo{std::move(name), std::move(shape), DType::kInt64};
  c.i64 = std::move(values);
  return c;
}

}  // namespace tessera::graph

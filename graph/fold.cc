// Constant folding (see fold.h): three passes over the node list, each producing a new Graph.
#include "graph/fold.h"

#include <cmath>
#include <set>

#include "graph/interpret.h"

namespace tessera::graph {
namespace {

// A name not yet used by any tensor of `g`, derived from `base`.
std::string fresh_name(const Graph& g, const std::string& base) {
  std::string name = base;
  for (int i = 1; g.tensors.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

void add_constant(Graph& g, Constant c) {
  g.tensors[c.info.name] = c.info;
  std::string name = c.info.name;
  g.constants[name] = std::move(c);
}

// Pass 1: evaluate nodes whose inputs are all constant (Shape: whose input has a shape).
Result<void> fold_constant_nodes(Graph& g) {
  std::vector<Node> kept;
  for (const Node& node : g.nodes) {
    bool all_constant = true;
    for (const std::string& in : node.inputs) all_constant &= in.empty() || g.is_constant(in);
    const bool shape_only = node.op_type == "Shape" && g.info(node.input(0));
    if (!all_constant && !shape_only) {
      kept.push_back(node);
      continue;
    }
    std::vector<Value> values;
    for (const std::string& in : node.inputs) {
      values.push_back(in.empty()   ? Value{}
                       : shape_only ? Value{g.info(in)->shape, {}, g.info(in)->dtype}
                                    : value_of(g.constants.at(in)));
    }
    std::vector<const Value*> ptrs;
    for (size_t i = 0; i < values.size(); ++i)
      ptrs.push_back(node.inputs[i].empty() ? nullptr : &values[i]);
    auto out = evaluate_node(node, ptrs, g.opset);
    if (!out) return g.node_error(node, "folding a constant: " + out.error().message);
    add_constant(g, constant_of(node.outputs[0], (*out)[0]));
  }
  g.nodes = std::move(kept);
  return {};
}

// Pass 2: BatchNormalization into the producing Conv, or into Mul + Add.
Result<void> fold_batch_norms(Graph& g) {
  std::vector<Node> out;
  std::set<std::string> graph_outputs(g.outputs.begin(), g.outputs.end());
  for (const Node& node : g.nodes) {
    if (node.op_type != "BatchNormalization") {
      out.push_back(node);
      continue;
    }
    for (size_t i = 1; i < 5; ++i) {
      if (!g.is_constant(node.input(i)))
        return g.node_error(node, "BatchNormalization parameters must be constants");
    }
    if (node.outputs.size() > 1) {
      for (size_t i = 1; i < node.outputs.size(); ++i) {
        if (!node.outputs[i].empty())
          return g.node_error(node, "training-mode BatchNormalization (more than one output)");
      }
    }
    const double eps = node.get_float("epsilon", 1e-5);
    const Constant& scale = g.constants.at(node.input(1));
    const Constant& shift = g.constants.at(node.input(2));
    const Constant& mean = g.constants.at(node.input(3));
    const Constant& var = g.constants.at(node.input(4));
    const int64_t c = scale.info.num_elements();
    std::vector<double> a(c), b(c);  // y = a * x + b per channel
    for (int64_t k = 0; k < c; ++k) {
      a[k] = scale.at(k) / std::sqrt(var.at(k) + eps);
      b[k] = shift.at(k) - mean.at(k) * a[k];
    }
    const std::string x = node.input(0);
    const int producer_index = [&] {
      for (int i = static_cast<int>(out.size()) - 1; i >= 0; --i) {
        if (!out[i].outputs.empty() && out[i].outputs[0] == x) return i;
      }
      return -1;
    }();
    Node* conv = producer_index >= 0 ? &out[producer_index] : nullptr;
    const bool foldable = conv && conv->op_type == "Conv" && g.consumers(x).size() == 1 &&
                          !graph_outputs.count(x) && g.is_constant(conv->input(1)) &&
                          (conv->input(2).empty() || g.is_constant(conv->input(2)));
    if (foldable) {
      const Constant& w = g.constants.at(conv->input(1));
      const int64_t per_k = w.info.num_elements() / c;
      Constant nw = w;
      nw.info.name = fresh_name(g, w.info.name + "_bn");
      for (int64_t i = 0; i < w.info.num_elements(); ++i)
        nw.f32[i] = static_cast<float>(w.at(i) * a[i / per_k]);
      std::vector<float> bias(c);
      for (int64_t k = 0; k < c; ++k) {
        const double b0 = conv->input(2).empty() ? 0.0 : g.constants.at(conv->input(2)).at(k);
        bias[k] = static_cast<float>(b0 * a[k] + b[k]);
      }
      Constant nb = make_constant(fresh_name(g, node.outputs[0] + "_bias"), {c}, std::move(bias));
      conv->inputs = {conv->input(0), nw.info.name, nb.info.name};
      conv->outputs = {node.outputs[0]};
      add_constant(g, std::move(nw));
      add_constant(g, std::move(nb));
      continue;
    }
    // y = x * a + b with a, b of shape [C, 1, ...] (broadcast along the channel axis 1).
    const TensorInfo* xi = g.info(x);
    std::vector<int64_t> shape{c};
    for (size_t i = 2; i < xi->shape.size(); ++i) shape.push_back(1);
    std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
    Constant ca = make_constant(fresh_name(g, node.outputs[0] + "_scale"), shape, std::move(af));
    Constant cb = make_constant(fresh_name(g, node.outputs[0] + "_shift"), shape, std::move(bf));
    const std::string mid = fresh_name(g, node.outputs[0] + "_scaled");
    g.tensors[mid] = TensorInfo{mid, xi->shape, DType::kFloat32};
    Node mul{node.name + "_scale", "Mul", node.index, {}, {x, ca.info.name}, {mid}};
    Node add{node.name + "_shift", "Add", node.index, {}, {mid, cb.info.name}, {node.outputs[0]}};
    add_constant(g, std::move(ca));
    add_constant(g, std::move(cb));
    out.push_back(std::move(mul));
    out.push_back(std::move(add));
  }
  g.nodes = std::move(out);
  return {};
}

// Pass 3: bypass Identity (unless it names a graph output), drop dead nodes and constants.
void prune(Graph& g) {
  std::set<std::string> graph_outputs(g.outputs.begin(), g.outputs.end());
  std::map<std::string, std::string> alias;
  std::vector<Node> nodes;
  for (Node node : g.nodes) {
    for (std::string& in : node.inputs) {
      if (alias.count(in)) in = alias[in];
    }
    if (node.op_type == "Identity" && !graph_outputs.count(node.outputs[0])) {
      alias[node.outputs[0]] = node.inputs[0];
      continue;
    }
    nodes.push_back(std::move(node));
  }
  std::set<std::string> live(graph_outputs);
  std::vector<Node> kept;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    bool used = false;
    for (const std::string& o : it->outputs) used |= live.count(o) > 0;
    if (!used) continue;
    for (const std::string& in : it->inputs) live.insert(in);
    kept.insert(kept.begin(), *it);
  }
  g.nodes = std::move(kept);
  for (auto it = g.constants.begin(); it != g.constants.end();) {
    it = live.count(it->first) ? std::next(it) : g.constants.erase(it);
  }
  std::set<std::string> named(g.inputs.begin(), g.inputs.end());
  for (const auto& [name, c] : g.constants) named.insert(name);
  for (const Node& n : g.nodes) named.insert(n.outputs.begin(), n.outputs.end());
  for (auto it = g.tensors.begin(); it != g.tensors.end();) {
    it = named.count(it->first) ? std::next(it) : g.tensors.erase(it);
  }
}

}  // namespace

Result<Graph> fold_constants(const Graph& graph) {
  Graph g = graph;
  if (auto r = fold_constant_nodes(g); !r) return r.error();
  if (auto r = fold_batch_norms(g); !r) return r.error();
  prune(g);
  if (auto r = g.validate(); !r) return r.error();
  return g;
}

}  // namespace tessera::graph

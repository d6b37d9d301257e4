// Winograd convs chosen for a channels-last graph (see winograd.h).
#include "graph/winograd.h"

#include <map>
#include <optional>
#include <set>

#include "graph/channels_last.h"
#include "graph/conv_params.h"
#include "schedule/ops.h"

namespace tessera::graph {
namespace {

// The conv's parameters when it can and should run by Winograd.
std::optional<schedule::Conv2dParams> winograd_params(const Graph& g, const Node& node) {
  if (node.op_type != "Conv" || !is_channels_last(node) || is_winograd(node) || !g.is_constant(node.input(1))) {
    return std::nullopt;
  }
  const TensorInfo* x = g.info(node.input(0));
  const TensorInfo* w = g.info(node.input(1));
  const TensorInfo* y = node.outputs.empty() ? nullptr : g.info(node.outputs[0]);
  if (!x || !w || !y || y->shape.size() != 4) return std::nullopt;
  auto p = conv2d_params_of(node, x->shape, w->shape);
  if (!p || p->kernel_h != 3 || p->kernel_w != 3 || w->shape[2] != p->in_channels) return std::nullopt;
  if (p->stride_h != 1 || p->stride_w != 1 || p->dilation_h != 1 || p->dilation_w != 1 || p->groups != 1) {
    return std::nullopt;
  }
  if (p->in_channels < kMinWinogradChannels || p->out_channels < kMinWinogradChannels) return std::nullopt;
  if (schedule::winograd_tiles(y->shape[1]) * schedule::winograd_tiles(y->shape[2]) < kMinWinogradTiles) {
    return std::nullopt;
  }
  return *p;
}

}  // namespace

bool is_winograd(const Node& node) { return node.get_string(kConvAlgorithmAttr, "") == kWinogradAlgorithm; }

Result<Graph> use_winograd(const Graph& graph) {
  Graph out = graph;
  std::map<std::string, std::string> transformed;  // HWIO weights -> their U
  std::set<std::string> replaced;
  for (Node& node : out.nodes) {
    auto p = winograd_params(graph, node);
    if (!p) continue;
    const std::string w = node.inputs[1];
    auto it = transformed.find(w);
    if (it == transformed.end()) {
      std::string name = w + "__winograd";
      for (int i = 1; out.tensors.count(name); ++i) name = w + "__winograd_" + std::to_string(i);
      Constant u = make_constant(name, {schedule::kWinogradPoints, p->in_channels, p->out_channels},
                                 schedule::winograd_weights(*p, graph.constants.at(w).f32));
      out.tensors[name] = u.info;
      out.constants[name] = std::move(u);
      it = transformed.emplace(w, name).first;
    }
    node.inputs[1] = it->second;
    node.attrs[kConvAlgorithmAttr] = std::string(kWinogradAlgorithm);
    replaced.insert(w);
  }
  // Weights no other node reads go.
  for (const Node& node : out.nodes) {
    for (const std::string& in : node.inputs) replaced.erase(in);
  }
  for (const std::string& o : out.outputs) replaced.erase(o);
  for (const std::string& w : replaced) {
    out.constants.erase(w);
    out.tensors.erase(w);
  }
  if (auto valid = out.validate(); !valid) return valid.error();
  return out;
}

}  // namespace tessera::graph

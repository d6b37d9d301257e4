// Winograd convs chosen for a channels-last graph (see winograd.h).
#include "graph/winograd.h"

#include <map>
#include <optional>
#include <set>

#include "graph/channels_last.h"
#include "schedule/ops.h"

namespace tessera::graph {
namespace {

// The conv's parameters when it can and should run by Winograd.
std::optional<schedule::Conv2dParams> winograd_params(const Graph& g, const Node& node) {
  if (node.op_type != "Conv" || !is_channels_last(node) || !g.is_constant(node.input(1))) return std::nullopt;
  const TensorInfo* x = g.info(node.input(0));
  const TensorInfo* w = g.info(node.input(1));
  const TensorInfo* y = node.outputs.empty() ? nullptr : g.info(node.outputs[0]);
  if (!x || !w || !y || x->shape.size() != 4 || w->shape.size() != 4 || y->shape.size() != 4) return std::nullopt;
  if (node.get_ints("strides", {1, 1}) != std::vector<int64_t>{1, 1}) return std::nullopt;
  if (node.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1}) return std::nullopt;
  if (node.get_int("group", 1) != 1 || node.get_string("auto_pad", "NOTSET") != "NOTSET") return std::nullopt;
  const auto pads = node.get_ints("pads", {0, 0, 0, 0});
  if (pads.size() != 4) return std::nullopt;
  schedule::Conv2dParams p;  // NHWC input, HWIO weights
  p.layout = schedule::Layout::kNHWC;
  p.batch = x->shape[0], p.height = x->shape[1], p.width = x->shape[2], p.in_channels = x->shape[3];
  p.kernel_h = w->shape[0], p.kernel_w = w->shape[1], p.out_channels = w->shape[3];
  p.pad_h = pads[0], p.pad_w = pads[1], p.pad_bottom = pads[2], p.pad_right = pads[3];
  if (p.kernel_h != 3 || p.kernel_w != 3 || w->shape[2] != p.in_channels) return std::nullopt;
  if (p.in_channels < kMinWinogradChannels || p.out_channels < kMinWinogradChannels) return std::nullopt;
  const int64_t out_h = y->shape[1], out_w = y->shape[2];
  if (schedule::winograd_tiles(out_h) * schedule::winograd_tiles(out_w) < kMinWinogradTiles) return std::nullopt;
  return p;
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
      Constant u = make_constant(name, {16, p->in_channels, p->out_channels},
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

// Collapsing a DAG's two pixel axes into one (see collapse_pixels.h).
//
// Every stage is rebuilt in topological order with its inputs replaced by their rebuilt nodes.
// A tensor shaped [..., H, W] becomes [..., H*W]; a compute stage of that shape gets a new last
// axis "hw" in place of (h, w), and each of its reads of such a tensor must index it at exactly
// (h, w), which becomes (hw). Any other use of h or w, or a read of a collapsed tensor by a stage
// of another shape, means the pixels are not one axis for this DAG: the rewrite gives up.
#include "schedule/collapse_pixels.h"

#include <map>
#include <memory>
#include <set>

#include "schedule/simplify.h"

namespace tessera::schedule {
namespace {

bool pixel_shaped(const std::vector<int64_t>& shape, int64_t height, int64_t width) {
  const size_t rank = shape.size();
  return rank >= 2 && shape[rank - 2] == height && shape[rank - 1] == width;
}

std::vector<int64_t> collapsed(std::vector<int64_t> shape) {
  const int64_t width = shape.back();
  shape.pop_back();
  shape.back() *= width;
  return shape;
}

// Drops the reduction axes of extent 1 (keeping one when all are), reading them at 0.
Expr drop_unit_reductions(TensorNode& node) {
  VarMap at_zero;
  std::vector<Axis> kept;
  for (const Axis& r : node.reduce_axes) {
    if (r.extent == 1 && !(kept.empty() && &r == &node.reduce_axes.back())) {
      at_zero.push_back({r.var.get(), int_imm(0)});
    } else {
      kept.push_back(r);
    }
  }
  node.reduce_axes = std::move(kept);
  return substitute(node.body, at_zero);
}

}  // namespace

std::optional<ComputeDAG> collapse_pixel_axes(const ComputeDAG& dag) {
  const std::vector<int64_t>& out = dag.outputs().front()->shape;
  if (out.size() < 3) return std::nullopt;
  const int64_t height = out[out.size() - 2], width = out.back();
  if (height < 2 || width < 2) return std::nullopt;

  std::map<std::string, std::shared_ptr<const TensorNode>> rebuilt;
  std::set<std::string> collapsed_names;
  auto rebuild = [&](const TensorNode& old) -> bool {
    auto node = std::make_shared<TensorNode>(old);
    for (auto& input : node->inputs) input = rebuilt.at(input->name);
    const bool pixels = pixel_shaped(old.shape, height, width);
    if (pixels) {
      node->shape = collapsed(old.shape);
      collapsed_names.insert(old.name);
    }
    if (old.is_placeholder) {
      rebuilt[old.name] = node;
      return true;
    }
    Expr body = drop_unit_reductions(*node);
    Expr h, w, hw;
    if (pixels) {
      const size_t rank = old.axes.size();
      h = old.axes[rank - 2].var;
      w = old.axes[rank - 1].var;
      const std::string name = old.axes[rank - 2].name + old.axes[rank - 1].name;
      hw = var(name);
      node->axes.pop_back();
      node->axes.back() = Axis{name, height * width, hw};
    }
    bool ok = true;
    body = rewrite_loads(body, [&](const Expr& load) {
      std::vector<Expr> index;
      for (const Expr& i : load->operands) index.push_back(simplify(i));
      if (!collapsed_names.count(load->name)) return with_operands(load, std::move(index));
      const size_t rank = index.size();
      if (!pixels || rank < 2 || !index[rank - 2].same_as(h) || !index[rank - 1].same_as(w)) {
        ok = false;
        return load;
      }
      index.pop_back();
      index.back() = hw;
      return with_operands(load, std::move(index));
    });
    if (!ok) return false;
    if (pixels && (uses_var(body, h.get()) || uses_var(body, w.get()))) return false;
    node->body = body;
    rebuilt[old.name] = node;
    return true;
  };
  for (const Tensor& t : dag.inputs()) rebuild(*t);
  for (const Tensor& t : dag.stages()) {
    if (!rebuilt.count(t->name) && !rebuild(*t)) return std::nullopt;
  }
  if (collapsed_names.empty()) return std::nullopt;

  std::vector<Tensor> inputs, outputs;
  for (const Tensor& t : dag.inputs()) inputs.emplace_back(rebuilt.at(t->name));
  for (const Tensor& t : dag.outputs()) outputs.emplace_back(rebuilt.at(t->name));
  auto result = ComputeDAG::make(dag.summary(), std::move(inputs), std::move(outputs));
  if (!result) return std::nullopt;
  return std::move(*result);
}

ComputeDAG with_pixels_as_one_axis(ComputeDAG dag) {
  if (auto collapsed = collapse_pixel_axes(dag)) return std::move(*collapsed);
  return dag;
}

}  // namespace tessera::schedule

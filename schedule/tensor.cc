// Placeholders and compute stages (see tensor.h).
#include "schedule/tensor.h"

#include <cassert>
#include <limits>

namespace tessera::schedule {

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : node_->shape) n *= d;
  return n;
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  assert(indices.size() == node_->shape.size());
  return load(node_->name, std::move(indices), node_->dtype);
}

std::string spatial_axis_name(size_t index, size_t rank) {
  static const char* kNames[] = {"i", "j", "k", "l", "m", "n"};
  // Four-dimensional tensors read best as n, c, h, w.
  static const char* kNchw[] = {"n", "c", "h", "w"};
  if (rank == 4) return kNchw[index];
  if (index < 6) return kNames[index];
  return "ax" + std::to_string(index);
}

namespace {

std::vector<Axis> make_axes(const std::vector<int64_t>& extents, bool reduce) {
  std::vector<Axis> axes;
  for (size_t i = 0; i < extents.size(); ++i) {
    std::string name = reduce ? "r" + std::to_string(i) : spatial_axis_name(i, extents.size());
    axes.push_back(Axis{name, extents[i], var(name)});
  }
  return axes;
}

std::vector<Expr> vars_of(const std::vector<Axis>& axes) {
  std::vector<Expr> v;
  for (const Axis& a : axes) v.push_back(a.var);
  return v;
}

std::vector<std::shared_ptr<const TensorNode>> nodes_of(const std::vector<Tensor>& tensors) {
  std::vector<std::shared_ptr<const TensorNode>> nodes;
  for (const Tensor& t : tensors) nodes.push_back(t.node());
  return nodes;
}

}  // namespace

Tensor placeholder(std::string name, std::vector<int64_t> shape, DType dtype) {
  auto node = std::make_shared<TensorNode>();
  node->name = std::move(name);
  node->shape = std::move(shape);
  node->dtype = dtype;
  return Tensor(std::move(node));
}

Tensor constant_input(std::string name, std::vector<int64_t> shape, DType dtype) {
  auto node = std::make_shared<TensorNode>();
  node->name = std::move(name);
  node->shape = std::move(shape);
  node->dtype = dtype;
  node->is_constant = true;
  return Tensor(std::move(node));
}

Tensor compute(std::string name, std::vector<int64_t> shape, std::vector<Tensor> inputs,
               const IndexFn& fn) {
  auto node = std::make_shared<TensorNode>();
  node->name = std::move(name);
  node->is_placeholder = false;
  node->axes = make_axes(shape, false);
  node->shape = std::move(shape);
  node->body = fn(vars_of(node->axes));
  node->dtype = node->body->dtype;
  node->inputs = nodes_of(inputs);
  return Tensor(std::move(node));
}

Tensor reduce(std::string name, std::vector<int64_t> shape, std::vector<int64_t> reduce_extents,
              ReduceKind kind, std::vector<Tensor> inputs, const ReduceFn& fn, Expr init) {
  assert(kind != ReduceKind::kNone);
  auto node = std::make_shared<TensorNode>();
  node->name = std::move(name);
  node->is_placeholder = false;
  node->axes = make_axes(shape, false);
  node->reduce_axes = make_axes(reduce_extents, true);
  node->shape = std::move(shape);
  node->reduce = kind;
  node->body = fn(vars_of(node->axes), vars_of(node->reduce_axes));
  node->dtype = node->body->dtype;
  if (!init.defined()) {
    init = kind == ReduceKind::kSum ? float_imm(0.0)
                                    : float_imm(-std::numeric_limits<double>::infinity());
  }
  node->init = cast(node->dtype, init);
  node->inputs = nodes_of(inputs);
  return Tensor(std::move(node));
}

}  // namespace tessera::schedule

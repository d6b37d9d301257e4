// Tensor expressions: placeholders and compute stages.
//
// A Tensor is the output of one stage. A placeholder is an input with a shape; a compute stage
// defines every element by an expression over its spatial axes, optionally reduced (sum or max,
// with an init value) over reduction axes. Stages refer to each other through Load expressions
// that name the producer. Schedules (state.h) rearrange how the stages are computed, never what
// they compute; the reference evaluator (reference.h) reads these definitions directly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "schedule/expr.h"

namespace tessera::schedule {

enum class ReduceKind : uint8_t { kNone, kSum, kMax };

struct Axis {
  std::string name;
  int64_t extent;
  Expr var;  // the integer variable that ranges over [0, extent)
};

struct TensorNode {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32;
  bool is_placeholder = true;
  // A placeholder whose values are fixed before the kernel runs (weights, biases): a schedule
  // may pack it once, ahead of time (PackStep), instead of reading it in every call.
  bool is_constant = false;
  std::vector<Axis> axes;         // spatial axes, one per output dimension
  std::vector<Axis> reduce_axes;  // empty unless reduce != kNone
  ReduceKind reduce = ReduceKind::kNone;
  Expr body;                      // the value (or the reduced term) at one point
  Expr init;                      // initial value of the reduction
  std::vector<std::shared_ptr<const TensorNode>> inputs;  // producers read by `body`
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const TensorNode> node) : node_(std::move(node)) {}

  const TensorNode* operator->() const { return node_.get(); }
  const TensorNode& operator*() const { return *node_; }
  const std::shared_ptr<const TensorNode>& node() const { return node_; }
  bool defined() const { return node_ != nullptr; }
  int64_t num_elements() const;

  // Reads this tensor at `indices` (one per dimension).
  Expr operator()(std::vector<Expr> indices) const;
  template <typename... I>
  Expr operator()(I... indices) const { return (*this)(std::vector<Expr>{Expr(indices)...}); }

 private:
  std::shared_ptr<const TensorNode> node_;
};

using IndexFn = std::function<Expr(const std::vector<Expr>& axes)>;
using ReduceFn =
    std::function<Expr(const std::vector<Expr>& axes, const std::vector<Expr>& reduce_axes)>;

Tensor placeholder(std::string name, std::vector<int64_t> shape, DType dtype = DType::kFloat32);
// A placeholder for a constant input (weights, biases): see TensorNode::is_constant.
Tensor constant_input(std::string name, std::vector<int64_t> shape, DType dtype = DType::kFloat32);

// out[axes] = fn(axes). `inputs` lists the tensors that fn reads.
Tensor compute(std::string name, std::vector<int64_t> shape, std::vector<Tensor> inputs,
               const IndexFn& fn);

// out[axes] = reduce over reduce_axes of fn(axes, reduce_axes), starting from `init`
// (0 for sum and -inf for max when left undefined).
Tensor reduce(std::string name, std::vector<int64_t> shape, std::vector<int64_t> reduce_extents,
              ReduceKind kind, std::vector<Tensor> inputs, const ReduceFn& fn,
              Expr init = Expr());

// Axis names used for a stage: i, j, k, l, ... for spatial axes and r0, r1, ... for reduce.
std::string spatial_axis_name(size_t index, size_t rank);

}  // namespace tessera::schedule

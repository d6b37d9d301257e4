// Operators with fused elementwise epilogues, built on the plain ones in ops.cc: the epilogue
// is a stage of its own that a schedule can compute at the producer's tile or inline.
#include <cmath>

#include "schedule/collapse_pixels.h"
#include "schedule/ops.h"

namespace tessera::schedule {
namespace {

// `summary` with its first word (the op name) replaced by `name`.
std::string renamed(const std::string& summary, const std::string& name) {
  return name + summary.substr(summary.find(' '));
}

const Tensor& input_named(const ComputeDAG& dag, const std::string& name) {
  for (const Tensor& t : dag.inputs()) {
    if (t->name == name) return t;
  }
  return dag.inputs().front();
}

}  // namespace

Result<ComputeDAG> conv2d_bias_relu(const Conv2dParams& p) {
  auto base = conv2d(p, /*pixels_as_one_axis=*/false);
  if (!base) return base.error();
  Tensor conv = base->outputs().front();
  Tensor bias = constant_input("bias", {p.out_channels});
  const size_t channel = p.layout == Layout::kNCHW ? 1 : 3;
  Tensor y = compute("Y", conv->shape, {conv, bias}, [&](const std::vector<Expr>& ax) {
    return max(conv(ax) + bias(ax[channel]), float_imm(0.0));
  });
  auto dag = ComputeDAG::make(renamed(base->summary(), "conv2d_bias_relu"),
                              {input_named(*base, "X"), input_named(*base, "W"), bias}, {y});
  if (!dag) return dag;
  return with_pixels_as_one_axis(std::move(*dag));
}

Result<ComputeDAG> dense_bias_gelu(int64_t m, int64_t n, int64_t k) {
  auto base = dense_bias(m, n, k);
  if (!base) return base.error();
  Tensor dense = base->stages()[base->stage_index("dense")];
  Tensor bias = input_named(*base, "bias");
  Tensor y = compute("Y", {m, n}, {dense, bias}, [&](const std::vector<Expr>& ax) {
    Expr x = dense(ax) + bias(ax[1]);
    return Expr(0.5) * x * (Expr(1.0) + erf(x / Expr(std::sqrt(2.0))));
  });
  return ComputeDAG::make(renamed(base->summary(), "dense_bias_gelu"),
                          {input_named(*base, "X"), input_named(*base, "W"), bias}, {y});
}

}  // namespace tessera::schedule

// Tensor-expression rules of the supported operators (see op_compute.h). Each rule reads the
// node's attributes with ONNX defaults, checks what it does not support (one line naming the
// node) and builds stages with schedule::compute / reduce; conv goes through the op library.
#include "graph/op_compute.h"

#include <cmath>
#include <limits>
#include <set>

#include "graph/channels_last.h"
#include "graph/conv_params.h"
#include "graph/winograd.h"
#include "schedule/ops.h"

namespace tessera::graph {
namespace {

using schedule::Expr;
using schedule::Tensor;
using Exprs = std::vector<Expr>;
using Shape = std::vector<int64_t>;

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Reads `op` at output point `ax` (rank `out_rank`) with numpy broadcasting.
Expr broadcast_load(const Operand& op, const Exprs& ax) {
  if (op.scalar) return Expr(*op.scalar);
  const Shape& s = op.tensor->shape;
  Exprs idx;
  const size_t off = ax.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i) idx.push_back(s[i] == 1 ? Expr(int64_t{0}) : ax[off + i]);
  return op.tensor(idx);
}

// The input point of a row-major reshape: flatten `ax` over `out`, unflatten over `in`.
Exprs reshape_index(const Exprs& ax, const Shape& out, const Shape& in) {
  Expr flat = int64_t{0};
  bool first = true;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 1) continue;
    flat = first ? ax[i] : flat * out[i] + ax[i];
    if (first) first = false;
    // Skip multiplying a leading zero: keep expressions plain.
  }
  if (first) flat = Expr(int64_t{0});
  Exprs idx(in.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(in.size()) - 1; i >= 0; --i) {
    if (in[i] == 1) {
      idx[i] = Expr(int64_t{0});
      continue;
    }
    Expr q = stride == 1 ? flat : flat / stride;
    idx[i] = stride * in[i] == count(in) ? q : q % in[i];
    stride *= in[i];
  }
  return idx;
}

struct Ctx {
  const Node& node;
  const std::vector<Operand>& in;
  const Graph& graph;
  StageNamer& names;
  Shape out;

  Error fail(const std::string& m) const { return graph.node_error(node, m); }
  bool has(size_t i) const { return i < in.size() && (in[i].tensor.defined() || in[i].scalar); }
  // A tensor operand (scalars become one-element constant reads only where the rule allows).
  Result<Tensor> tensor(size_t i) const {
    if (i >= in.size() || !in[i].tensor.defined())
      return fail("input " + std::to_string(i) + " must be a tensor");
    return in[i].tensor;
  }
};

Result<Tensor> elementwise(const Ctx& c) {
  const std::string& op = c.node.op_type;
  std::vector<Tensor> reads;
  for (const Operand& o : c.in)
    if (o.tensor.defined()) reads.push_back(o.tensor);
  std::optional<double> exponent;
  double lo = -std::numeric_limits<double>::infinity(),
         hi = std::numeric_limits<double>::infinity();
  if (op == "Pow") {
    if (!c.has(1) || !c.in[1].scalar) return c.fail("Pow needs a constant scalar exponent");
    exponent = *c.in[1].scalar;
    if (*exponent != 0.5 && *exponent != 1 && *exponent != 2 && *exponent != 3) {
      return c.fail("Pow exponent " + std::to_string(*exponent) + " (supported: 0.5, 1, 2, 3)");
    }
    reads = {c.in[0].tensor};
  }
  if (op == "Clip") {
    lo = c.node.get_float("min", lo);
    hi = c.node.get_float("max", hi);
    for (size_t i = 1; i < 3; ++i) {
      if (!c.has(i)) continue;
      if (!c.in[i].scalar) return c.fail("Clip bounds must be constant scalars");
      (i == 1 ? lo : hi) = *c.in[i].scalar;
    }
    reads = {c.in[0].tensor};
  }
  for (const Operand& o : c.in) {
    if (&o == &c.in[0] && !o.tensor.defined()) return c.fail("input 0 must be a tensor");
  }
  return schedule::compute(c.names(lower_case(op)), c.out, reads, [&](const Exprs& ax) -> Expr {
    Expr a = broadcast_load(c.in[0], ax);
    if (op == "Relu") return schedule::max(a, schedule::float_imm(0.0));
    if (op == "Sigmoid") return Expr(1.0) / (Expr(1.0) + schedule::exp(-a));
    if (op == "Tanh") return schedule::tanh(a);
    if (op == "Erf") return schedule::erf(a);
    if (op == "Sqrt") return schedule::sqrt(a);
    if (op == "Identity") return a;
    if (op == "Clip") {
      if (std::isfinite(lo)) a = schedule::max(a, Expr(lo));
      if (std::isfinite(hi)) a = schedule::min(a, Expr(hi));
      return a;
    }
    if (op == "Pow") {
      if (*exponent == 0.5) return schedule::sqrt(a);
      if (*exponent == 1) return a;
      return *exponent == 2 ? a * a : a * a * a;
    }
    Expr b = broadcast_load(c.in[1], ax);
    if (op == "Add") return a + b;
    if (op == "Sub") return a - b;
    if (op == "Mul") return a * b;
    return a / b;  // Div
  });
}

Result<Tensor> conv(const Ctx& c) {
  auto x = c.tensor(0), w = c.tensor(1);
  if (!x) return x.error();
  if (!w) return w.error();
  auto params = conv2d_params_of(c.node, (*x)->shape, (*w)->shape);
  if (!params) return c.fail(params.error().message);
  const schedule::Conv2dParams& p = *params;
  const bool nhwc = p.layout == schedule::Layout::kNHWC;
  for (const char* stage : {"pad", "conv", "winograd_input", "winograd_gemm"}) c.names.reserve(stage);
  auto out = is_winograd(c.node) ? schedule::conv2d_winograd_compute(*x, *w, p) : schedule::conv2d_compute(*x, *w, p);
  if (!out) return c.fail(out.error().message);
  if (!c.has(2)) return out;
  const Operand& bias = c.in[2];
  Tensor conv_out = *out;
  std::vector<Tensor> reads{conv_out};
  if (bias.tensor.defined()) reads.push_back(bias.tensor);
  return schedule::compute(c.names("bias_add"), c.out, reads, [&](const Exprs& ax) {
    Expr b = bias.scalar ? Expr(*bias.scalar) : bias.tensor(Exprs{ax[nhwc ? 3 : 1]});
    return conv_out(ax) + b;
  });
}

// Gemm and MatMul: out[..., m, n] = sum_k A[..., m, k] * B[..., k, n] (transposes, broadcast).
Result<Tensor> matmul(const Ctx& c) {
  auto a = c.tensor(0), b = c.tensor(1);
  if (!a) return a.error();
  if (!b) return b.error();
  const bool gemm = c.node.op_type == "Gemm";
  const bool ta = gemm && c.node.get_int("transA", 0), tb = gemm && c.node.get_int("transB", 0);
  const Shape& as = (*a)->shape;
  const Shape& bs = (*b)->shape;
  if (as.size() < 2 || bs.size() < 2) return c.fail("operands of rank < 2 are not supported");
  const int64_t k = ta ? as[as.size() - 2] : as.back();
  const int64_t kb = tb ? bs.back() : bs[bs.size() - 2];
  if (k != kb)
    return c.fail("inner dimensions differ (" + std::to_string(k) + " and " + std::to_string(kb) +
                  ")");
  const size_t rank = c.out.size();
  Tensor at = *a, bt = *b;
  Tensor prod =
      schedule::reduce(c.names(gemm ? "dense" : "matmul"), c.out, {k}, schedule::ReduceKind::kSum,
                       {at, bt}, [&](const Exprs& ax, const Exprs& r) {
                         auto operand = [&](const Tensor& t, bool trans, bool lhs) {
                           const Shape& s = t->shape;
                           Exprs idx;
                           const size_t off = rank - s.size();
                           for (size_t i = 0; i + 2 < s.size(); ++i)
                             idx.push_back(s[i] == 1 ? Expr(int64_t{0}) : ax[off + i]);
                           Expr row = lhs ? ax[rank - 2] : r[0], col = lhs ? r[0] : ax[rank - 1];
                           if (trans) std::swap(row, col);
                           idx.push_back(row);
                           idx.push_back(col);
                           return t(idx);
                         };
                         return operand(at, ta, true) * operand(bt, tb, false);
                       });
  const double alpha = gemm ? c.node.get_float("alpha", 1.0) : 1.0;
  const double beta = gemm ? c.node.get_float("beta", 1.0) : 1.0;
  if (alpha == 1.0 && (!gemm || !c.has(2))) return prod;
  std::vector<Tensor> reads{prod};
  if (c.has(2) && c.in[2].tensor.defined()) reads.push_back(c.in[2].tensor);
  return schedule::compute(c.names("bias_add"), c.out, reads, [&](const Exprs& ax) {
    Expr v = alpha == 1.0 ? prod(ax) : prod(ax) * Expr(alpha);
    if (!c.has(2)) return v;
    Expr bias = broadcast_load(c.in[2], ax);
    return v + (beta == 1.0 ? bias : bias * Expr(beta));
  });
}

Result<Tensor> pool(const Ctx& c) {
  auto x = c.tensor(0);
  if (!x) return x.error();
  const Shape& xs = (*x)->shape;
  if (xs.size() != 4) return c.fail("only 2-D pooling (4-D NCHW input) is supported");
  const std::string& op = c.node.op_type;
  const bool global = op == "GlobalAveragePool", is_max = op == "MaxPool";
  // The rows' and columns' axes: NCHW, or NHWC (channels_last.h).
  const size_t hd = is_channels_last(c.node) ? 1 : 2, wd = hd + 1;
  auto ks = global ? Shape{xs[hd], xs[wd]} : c.node.get_ints("kernel_shape", {});
  auto st = c.node.get_ints("strides", {1, 1}), pads = c.node.get_ints("pads", {0, 0, 0, 0});
  if (global) st = {1, 1}, pads = {0, 0, 0, 0};
  if (ks.size() != 2 || st.size() != 2 || pads.size() != 4)
    return c.fail("kernel_shape, strides and pads must be 2-D");
  if (c.node.get_int("ceil_mode", 0) != 0) return c.fail("ceil_mode=1 is not supported");
  if (c.node.get_string("auto_pad", "NOTSET") != "NOTSET")
    return c.fail("auto_pad is not supported");
  for (int64_t d : c.node.get_ints("dilations", {1, 1}))
    if (d != 1) return c.fail("pooling dilations are not supported");
  if (c.node.outputs.size() > 1 && !c.node.outputs[1].empty())
    return c.fail("MaxPool's Indices output is not supported");
  const bool padded = pads[0] || pads[1] || pads[2] || pads[3];
  const Expr fill = is_max ? schedule::float_imm(-std::numeric_limits<double>::infinity())
                           : schedule::float_imm(0.0);
  Tensor src = *x;
  if (padded) {
    Shape ps = xs;
    ps[hd] += pads[0] + pads[2];
    ps[wd] += pads[1] + pads[3];
    src = schedule::compute(c.names("pad"), ps, {*x}, [&](const Exprs& ax) {
      Exprs at = ax;
      at[hd] = ax[hd] - pads[0];
      at[wd] = ax[wd] - pads[1];
      Expr inside = ax[hd] >= pads[0] && ax[hd] < xs[hd] + pads[0] && ax[wd] >= pads[1] &&
                    ax[wd] < xs[wd] + pads[1];
      return schedule::select(inside, (*x)(at), fill);
    });
  }
  auto tap = [&](const Exprs& ax, const Exprs& r) {
    Exprs at = ax;
    at[hd] = st[0] == 1 ? ax[hd] + r[0] : ax[hd] * st[0] + r[0];
    at[wd] = st[1] == 1 ? ax[wd] + r[1] : ax[wd] * st[1] + r[1];
    return src(at);
  };
  if (is_max)
    return schedule::reduce(c.names("pool"), c.out, ks, schedule::ReduceKind::kMax, {src}, tap);
  Tensor sum =
      schedule::reduce(c.names("pool_sum"), c.out, ks, schedule::ReduceKind::kSum, {src}, tap);
  const bool include_pad = c.node.get_int("count_include_pad", 0) != 0;
  return schedule::compute(c.names("pool"), c.out, {sum}, [&](const Exprs& ax) -> Expr {
    if (include_pad || !padded) return sum(ax) / Expr(static_cast<double>(ks[0] * ks[1]));
    // Only real input counts: the window's extent clipped to the input, per axis.
    auto valid = [&](const Expr& o, int64_t s, int64_t pad, int64_t k, int64_t extent) {
      Expr start = o * s - pad;
      return schedule::min(start + k, Expr(extent)) - schedule::max(start, Expr(int64_t{0}));
    };
    Expr n = valid(ax[hd], st[0], pads[0], ks[0], xs[hd]) *
             valid(ax[wd], st[1], pads[1], ks[1], xs[wd]);
    return sum(ax) / schedule::cast(schedule::DType::kFloat32, n);
  });
}

Result<Tensor> injective(const Ctx& c) {
  const std::string& op = c.node.op_type;
  if (op == "Concat") {
    const size_t rank = c.out.size();
    int64_t axis = c.node.get_int("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    std::vector<Tensor> parts;
    for (size_t i = 0; i < c.in.size(); ++i) {
      auto t = c.tensor(i);
      if (!t) return t.error();
      parts.push_back(*t);
    }
    return schedule::compute(c.names("concat"), c.out, parts, [&](const Exprs& ax) {
      // Innermost select for the last part; each earlier part guards its range.
      std::vector<int64_t> offsets{0};
      for (const Tensor& t : parts) offsets.push_back(offsets.back() + t->shape[axis]);
      Expr value;
      for (int i = static_cast<int>(parts.size()) - 1; i >= 0; --i) {
        Exprs idx = ax;
        if (offsets[i]) idx[axis] = ax[axis] - offsets[i];
        Expr v = parts[i](idx);
        value = value.defined() ? schedule::select(ax[axis] < offsets[i + 1], v, value) : v;
      }
      return value;
    });
  }
  auto x = c.tensor(0);
  if (!x) return x.error();
  Tensor t = *x;
  if (op == "Transpose") {
    Shape perm = c.node.get_ints("perm", {});
    if (perm.empty())
      for (int64_t i = static_cast<int64_t>(t->shape.size()) - 1; i >= 0; --i) perm.push_back(i);
    return schedule::compute(c.names("transpose"), c.out, {t}, [&](const Exprs& ax) {
      Exprs idx(perm.size());
      for (size_t d = 0; d < perm.size(); ++d) idx[perm[d]] = ax[d];
      return t(idx);
    });
  }
  // Flatten, Reshape (and Identity of a graph output): the same elements in a new shape.
  if (count(t->shape) != count(c.out))
    return c.fail("the output's element count differs from the input's");
  return schedule::compute(c.names(lower_case(op)), c.out, {t},
                           [&](const Exprs& ax) { return t(reshape_index(ax, c.out, t->shape)); });
}

Result<Tensor> reduction(const Ctx& c) {
  auto x = c.tensor(0);
  if (!x) return x.error();
  const Tensor t = *x;
  const Shape& xs = t->shape;
  const size_t rank = xs.size();
  const std::string& op = c.node.op_type;
  // Softmax and layer norm work on rows of the last axis: a row's index, a point of a row.
  const int64_t n = xs.empty() ? 1 : xs.back();
  Shape rows(xs.begin(), xs.empty() ? xs.end() : xs.end() - 1);
  if (rows.empty()) rows.push_back(1);
  auto row_of = [&](const Exprs& ax) {
    return rank == 1 ? Exprs{Expr(int64_t{0})} : Exprs(ax.begin(), ax.end() - 1);
  };
  auto at = [&](const Exprs& row, const Expr& col) {
    Exprs p = rank == 1 ? Exprs{} : row;
    p.push_back(col);
    return p;
  };
  if (op == "Softmax") {
    int64_t axis = c.node.get_int("axis", c.graph.opset >= 13 ? -1 : 1);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    if (axis != static_cast<int64_t>(rank) - 1)
      return c.fail("Softmax over an axis other than the last is not supported");
    Tensor mx = schedule::reduce(c.names("maxval"), rows, {n}, schedule::ReduceKind::kMax, {t},
                                 [&](const Exprs& ax, const Exprs& r) { return t(at(ax, r[0])); });
    Tensor ex = schedule::compute(c.names("expval"), xs, {t, mx}, [&](const Exprs& ax) {
      return schedule::exp(t(ax) - mx(row_of(ax)));
    });
    Tensor sum =
        schedule::reduce(c.names("expsum"), rows, {n}, schedule::ReduceKind::kSum, {ex},
                         [&](const Exprs& ax, const Exprs& r) { return ex(at(ax, r[0])); });
    return schedule::compute(c.names("softmax"), xs, {ex, sum},
                             [&](const Exprs& ax) { return ex(ax) / sum(row_of(ax)); });
  }
  if (op == "LayerNormalization") {  // opset 17: over the last axis, as schedule::layer_norm
    int64_t axis = c.node.get_int("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    if (axis != static_cast<int64_t>(rank) - 1)
      return c.fail("LayerNormalization over axes other than the last is not supported");
    for (size_t i = 1; i < c.node.outputs.size(); ++i) {
      if (!c.node.outputs[i].empty())
        return c.fail("LayerNormalization's Mean and InvStdDev outputs are not supported");
    }
    if (!c.has(1)) return c.fail("LayerNormalization needs a Scale input");
    const double eps = c.node.get_float("epsilon", 1e-5);
    const Expr inv_n(1.0 / static_cast<double>(n));
    Tensor mean =
        schedule::reduce(c.names("mean"), rows, {n}, schedule::ReduceKind::kSum, {t},
                         [&](const Exprs& ax, const Exprs& r) { return t(at(ax, r[0])) * inv_n; });
    Tensor var = schedule::reduce(c.names("var"), rows, {n}, schedule::ReduceKind::kSum, {t, mean},
                                  [&](const Exprs& ax, const Exprs& r) {
                                    Expr d = t(at(ax, r[0])) - mean(ax);
                                    return d * d * inv_n;
                                  });
    std::vector<Tensor> reads{t, mean, var};
    for (size_t i = 1; i < 3; ++i) {
      if (c.has(i) && c.in[i].tensor.defined()) reads.push_back(c.in[i].tensor);
    }
    return schedule::compute(c.names("layer_norm"), xs, reads, [&](const Exprs& ax) {
      Exprs row = row_of(ax);
      Expr y =
          (t(ax) - mean(row)) * broadcast_load(c.in[1], ax) / schedule::sqrt(var(row) + Expr(eps));
      return c.has(2) ? y + broadcast_load(c.in[2], ax) : y;
    });
  }
  // ReduceMean over `axes` (all when absent), keepdims as the output shape says.
  std::vector<int64_t> axes = c.node.get_ints("axes", {});
  if (axes.empty())
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  std::set<int64_t> reduced;
  for (int64_t a : axes) reduced.insert(a < 0 ? a + static_cast<int64_t>(rank) : a);
  const bool keep = c.node.get_int("keepdims", 1) != 0;
  Shape extents;
  for (int64_t a : reduced) extents.push_back(xs[a]);
  const Expr inv_n(1.0 / static_cast<double>(count(extents)));
  return schedule::reduce(c.names("mean"), c.out, extents, schedule::ReduceKind::kSum, {t},
                          [&](const Exprs& ax, const Exprs& r) {
                            Exprs idx;
                            size_t next_out = 0, next_r = 0;
                            for (size_t i = 0; i < rank; ++i) {
                              if (reduced.count(static_cast<int64_t>(i))) {
                                idx.push_back(r[next_r++]);
                                if (keep) ++next_out;
                              } else {
                                idx.push_back(ax[next_out++]);
                              }
                            }
                            return t(idx) * inv_n;
                          });
}

}  // namespace

OpPattern op_pattern(const std::string& op) {
  static const std::set<std::string> elemwise{"Relu", "Sigmoid", "Tanh",     "Erf",
                                              "Sqrt", "Clip",    "Identity", "Pow"};
  static const std::set<std::string> broadcast{"Add", "Sub", "Mul", "Div"};
  static const std::set<std::string> injective{"Reshape", "Flatten", "Transpose", "Concat"};
  static const std::set<std::string> reduction{"MaxPool", "AveragePool", "GlobalAveragePool",
                                               "Softmax", "ReduceMean",  "LayerNormalization"};
  static const std::set<std::string> anchor{"Conv", "Gemm", "MatMul"};
  if (elemwise.count(op)) return OpPattern::kElemwise;
  if (broadcast.count(op)) return OpPattern::kBroadcast;
  if (injective.count(op)) return OpPattern::kInjective;
  if (reduction.count(op)) return OpPattern::kReduction;
  if (anchor.count(op)) return OpPattern::kAnchor;
  return OpPattern::kOpaque;
}

const char* pattern_name(OpPattern p) {
  switch (p) {
    case OpPattern::kElemwise:
      return "elemwise";
    case OpPattern::kBroadcast:
      return "broadcast";
    case OpPattern::kInjective:
      return "injective";
    case OpPattern::kReduction:
      return "reduction";
    case OpPattern::kAnchor:
      return "anchor";
    case OpPattern::kOpaque:
      return "opaque";
  }
  return "?";
}

std::string StageNamer::operator()(const std::string& base) {
  std::string name = base;
  for (int n = 1; used_.count(name); ++n) name = base + "_" + std::to_string(n);
  used_[name] = 1;
  return name;
}

Result<Tensor> compute_node(const Node& node, const std::vector<Operand>& inputs,
                            const Graph& graph, StageNamer& names) {
  const TensorInfo* info = graph.info(node.outputs.empty() ? "" : node.outputs[0]);
  if (!info) return graph.node_error(node, "output has no shape");
  if (info->dtype != DType::kFloat32)
    return graph.node_error(node, "int64 output that does not fold to a constant");
  if (info->shape.empty())
    return graph.node_error(node, "scalar (rank-0) outputs are not supported");
  Ctx c{node, inputs, graph, names, info->shape};
  Result<Tensor> out = make_error("");
  switch (op_pattern(node.op_type)) {
    case OpPattern::kElemwise:
    case OpPattern::kBroadcast:
      out = node.op_type == "Identity" ? injective(c) : elementwise(c);
      break;
    case OpPattern::kInjective:
      out = injective(c);
      break;
    case OpPattern::kReduction:
      out = node.op_type == "Softmax" || node.op_type == "ReduceMean" ||
                    node.op_type == "LayerNormalization"
                ? reduction(c)
                : pool(c);
      break;
    case OpPattern::kAnchor:
      out = node.op_type == "Conv" ? conv(c) : matmul(c);
      break;
    case OpPattern::kOpaque:
      return graph.node_error(node, "unsupported operator");
  }
  if (!out) return out.error();
  if ((*out)->shape != info->shape) {
    return graph.node_error(node, "computed shape " + shape_text((*out)->shape) +
                                      " differs from the inferred " + shape_text(info->shape));
  }
  return out;
}

}  // namespace tessera::graph

// The operator library (see ops.h): builders that turn one operator and its shape parameters
// into a ComputeDAG of placeholders and compute stages. Each builder validates its shapes
// first (an Error names the op and the field), then defines its stages with compute() and
// reduce() from tensor.h, and gives a summary whose first word is the op name (the workload
// key's prefix). ops_registry.cc maps config names and integer parameters onto these builders.
#include "schedule/ops.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>

#include "schedule/collapse_pixels.h"

namespace tessera::schedule {
namespace {

using Exprs = std::vector<Expr>;

std::string describe(std::string_view field, int64_t value) {
  return std::string(field) + " (" + std::to_string(value) + ")";
}

// Keeps the first validation failure of one op, formatted "<op>: <message>".
class Validator {
 public:
  explicit Validator(std::string op) : op_(std::move(op)) {}

  void fail(const std::string& message) {
    if (message_.empty()) message_ = op_ + ": " + message;
  }
  void positive(std::string_view field, int64_t value) {
    if (value <= 0) fail(describe(field, value) + " must be positive");
  }
  void at_least(std::string_view field, int64_t value, int64_t low) {
    if (value < low) fail(describe(field, value) + " must be >= " + std::to_string(low));
  }
  void divisible(std::string_view field, int64_t value, std::string_view by, int64_t divisor) {
    if (divisor > 0 && value % divisor != 0) {
      fail(describe(field, value) + " is not divisible by " + describe(by, divisor));
    }
  }
  // A shape of at least one dimension, every extent positive.
  void shape(const std::vector<int64_t>& extents) {
    if (extents.empty()) fail("shape must have at least one dimension");
    for (size_t i = 0; i < extents.size(); ++i) {
      positive("shape[" + std::to_string(i) + "]", extents[i]);
    }
  }

  bool ok() const { return message_.empty(); }
  Error error() const { return make_error(message_); }

 private:
  std::string op_;
  std::string message_;
};

// Output extent of a sliding window over `input` (padded by `pad_before` and `pad_after`);
// records an error and returns 0 when the dilated kernel does not fit. Call after the fields
// are checked.
int64_t window_output(Validator& v, std::string_view kernel_field, int64_t kernel,
                      int64_t dilation, std::string_view input_field, int64_t input,
                      int64_t pad_before, int64_t pad_after, int64_t stride) {
  const int64_t span = dilation * (kernel - 1) + 1;
  const int64_t padded = input + pad_before + pad_after;
  if (span <= padded) return (padded - span) / stride + 1;
  std::string kernel_text =
      dilation == 1 ? describe(kernel_field, kernel)
                    : std::string(kernel_field) + " (" + std::to_string(kernel) + ", spanning " +
                          std::to_string(span) + " at dilation " + std::to_string(dilation) + ")";
  v.fail(kernel_text + " is larger than the padded " + std::string(input_field) + " (" +
         std::to_string(padded) + ")");
  return 0;
}

// v * c, leaving out the multiplication by 1 so bodies (and workload keys) stay plain.
Expr scaled(const Expr& v, int64_t c) { return c == 1 ? v : v * c; }

std::string join(const std::vector<int64_t>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

// Stage "pad": `x` with dims `h_dim` and `w_dim` padded by pad_h / pad_w before and
// pad_h_after / pad_w_after after, with `fill`. In the padding the load's indices are out of
// bounds, which is fine: select is lazy in the reference and in codegen, so that load is never
// performed. Symmetric padding gives the same expression (and workload key) as it always has.
Tensor pad_stage(const Tensor& x, size_t h_dim, size_t w_dim, int64_t pad_h, int64_t pad_w,
                 Expr fill, int64_t pad_h_after, int64_t pad_w_after) {
  std::vector<int64_t> shape = x->shape;
  const int64_t height = shape[h_dim], width = shape[w_dim];
  shape[h_dim] += pad_h + pad_h_after;
  shape[w_dim] += pad_w + pad_w_after;
  return compute("pad", shape, {x}, [&](const Exprs& ax) {
    Exprs source = ax;
    Expr inside;
    auto require = [&](Expr c) { inside = inside.defined() ? (inside && c) : std::move(c); };
    struct Side {
      size_t dim;
      int64_t before, after, extent;
    };
    for (const Side& side :
         {Side{h_dim, pad_h, pad_h_after, height}, Side{w_dim, pad_w, pad_w_after, width}}) {
      if (side.before > 0) require(ax[side.dim] >= side.before);
      if (side.after > 0) require(ax[side.dim] < side.extent + side.before);
      if (side.before > 0) source[side.dim] = ax[side.dim] - side.before;
    }
    if (!inside.defined()) return x(source);
    return select(inside, x(source), fill);
  });
}
Tensor pad_stage(const Tensor& x, size_t h_dim, size_t w_dim, int64_t pad_h, int64_t pad_w,
                 Expr fill) {
  return pad_stage(x, h_dim, w_dim, pad_h, pad_w, std::move(fill), pad_h, pad_w);
}

// The per-row stages of an op over the last axis (softmax, layer norm) have the shape of all
// but the last axis; a vector's single row gets shape [1] (index 0) to avoid rank-0 stages.
std::vector<int64_t> row_shape(const std::vector<int64_t>& shape) {
  std::vector<int64_t> rows(shape.begin(), shape.end() - 1);
  if (rows.empty()) rows.push_back(1);
  return rows;
}
// The row of the full-shape point `ax`.
Exprs row_of(const Exprs& ax) {
  Exprs row(ax.begin(), ax.end() - 1);
  if (row.empty()) row.push_back(int_imm(0));
  return row;
}
// The full-shape point at column `column` of the row whose per-row stage axes are `row_axes`.
Exprs at_column(const Exprs& row_axes, size_t rank, const Expr& column) {
  Exprs point = rank == 1 ? Exprs{} : row_axes;
  point.push_back(column);
  return point;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Matrix products

Result<ComputeDAG> matmul(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b) {
  Validator v("matmul");
  v.positive("m", m);
  v.positive("n", n);
  v.positive("k", k);
  if (!v.ok()) return v.error();

  Tensor a = placeholder("A", trans_a ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
  Tensor b = placeholder("B", trans_b ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
  Tensor c = reduce("C", {m, n}, {k}, ReduceKind::kSum, {a, b},
                    [&](const Exprs& ax, const Exprs& r) {
                      Expr lhs = trans_a ? a(r[0], ax[0]) : a(ax[0], r[0]);
                      Expr rhs = trans_b ? b(ax[1], r[0]) : b(r[0], ax[1]);
                      return lhs * rhs;
                    });
  std::ostringstream summary;
  summary << "matmul M=" << m << " N=" << n << " K=" << k << " trans_a=" << int{trans_a}
          << " trans_b=" << int{trans_b};
  return ComputeDAG::make(summary.str(), {a, b}, {c});
}

Result<ComputeDAG> batch_matmul(int64_t batch, int64_t m, int64_t n, int64_t k) {
  Validator v("batch_matmul");
  v.positive("batch", batch);
  v.positive("m", m);
  v.positive("n", n);
  v.positive("k", k);
  if (!v.ok()) return v.error();

  Tensor a = placeholder("A", {batch, m, k});
  Tensor b = placeholder("B", {batch, k, n});
  Tensor c = reduce("C", {batch, m, n}, {k}, ReduceKind::kSum, {a, b},
                    [&](const Exprs& ax, const Exprs& r) {
                      return a(ax[0], ax[1], r[0]) * b(ax[0], r[0], ax[2]);
                    });
  std::ostringstream summary;
  summary << "batch_matmul B=" << batch << " M=" << m << " N=" << n << " K=" << k;
  return ComputeDAG::make(summary.str(), {a, b}, {c});
}

Result<ComputeDAG> dense_bias(int64_t m, int64_t n, int64_t k) {
  Validator v("dense_bias");
  v.positive("m", m);
  v.positive("n", n);
  v.positive("k", k);
  if (!v.ok()) return v.error();

  Tensor x = placeholder("X", {m, k});
  Tensor w = constant_input("W", {n, k});
  Tensor bias = constant_input("bias", {n});
  Tensor dense = reduce("dense", {m, n}, {k}, ReduceKind::kSum, {x, w},
                        [&](const Exprs& ax, const Exprs& r) {
                          return x(ax[0], r[0]) * w(ax[1], r[0]);
                        });
  Tensor y = compute("Y", {m, n}, {dense, bias},
                     [&](const Exprs& ax) { return dense(ax) + bias(ax[1]); });
  std::ostringstream summary;
  summary << "dense_bias M=" << m << " N=" << n << " K=" << k;
  return ComputeDAG::make(summary.str(), {x, w, bias}, {y});
}

// ---------------------------------------------------------------------------------------------
// Convolution

int64_t pad_bottom_of(const Conv2dParams& p) { return p.pad_bottom < 0 ? p.pad_h : p.pad_bottom; }
int64_t pad_right_of(const Conv2dParams& p) { return p.pad_right < 0 ? p.pad_w : p.pad_right; }

Result<void> validate_conv2d(const Conv2dParams& p, int64_t* out_h, int64_t* out_w) {
  Validator v("conv2d");
  v.positive("batch", p.batch);
  v.positive("in_channels", p.in_channels);
  v.positive("height", p.height);
  v.positive("width", p.width);
  v.positive("out_channels", p.out_channels);
  v.positive("kernel_h", p.kernel_h);
  v.positive("kernel_w", p.kernel_w);
  v.at_least("stride_h", p.stride_h, 1);
  v.at_least("stride_w", p.stride_w, 1);
  v.at_least("pad_h", p.pad_h, 0);
  v.at_least("pad_w", p.pad_w, 0);
  v.at_least("pad_bottom", p.pad_bottom, -1);
  v.at_least("pad_right", p.pad_right, -1);
  v.at_least("dilation_h", p.dilation_h, 1);
  v.at_least("dilation_w", p.dilation_w, 1);
  v.at_least("groups", p.groups, 1);
  if (!v.ok()) return v.error();
  v.divisible("in_channels", p.in_channels, "groups", p.groups);
  v.divisible("out_channels", p.out_channels, "groups", p.groups);
  *out_h = window_output(v, "kernel_h", p.kernel_h, p.dilation_h, "height", p.height, p.pad_h,
                         pad_bottom_of(p), p.stride_h);
  *out_w = window_output(v, "kernel_w", p.kernel_w, p.dilation_w, "width", p.width, p.pad_w,
                         pad_right_of(p), p.stride_w);
  if (!v.ok()) return v.error();
  return {};
}

namespace {

std::vector<int64_t> conv2d_input_shape(const Conv2dParams& p) {
  if (p.layout == Layout::kNCHW) return {p.batch, p.in_channels, p.height, p.width};
  return {p.batch, p.height, p.width, p.in_channels};
}
std::vector<int64_t> conv2d_weight_shape(const Conv2dParams& p) {
  const int64_t in_per_group = p.in_channels / p.groups;
  if (p.layout == Layout::kNCHW) return {p.out_channels, in_per_group, p.kernel_h, p.kernel_w};
  return {p.kernel_h, p.kernel_w, in_per_group, p.out_channels};
}

}  // namespace

Result<Tensor> conv2d_compute(const Tensor& x, const Tensor& weight, const Conv2dParams& p) {
  int64_t out_h = 0, out_w = 0;
  if (auto valid = validate_conv2d(p, &out_h, &out_w); !valid) return valid.error();
  if (x->shape != conv2d_input_shape(p)) {
    return make_error("conv2d: input '" + x->name + "' has shape [" + join(x->shape) +
                      "], the parameters say [" + join(conv2d_input_shape(p)) + "]");
  }
  if (weight->shape != conv2d_weight_shape(p)) {
    return make_error("conv2d: weight '" + weight->name + "' has shape [" + join(weight->shape) +
                      "], the parameters say [" + join(conv2d_weight_shape(p)) + "]");
  }

  const bool nchw = p.layout == Layout::kNCHW;
  const int64_t n = p.batch, c = p.in_channels, k = p.out_channels;
  const int64_t r = p.kernel_h, s = p.kernel_w;
  const int64_t in_per_group = c / p.groups, out_per_group = k / p.groups;
  const size_t h_dim = nchw ? 2 : 1, w_dim = nchw ? 3 : 2;
  const int64_t pad_b = pad_bottom_of(p), pad_r = pad_right_of(p);
  const bool padded = p.pad_h > 0 || p.pad_w > 0 || pad_b > 0 || pad_r > 0;
  Tensor src =
      padded ? pad_stage(x, h_dim, w_dim, p.pad_h, p.pad_w, float_imm(0.0), pad_b, pad_r) : x;

  // The input channel that output channel `oc` reads at in-group channel `rc`.
  auto in_channel = [&](const Expr& oc, const Expr& rc) -> Expr {
    if (p.groups == 1) return rc;
    Expr group = out_per_group == 1 ? oc : oc / out_per_group;
    return scaled(group, in_per_group) + rc;
  };
  auto input_row = [&](const Expr& out, const Expr& tap) {
    return scaled(out, p.stride_h) + scaled(tap, p.dilation_h);
  };
  auto input_col = [&](const Expr& out, const Expr& tap) {
    return scaled(out, p.stride_w) + scaled(tap, p.dilation_w);
  };

  if (nchw) {
    // conv[n, k, oh, ow] = sum over (rc, rr, rs) of src[n, ch, ih, iw] * W[k, rc, rr, rs]
    return reduce("conv", {n, k, out_h, out_w}, {in_per_group, r, s}, ReduceKind::kSum,
                  {src, weight}, [&](const Exprs& ax, const Exprs& rd) {
                    return src(ax[0], in_channel(ax[1], rd[0]), input_row(ax[2], rd[1]),
                               input_col(ax[3], rd[2])) *
                           weight(ax[1], rd[0], rd[1], rd[2]);
                  });
  }
  // conv[n, oh, ow, k] = sum over (rr, rs, rc) of src[n, ih, iw, ch] * W[rr, rs, rc, k]
  return reduce("conv", {n, out_h, out_w, k}, {r, s, in_per_group}, ReduceKind::kSum,
                {src, weight}, [&](const Exprs& ax, const Exprs& rd) {
                  return src(ax[0], input_row(ax[1], rd[0]), input_col(ax[2], rd[1]),
                             in_channel(ax[3], rd[2])) *
                         weight(rd[0], rd[1], rd[2], ax[3]);
                });
}

Result<ComputeDAG> conv2d(const Conv2dParams& p, bool pixels_as_one_axis) {
  int64_t out_h = 0, out_w = 0;
  if (auto valid = validate_conv2d(p, &out_h, &out_w); !valid) return valid.error();
  Tensor x = placeholder("X", conv2d_input_shape(p));
  Tensor weight = constant_input("W", conv2d_weight_shape(p));
  auto conv = conv2d_compute(x, weight, p);
  if (!conv) return conv.error();

  const bool nchw = p.layout == Layout::kNCHW;
  std::ostringstream summary;
  summary << "conv2d N=" << p.batch << " C=" << p.in_channels << " H=" << p.height
          << " W=" << p.width << " K=" << p.out_channels << " R=" << p.kernel_h
          << " S=" << p.kernel_w << " stride=" << p.stride_h << "," << p.stride_w
          << " pad=" << p.pad_h << "," << p.pad_w;
  if (pad_bottom_of(p) != p.pad_h || pad_right_of(p) != p.pad_w) {
    summary << " pad_end=" << pad_bottom_of(p) << "," << pad_right_of(p);
  }
  summary << " dilation=" << p.dilation_h << "," << p.dilation_w << " groups=" << p.groups
          << " layout=" << (nchw ? "NCHW" : "NHWC");
  auto dag = ComputeDAG::make(summary.str(), {x, weight}, {*conv});
  if (!dag || !pixels_as_one_axis) return dag;
  return with_pixels_as_one_axis(std::move(*dag));
}

// ---------------------------------------------------------------------------------------------
// Pooling

namespace {

Result<ComputeDAG> pool2d(const Pool2dParams& p, bool is_max) {
  const char* op = is_max ? "max_pool2d" : "avg_pool2d";
  Validator v(op);
  v.positive("batch", p.batch);
  v.positive("channels", p.channels);
  v.positive("height", p.height);
  v.positive("width", p.width);
  v.positive("kernel_h", p.kernel_h);
  v.positive("kernel_w", p.kernel_w);
  v.at_least("stride_h", p.stride_h, 1);
  v.at_least("stride_w", p.stride_w, 1);
  v.at_least("pad_h", p.pad_h, 0);
  v.at_least("pad_w", p.pad_w, 0);
  if (!v.ok()) return v.error();
  // As in PyTorch: with at most half a kernel of padding every window covers real input, so a
  // max pool never yields -inf.
  if (2 * p.pad_h > p.kernel_h) {
    v.fail(describe("pad_h", p.pad_h) + " must be at most half of " +
           describe("kernel_h", p.kernel_h));
  }
  if (2 * p.pad_w > p.kernel_w) {
    v.fail(describe("pad_w", p.pad_w) + " must be at most half of " +
           describe("kernel_w", p.kernel_w));
  }
  const int64_t out_h =
      window_output(v, "kernel_h", p.kernel_h, 1, "height", p.height, p.pad_h, p.pad_h, p.stride_h);
  const int64_t out_w =
      window_output(v, "kernel_w", p.kernel_w, 1, "width", p.width, p.pad_w, p.pad_w, p.stride_w);
  if (!v.ok()) return v.error();

  const std::vector<int64_t> out_shape{p.batch, p.channels, out_h, out_w};
  Tensor x = placeholder("X", {p.batch, p.channels, p.height, p.width});
  // Max pool pads with -inf (padding never wins); average pool with zeros (padding counts).
  Expr fill = is_max ? float_imm(-std::numeric_limits<double>::infinity()) : float_imm(0.0);
  const bool padded = p.pad_h > 0 || p.pad_w > 0;
  Tensor src = padded ? pad_stage(x, 2, 3, p.pad_h, p.pad_w, fill) : x;
  auto tap = [&](const Exprs& ax, const Exprs& r) {
    return src(ax[0], ax[1], scaled(ax[2], p.stride_h) + r[0], scaled(ax[3], p.stride_w) + r[1]);
  };

  Tensor pool;
  if (is_max) {
    pool = reduce("pool", out_shape, {p.kernel_h, p.kernel_w}, ReduceKind::kMax, {src}, tap);
  } else {
    Tensor sum =
        reduce("pool_sum", out_shape, {p.kernel_h, p.kernel_w}, ReduceKind::kSum, {src}, tap);
    const double window = static_cast<double>(p.kernel_h * p.kernel_w);
    pool = compute("pool", out_shape, {sum},
                   [&](const Exprs& ax) { return sum(ax) / Expr(window); });
  }

  std::ostringstream summary;
  summary << op << " N=" << p.batch << " C=" << p.channels << " H=" << p.height
          << " W=" << p.width << " R=" << p.kernel_h << " S=" << p.kernel_w
          << " stride=" << p.stride_h << "," << p.stride_w << " pad=" << p.pad_h << ","
          << p.pad_w;
  return ComputeDAG::make(summary.str(), {x}, {pool});
}

}  // namespace

Result<ComputeDAG> max_pool2d(const Pool2dParams& p) { return pool2d(p, /*is_max=*/true); }
Result<ComputeDAG> avg_pool2d(const Pool2dParams& p) { return pool2d(p, /*is_max=*/false); }

Result<ComputeDAG> global_avg_pool2d(int64_t batch, int64_t channels, int64_t height,
                                     int64_t width) {
  Validator v("global_avg_pool2d");
  v.positive("batch", batch);
  v.positive("channels", channels);
  v.positive("height", height);
  v.positive("width", width);
  if (!v.ok()) return v.error();

  Tensor x = placeholder("X", {batch, channels, height, width});
  Tensor sum = reduce("pool_sum", {batch, channels}, {height, width}, ReduceKind::kSum, {x},
                      [&](const Exprs& ax, const Exprs& r) {
                        return x(ax[0], ax[1], r[0], r[1]);
                      });
  const double area = static_cast<double>(height * width);
  Tensor pool = compute("pool", {batch, channels}, {sum},
                        [&](const Exprs& ax) { return sum(ax) / Expr(area); });
  std::ostringstream summary;
  summary << "global_avg_pool2d N=" << batch << " C=" << channels << " H=" << height
          << " W=" << width;
  return ComputeDAG::make(summary.str(), {x}, {pool});
}

// ---------------------------------------------------------------------------------------------
// Elementwise and normalisation

namespace {

const char* elementwise_name(Elementwise op) {
  switch (op) {
    case Elementwise::kRelu: return "relu";
    case Elementwise::kAdd: return "add";
    case Elementwise::kMul: return "mul";
    case Elementwise::kGelu: return "gelu";
    case Elementwise::kSigmoid: return "sigmoid";
  }
  return "elementwise";
}

}  // namespace

Result<ComputeDAG> elementwise(Elementwise op, std::vector<int64_t> shape) {
  const char* name = elementwise_name(op);
  Validator v(name);
  v.shape(shape);
  if (!v.ok()) return v.error();
  const std::string summary = std::string(name) + " shape=" + join(shape);

  if (op == Elementwise::kAdd || op == Elementwise::kMul) {
    Tensor a = placeholder("A", shape);
    Tensor b = placeholder("B", shape);
    Tensor y = compute("Y", shape, {a, b}, [&](const Exprs& ax) {
      return op == Elementwise::kAdd ? a(ax) + b(ax) : a(ax) * b(ax);
    });
    return ComputeDAG::make(summary, {a, b}, {y});
  }

  Tensor x = placeholder("X", shape);
  Tensor y = compute("Y", shape, {x}, [&](const Exprs& ax) -> Expr {
    Expr e = x(ax);
    switch (op) {
      case Elementwise::kRelu:
        return max(e, float_imm(0.0));
      case Elementwise::kGelu:  // 0.5 * x * (1 + erf(x / sqrt(2)))
        return Expr(0.5) * e * (Expr(1.0) + erf(e / Expr(std::sqrt(2.0))));
      case Elementwise::kSigmoid:  // 1 / (1 + exp(-x))
        return Expr(1.0) / (Expr(1.0) + exp(-e));
      case Elementwise::kAdd:
      case Elementwise::kMul:
        break;  // binary, handled above
    }
    return e;
  });
  return ComputeDAG::make(summary, {x}, {y});
}

Result<ComputeDAG> softmax(std::vector<int64_t> shape) {
  Validator v("softmax");
  v.shape(shape);
  if (!v.ok()) return v.error();

  const size_t rank = shape.size();
  const int64_t n = shape.back();
  const std::vector<int64_t> rows = row_shape(shape);
  Tensor x = placeholder("X", shape);
  Tensor maxval = reduce("maxval", rows, {n}, ReduceKind::kMax, {x},
                         [&](const Exprs& ax, const Exprs& r) {
                           return x(at_column(ax, rank, r[0]));
                         });
  Tensor expval = compute("expval", shape, {x, maxval}, [&](const Exprs& ax) {
    return exp(x(ax) - maxval(row_of(ax)));
  });
  Tensor expsum = reduce("expsum", rows, {n}, ReduceKind::kSum, {expval},
                         [&](const Exprs& ax, const Exprs& r) {
                           return expval(at_column(ax, rank, r[0]));
                         });
  Tensor out = compute("softmax", shape, {expval, expsum}, [&](const Exprs& ax) {
    return expval(ax) / expsum(row_of(ax));
  });
  return ComputeDAG::make("softmax shape=" + join(shape), {x}, {out});
}

Result<ComputeDAG> layer_norm(std::vector<int64_t> shape, double eps) {
  Validator v("layer_norm");
  v.shape(shape);
  if (!(eps > 0) || !std::isfinite(eps)) {
    v.fail("eps (" + std::to_string(eps) + ") must be positive and finite");
  }
  if (!v.ok()) return v.error();

  const size_t rank = shape.size();
  const int64_t n = shape.back();
  const std::vector<int64_t> rows = row_shape(shape);
  const Expr inv_n(1.0 / static_cast<double>(n));
  Tensor x = placeholder("X", shape);
  Tensor gamma = constant_input("gamma", {n});
  Tensor beta = constant_input("beta", {n});
  // mean = sum(x) / n and var = sum((x - mean)^2) / n, each one reduction with the 1/n inside.
  Tensor mean = reduce("mean", rows, {n}, ReduceKind::kSum, {x},
                       [&](const Exprs& ax, const Exprs& r) {
                         return x(at_column(ax, rank, r[0])) * inv_n;
                       });
  Tensor variance = reduce("var", rows, {n}, ReduceKind::kSum, {x, mean},
                           [&](const Exprs& ax, const Exprs& r) {
                             Expr d = x(at_column(ax, rank, r[0])) - mean(ax);
                             return d * d * inv_n;
                           });
  auto normalize = [&](const Exprs& ax) {
    const Expr& column = ax.back();
    Exprs row = row_of(ax);
    return (x(ax) - mean(row)) * gamma(column) / sqrt(variance(row) + Expr(eps)) +
           beta(column);
  };
  Tensor out = compute("layer_norm", shape, {x, gamma, beta, mean, variance}, normalize);
  std::ostringstream summary;
  summary << "layer_norm shape=" << join(shape) << " eps=" << eps;
  return ComputeDAG::make(summary.str(), {x, gamma, beta}, {out});
}

}  // namespace tessera::schedule

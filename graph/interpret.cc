// The double-precision graph interpreter (see interpret.h): one function per operator family,
// written from the ONNX operator specifications, with plain index loops.
#include "graph/interpret.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "graph/channels_last.h"
#include "graph/winograd.h"

namespace tessera::graph {
namespace {

using Shape = std::vector<int64_t>;

int64_t count(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}
int64_t norm_axis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

Value make(Shape shape, DType dtype = DType::kFloat32) {
  Value v;
  v.data.assign(count(shape), 0.0);
  v.shape = std::move(shape);
  v.dtype = dtype;
  return v;
}

// numpy broadcasting of any number of operands; calls fn(output index, operand flat indices).
Result<Shape> broadcast_shape(const std::vector<const Value*>& in) {
  size_t rank = 0;
  for (auto* v : in) rank = std::max(rank, v->shape.size());
  Shape out(rank, 1);
  for (auto* v : in) {
    for (size_t i = 0; i < v->shape.size(); ++i) {
      int64_t& o = out[rank - v->shape.size() + i];
      int64_t d = v->shape[i];
      if (o == 1)
        o = d;
      else if (d != 1 && d != o)
        return make_error("shapes do not broadcast");
    }
  }
  return out;
}
int64_t broadcast_index(const Value& v, const Shape& out, const std::vector<int64_t>& idx) {
  int64_t flat = 0;
  const size_t off = out.size() - v.shape.size();
  for (size_t i = 0; i < v.shape.size(); ++i)
    flat = flat * v.shape[i] + (v.shape[i] == 1 ? 0 : idx[off + i]);
  return flat;
}
void for_each_index(const Shape& shape,
                    const std::function<void(const std::vector<int64_t>&, int64_t)>& fn) {
  std::vector<int64_t> idx(shape.size(), 0);
  const int64_t n = count(shape);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(idx, flat);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

Result<Value> binary(const std::string& op, const Value& a, const Value& b) {
  auto shape = broadcast_shape({&a, &b});
  if (!shape) return shape.error();
  Value out = make(*shape, a.dtype);
  for_each_index(*shape, [&](const std::vector<int64_t>& idx, int64_t flat) {
    double x = a.data[broadcast_index(a, *shape, idx)], y = b.data[broadcast_index(b, *shape, idx)];
    double r = op == "Add"   ? x + y
               : op == "Sub" ? x - y
               : op == "Mul" ? x * y
               : op == "Div" ? (a.dtype == DType::kInt64 ? std::trunc(x / y) : x / y)
                             : std::pow(x, y);
    out.data[flat] = r;
  });
  return out;
}

Value unary(const Value& x, const std::function<double(double)>& fn) {
  Value out = x;
  for (double& v : out.data) v = fn(v);
  return out;
}

// Conv, NCHW, ONNX attributes; pads are [top, left, bottom, right].
Value conv(const Node& node, const Value& x, const Value& w, const Value* bias) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t k = w.shape[0], cg = w.shape[1], r = w.shape[2], s = w.shape[3];
  const int64_t groups = node.get_int("group", 1);
  auto st = node.get_ints("strides", {1, 1}), dil = node.get_ints("dilations", {1, 1});
  auto pads = node.get_ints("pads", {0, 0, 0, 0});
  const int64_t oh = (h + pads[0] + pads[2] - (dil[0] * (r - 1) + 1)) / st[0] + 1;
  const int64_t ow = (wd + pads[1] + pads[3] - (dil[1] * (s - 1) + 1)) / st[1] + 1;
  Value out = make({n, k, oh, ow});
  const int64_t kg = k / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < k; ++oc)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double acc = bias ? bias->data[oc] : 0.0;
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t ry = 0; ry < r; ++ry)
              for (int64_t rx = 0; rx < s; ++rx) {
                int64_t iy = y * st[0] + ry * dil[0] - pads[0],
                        ix = xo * st[1] + rx * dil[1] - pads[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                int64_t ch = (oc / kg) * cg + ic;
                acc += x.data[((b * c + ch) * h + iy) * wd + ix] *
                       w.data[((oc * cg + ic) * r + ry) * s + rx];
              }
          out.data[((b * k + oc) * oh + y) * ow + xo] = acc;
        }
  return out;
}

// A Winograd conv (winograd.h): NHWC input x, weights u [16, C, K] in the Winograd domain;
// NHWC output. Each 2x2 output block is A^T [sum over c of U_c . (B^T d_c B)] A, with B^T and
// A^T written out here (an implementation of its own, beside the tensor expressions).
Value winograd_conv(const Node& node, const Value& x, const Value& u, const Value* bias) {
  static const double bt[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static const double at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
  const int64_t n = x.shape[0], h = x.shape[1], wd = x.shape[2], c = x.shape[3], k = u.shape[2];
  auto pads = node.get_ints("pads", {0, 0, 0, 0});
  const int64_t oh = h + pads[0] + pads[2] - 2, ow = wd + pads[1] + pads[3] - 2;
  Value out = make({n, oh, ow, k});
  std::vector<double> m(static_cast<size_t>(16 * k));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ty = 0; ty < oh; ty += 2)
      for (int64_t tx = 0; tx < ow; tx += 2) {
        std::fill(m.begin(), m.end(), 0.0);
        for (int64_t ic = 0; ic < c; ++ic) {
          double d[4][4], v[4][4];
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
              const int64_t iy = ty + i - pads[0], ix = tx + j - pads[1];
              d[i][j] = iy < 0 || iy >= h || ix < 0 || ix >= wd ? 0.0 : x.data[((b * h + iy) * wd + ix) * c + ic];
            }
          for (int e = 0; e < 4; ++e)
            for (int f = 0; f < 4; ++f) {
              v[e][f] = 0;
              for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) v[e][f] += bt[e][i] * d[i][j] * bt[f][j];
            }
          for (int ef = 0; ef < 16; ++ef)
            for (int64_t oc = 0; oc < k; ++oc) m[ef * k + oc] += u.data[(ef * c + ic) * k + oc] * v[ef / 4][ef % 4];
        }
        for (int i = 0; i < 2 && ty + i < oh; ++i)
          for (int j = 0; j < 2 && tx + j < ow; ++j)
            for (int64_t oc = 0; oc < k; ++oc) {
              double acc = bias ? bias->data[oc] : 0.0;
              for (int e = 0; e < 4; ++e)
                for (int f = 0; f < 4; ++f) acc += at[i][e] * m[(e * 4 + f) * k + oc] * at[j][f];
              out.data[((b * oh + ty + i) * ow + tx + j) * k + oc] = acc;
            }
      }
  return out;
}

Value pool(const Node& node, const Value& x, bool is_max) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  auto ks = node.get_ints("kernel_shape", {1, 1});
  auto st = node.get_ints("strides", {1, 1});
  auto pads = node.get_ints("pads", {0, 0, 0, 0});
  const bool include_pad = node.get_int("count_include_pad", 0) != 0;
  const int64_t oh = (h + pads[0] + pads[2] - ks[0]) / st[0] + 1;
  const int64_t ow = (wd + pads[1] + pads[3] - ks[1]) / st[1] + 1;
  Value out = make({n, c, oh, ow});
  for (int64_t b = 0; b < n * c; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo) {
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t valid = 0;
        for (int64_t ry = 0; ry < ks[0]; ++ry)
          for (int64_t rx = 0; rx < ks[1]; ++rx) {
            int64_t iy = y * st[0] + ry - pads[0], ix = xo * st[1] + rx - pads[1];
            if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
            double v = x.data[(b * h + iy) * wd + ix];
            acc = is_max ? std::max(acc, v) : acc + v;
            ++valid;
          }
        if (!is_max) acc /= static_cast<double>(include_pad ? ks[0] * ks[1] : valid);
        out.data[(b * oh + y) * ow + xo] = acc;
      }
  return out;
}

// numpy matmul for rank >= 2 operands with broadcast batch dimensions.
Result<Value> matmul(const Value& a, const Value& b) {
  if (a.shape.size() < 2 || b.shape.size() < 2)
    return make_error("MatMul needs operands of rank >= 2");
  const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = b.shape.back();
  if (b.shape[b.shape.size() - 2] != k) return make_error("MatMul inner dimensions differ");
  Value a_batch{Shape(a.shape.begin(), a.shape.end() - 2), {}, a.dtype};
  Value b_batch{Shape(b.shape.begin(), b.shape.end() - 2), {}, b.dtype};
  auto batch = broadcast_shape({&a_batch, &b_batch});
  if (!batch) return batch.error();
  Shape out_shape = *batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Value out = make(out_shape);
  for_each_index(*batch, [&](const std::vector<int64_t>& idx, int64_t flat) {
    const int64_t ia = broadcast_index(a_batch, *batch, idx),
                  ib = broadcast_index(b_batch, *batch, idx);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += a.data[(ia * m + i) * k + p] * b.data[(ib * k + p) * n + j];
        out.data[(flat * m + i) * n + j] = acc;
      }
  });
  return out;
}

Value transpose(const Value& x, std::vector<int64_t> perm) {
  if (perm.empty())
    for (int64_t i = static_cast<int64_t>(x.shape.size()) - 1; i >= 0; --i) perm.push_back(i);
  Shape out_shape;
  for (int64_t p : perm) out_shape.push_back(x.shape[p]);
  Value out = make(out_shape, x.dtype);
  const auto in_strides = strides_of(x.shape);
  for_each_index(out_shape, [&](const std::vector<int64_t>& idx, int64_t flat) {
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d) src += idx[d] * in_strides[perm[d]];
    out.data[flat] = x.data[src];
  });
  return out;
}

// Applies `fn` to every run of values along `axis` (reductions and softmax).
void along_axis(const Shape& shape, int64_t axis,
                const std::function<void(int64_t base, int64_t stride)>& fn) {
  const int64_t outer = count(Shape(shape.begin(), shape.begin() + axis));
  const int64_t inner = count(Shape(shape.begin() + axis + 1, shape.end()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) fn(o * shape[axis] * inner + i, inner);
}

Result<Value> evaluate_one(const Node& node, const std::vector<const Value*>& in, int opset) {
  const std::string& op = node.op_type;
  auto arg = [&](size_t i) -> const Value* { return i < in.size() ? in[i] : nullptr; };
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow")
    return binary(op, *in[0], *in[1]);
  if (op == "Relu") return unary(*in[0], [](double v) { return std::max(v, 0.0); });
  if (op == "Sigmoid") return unary(*in[0], [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  if (op == "Tanh") return unary(*in[0], [](double v) { return std::tanh(v); });
  if (op == "Erf") return unary(*in[0], [](double v) { return std::erf(v); });
  if (op == "Sqrt") return unary(*in[0], [](double v) { return std::sqrt(v); });
  if (op == "Identity") return *in[0];
  if (op == "Clip") {
    double lo = node.get_float("min", -std::numeric_limits<double>::infinity());
    double hi = node.get_float("max", std::numeric_limits<double>::infinity());
    if (arg(1)) lo = arg(1)->data[0];
    if (arg(2)) hi = arg(2)->data[0];
    return unary(*in[0], [&](double v) { return std::min(std::max(v, lo), hi); });
  }
  if (op == "Conv") return conv(node, *in[0], *in[1], arg(2));
  if (op == "MaxPool" || op == "AveragePool") return pool(node, *in[0], op == "MaxPool");
  if (op == "GlobalAveragePool") {
    Node n = node;
    n.attrs["kernel_shape"] = std::vector<int64_t>{in[0]->shape[2], in[0]->shape[3]};
    return pool(n, *in[0], false);
  }
  if (op == "BatchNormalization") {
    const double eps = node.get_float("epsilon", 1e-5);
    Value out = *in[0];
    const int64_t c = out.shape[1], inner = count(Shape(out.shape.begin() + 2, out.shape.end()));
    for (int64_t i = 0; i < count(out.shape); ++i) {
      int64_t ch = (i / inner) % c;
      out.data[i] =
          (out.data[i] - in[3]->data[ch]) / std::sqrt(in[4]->data[ch] + eps) * in[1]->data[ch] +
          in[2]->data[ch];
    }
    return out;
  }
  if (op == "Gemm") {
    Value a = node.get_int("transA", 0) ? transpose(*in[0], {}) : *in[0];
    Value b = node.get_int("transB", 0) ? transpose(*in[1], {}) : *in[1];
    auto prod = matmul(a, b);
    if (!prod) return prod.error();
    const double alpha = node.get_float("alpha", 1.0), beta = node.get_float("beta", 1.0);
    for (double& v : prod->data) v *= alpha;
    if (!arg(2)) return prod;
    Value c = unary(*arg(2), [&](double v) { return v * beta; });
    return binary("Add", *prod, c);
  }
  if (op == "MatMul") return matmul(*in[0], *in[1]);
  if (op == "Transpose") return transpose(*in[0], node.get_ints("perm", {}));
  if (op == "Flatten" || op == "Reshape") {
    Value out = *in[0];
    if (op == "Flatten") {
      const int64_t axis = norm_axis(node.get_int("axis", 1), out.shape.size());
      out.shape = {count(Shape(out.shape.begin(), out.shape.begin() + axis)),
                   count(Shape(out.shape.begin() + axis, out.shape.end()))};
      return out;
    }
    Shape target;
    int64_t infer = -1, known = 1;
    for (size_t i = 0; i < in[1]->data.size(); ++i) {
      int64_t d = static_cast<int64_t>(in[1]->data[i]);
      if (d == 0) d = in[0]->shape[i];
      if (d == -1)
        infer = static_cast<int64_t>(i);
      else
        known *= d;
      target.push_back(d);
    }
    if (infer >= 0) target[infer] = count(in[0]->shape) / known;
    if (count(target) != count(in[0]->shape))
      return make_error("Reshape to " + shape_text(target) + " changes the element count");
    out.shape = target;
    return out;
  }
  if (op == "Softmax") {
    Value out = *in[0];
    const size_t rank = out.shape.size();
    int64_t axis = norm_axis(node.get_int("axis", opset >= 13 ? -1 : 1), rank);
    Shape work = out.shape;
    if (opset < 13) {  // before 13: softmax of the 2-D coercion at `axis`
      work = {count(Shape(out.shape.begin(), out.shape.begin() + axis)),
              count(Shape(out.shape.begin() + axis, out.shape.end()))};
      axis = 1;
    }
    along_axis(work, axis, [&](int64_t base, int64_t stride) {
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t i = 0; i < work[axis]; ++i) mx = std::max(mx, out.data[base + i * stride]);
      for (int64_t i = 0; i < work[axis]; ++i) sum += std::exp(out.data[base + i * stride] - mx);
      for (int64_t i = 0; i < work[axis]; ++i)
        out.data[base + i * stride] = std::exp(out.data[base + i * stride] - mx) / sum;
    });
    return out;
  }
  if (op == "LayerNormalization") {  // normalizes over the axes from `axis` to the last
    Value out = *in[0];
    const size_t rank = out.shape.size();
    const int64_t axis = norm_axis(node.get_int("axis", -1), rank);
    const double eps = node.get_float("epsilon", 1e-5);
    const int64_t inner = count(Shape(out.shape.begin() + axis, out.shape.end()));
    auto param = [&](const Value* v, int64_t i, double fallback) {
      if (!v) return fallback;
      return v->data.size() == 1 ? v->data[0] : v->data[i % static_cast<int64_t>(v->data.size())];
    };
    for (int64_t base = 0; base < count(out.shape); base += inner) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < inner; ++i) mean += out.data[base + i];
      mean /= static_cast<double>(inner);
      for (int64_t i = 0; i < inner; ++i)
        var += (out.data[base + i] - mean) * (out.data[base + i] - mean);
      var /= static_cast<double>(inner);
      for (int64_t i = 0; i < inner; ++i) {
        out.data[base + i] =
            (out.data[base + i] - mean) / std::sqrt(var + eps) * param(arg(1), i, 1.0) +
            param(arg(2), i, 0.0);
      }
    }
    return out;
  }
  if (op == "ReduceMean") {
    const size_t rank = in[0]->shape.size();
    std::vector<int64_t> axes = node.get_ints("axes", {});
    if (axes.empty())
      for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes) reduced[norm_axis(a, rank)] = true;
    Shape kept;
    for (size_t i = 0; i < rank; ++i) kept.push_back(reduced[i] ? 1 : in[0]->shape[i]);
    Value out = make(kept);
    for_each_index(in[0]->shape, [&](const std::vector<int64_t>& idx, int64_t flat) {
      int64_t o = 0;
      for (size_t i = 0; i < rank; ++i) o = o * kept[i] + (reduced[i] ? 0 : idx[i]);
      out.data[o] += in[0]->data[flat];
    });
    const double n = static_cast<double>(count(in[0]->shape) / count(kept));
    for (double& v : out.data) v /= n;
    if (!node.get_int("keepdims", 1)) {
      Shape squeezed;
      for (size_t i = 0; i < rank; ++i)
        if (!reduced[i]) squeezed.push_back(kept[i]);
      out.shape = squeezed;
    }
    return out;
  }
  if (op == "Concat") {
    const size_t rank = in[0]->shape.size();
    const int64_t axis = norm_axis(node.get_int("axis", 0), rank);
    Shape shape = in[0]->shape;
    shape[axis] = 0;
    for (auto* v : in) shape[axis] += v->shape[axis];
    Value out = make(shape, in[0]->dtype);
    const int64_t outer = count(Shape(shape.begin(), shape.begin() + axis));
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (auto* v : in) {
        const int64_t run = count(Shape(v->shape.begin() + axis, v->shape.end()));
        for (int64_t i = 0; i < run; ++i) out.data[pos++] = v->data[o * run + i];
      }
    return out;
  }
  if (op == "Shape") {
    const int64_t rank = static_cast<int64_t>(in[0]->shape.size());
    int64_t start = std::clamp(norm_axis(node.get_int("start", 0), rank), int64_t{0}, rank);
    int64_t end = std::clamp(norm_axis(node.get_int("end", rank), rank), int64_t{0}, rank);
    Value out = make({std::max<int64_t>(end - start, 0)}, DType::kInt64);
    for (int64_t i = start; i < end; ++i)
      out.data[i - start] = static_cast<double>(in[0]->shape[i]);
    return out;
  }
  if (op == "Gather") {
    const Value& data = *in[0];
    const Value& indices = *in[1];
    const int64_t axis = norm_axis(node.get_int("axis", 0), data.shape.size());
    Shape shape(data.shape.begin(), data.shape.begin() + axis);
    shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
    shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
    Value out = make(shape, data.dtype);
    const int64_t outer = count(Shape(data.shape.begin(), data.shape.begin() + axis));
    const int64_t inner = count(Shape(data.shape.begin() + axis + 1, data.shape.end()));
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (double id : indices.data) {
        int64_t j = static_cast<int64_t>(id);
        if (j < 0) j += data.shape[axis];
        if (j < 0 || j >= data.shape[axis]) return make_error("Gather index out of range");
        for (int64_t i = 0; i < inner; ++i)
          out.data[pos++] = data.data[(o * data.shape[axis] + j) * inner + i];
      }
    return out;
  }
  if (op == "Unsqueeze") {
    std::vector<int64_t> axes =
        opset >= 13 && arg(1) ? std::vector<int64_t>() : node.get_ints("axes", {});
    if (opset >= 13 && arg(1))
      for (double a : arg(1)->data) axes.push_back(static_cast<int64_t>(a));
    Value out = *in[0];
    const size_t rank = out.shape.size() + axes.size();
    for (int64_t& a : axes) a = norm_axis(a, rank);
    std::sort(axes.begin(), axes.end());
    for (int64_t a : axes) out.shape.insert(out.shape.begin() + a, 1);
    return out;
  }
  return make_error("the interpreter has no rule for this operator");
}

}  // namespace

Value value_of(const Constant& c) {
  Value v;
  v.shape = c.info.shape;
  v.dtype = c.info.dtype;
  for (int64_t i = 0; i < c.info.num_elements(); ++i) v.data.push_back(c.at(i));
  return v;
}

Constant constant_of(const std::string& name, const Value& v) {
  Constant c;
  c.info = TensorInfo{name, v.shape, v.dtype};
  for (double d : v.data) {
    if (v.dtype == DType::kFloat32)
      c.f32.push_back(static_cast<float>(d));
    else
      c.i64.push_back(static_cast<int64_t>(d));
  }
  return c;
}

Result<std::vector<Value>> evaluate_node(const Node& node, const std::vector<const Value*>& inputs,
                                         int opset) {
  if (node.op_type == "Constant") {
    auto it = node.attrs.find("value");
    if (it != node.attrs.end() && std::holds_alternative<Constant>(it->second)) {
      return std::vector<Value>{value_of(std::get<Constant>(it->second))};
    }
    return make_error("Constant without a tensor 'value'");
  }
  for (size_t i = 0; i < inputs.size() && i < 2; ++i) {
    if (!inputs[i] && node.op_type != "Clip" && node.op_type != "Gemm")
      return make_error("input " + std::to_string(i) + " is missing");
  }
  if (inputs.empty() || !inputs[0]) return make_error("input 0 is missing");
  if (is_winograd(node)) {
    auto out = winograd_conv(node, *inputs[0], *inputs[1], inputs.size() > 2 ? inputs[2] : nullptr);
    return std::vector<Value>{std::move(out)};
  }
  if (is_channels_last(node)) {
    // An NHWC conv or pool (graph/channels_last.h): the NCHW operator between transposes,
    // HWIO weights back to OIHW.
    std::vector<Value> nchw{transpose(*inputs[0], {0, 3, 1, 2})};
    if (node.op_type == "Conv") nchw.push_back(transpose(*inputs[1], {3, 2, 0, 1}));
    std::vector<const Value*> args;
    for (size_t i = 0; i < inputs.size(); ++i) args.push_back(i < nchw.size() ? &nchw[i] : inputs[i]);
    auto out = evaluate_one(node, args, opset);
    if (!out) return out.error();
    return std::vector<Value>{transpose(*out, {0, 2, 3, 1})};
  }
  auto out = evaluate_one(node, inputs, opset);
  if (!out) return out.error();
  std::vector<Value> outs{std::move(*out)};
  return outs;
}

Result<std::map<std::string, Value>> interpret(
    const Graph& graph, const std::map<std::string, std::vector<float>>& inputs) {
  std::map<std::string, Value> values;
  for (const auto& [name, c] : graph.constants) values[name] = value_of(c);
  for (const std::string& name : graph.inputs) {
    auto it = inputs.find(name);
    const TensorInfo* info = graph.info(name);
    if (it == inputs.end() || !info ||
        static_cast<int64_t>(it->second.size()) != info->num_elements()) {
      return make_error(graph.source + ": input '" + name + "' is missing or has the wrong size");
    }
    values[name] =
        Value{info->shape, std::vector<double>(it->second.begin(), it->second.end()), info->dtype};
  }
  for (const Node& node : graph.nodes) {
    std::vector<const Value*> in;
    for (const std::string& name : node.inputs) {
      auto it = values.find(name);
      in.push_back(name.empty() || it == values.end() ? nullptr : &it->second);
    }
    auto out = evaluate_node(node, in, graph.opset);
    if (!out) return graph.node_error(node, out.error().message);
    values[node.outputs[0]] = std::move((*out)[0]);
  }
  return values;
}

}  // namespace tessera::graph

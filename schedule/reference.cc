// The reference evaluator and the tolerance model (see reference.h).
#include "schedule/reference.h"

#include <cmath>
#include <map>
#include <random>
#include <unordered_map>

namespace tessera::schedule {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct OutOfBounds {
  std::string message;
};

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A lazily evaluated stage's values at the points read so far: a dense array with a "known"
// mark per point while the stage is small enough (a ResNet-50 conv's padded input: 0.8M points),
// else a hash map. Hash lookups of the padded input were most of a convolution's check.
class Memo {
 public:
  static constexpr int64_t kMaxDense = int64_t{1} << 21;  // 16 MiB of doubles at most
  void size(int64_t points) {
    if (points <= kMaxDense) values_.assign(static_cast<size_t>(points), 0), known_.assign(static_cast<size_t>(points), 0);
  }
  const double* find(int64_t flat) const {
    if (!known_.empty()) return known_[static_cast<size_t>(flat)] ? &values_[static_cast<size_t>(flat)] : nullptr;
    auto it = sparse_.find(flat);
    return it == sparse_.end() ? nullptr : &it->second;
  }
  void put(int64_t flat, double value) {
    if (known_.empty()) {
      sparse_.emplace(flat, value);
      return;
    }
    values_[static_cast<size_t>(flat)] = value;
    known_[static_cast<size_t>(flat)] = 1;
  }

 private:
  std::vector<double> values_;
  std::vector<unsigned char> known_;
  std::unordered_map<int64_t, double> sparse_;
};

class Evaluator {
 public:
  explicit Evaluator(std::map<std::string, std::vector<double>>& data) : data_(data) {}

  void bind(const ExprNode* v, int64_t value) {
    for (auto& [var, val] : env_) {
      if (var == v) { val = value; return; }
    }
    env_.emplace_back(v, value);
  }

  // Integers and booleans are exact in a double up to 2^53, far beyond any index here.
  double eval(const Expr& e) {
    const auto& o = e->operands;
    switch (e->kind) {
      case ExprKind::kIntImm: return static_cast<double>(e->int_value);
      case ExprKind::kFloatImm: return e->float_value;
      case ExprKind::kVar:
        for (const auto& [var, val] : env_) {
          if (var == e.get()) return static_cast<double>(val);
        }
        throw OutOfBounds{"unbound variable " + e->name};
      case ExprKind::kSelect: return eval(o[0]) != 0 ? eval(o[1]) : eval(o[2]);
      case ExprKind::kAnd: return (eval(o[0]) != 0 && eval(o[1]) != 0) ? 1 : 0;
      case ExprKind::kOr: return (eval(o[0]) != 0 || eval(o[1]) != 0) ? 1 : 0;
      case ExprKind::kNot: return eval(o[0]) != 0 ? 0 : 1;
      case ExprKind::kCast: {
        double v = eval(o[0]);
        if (e->dtype == DType::kInt64) return std::trunc(v);
        if (e->dtype == DType::kBool) return v != 0 ? 1 : 0;
        return v;
      }
      case ExprKind::kCall: {
        double x = eval(o[0]);
        switch (e->fn) {
          case CallFn::kExp: return std::exp(x);
          case CallFn::kLog: return std::log(x);
          case CallFn::kSqrt: return std::sqrt(x);
          case CallFn::kTanh: return std::tanh(x);
          case CallFn::kErf: return std::erf(x);
          case CallFn::kAbs: return std::fabs(x);
        }
        return 0;
      }
      case ExprKind::kLoad: return load(e);
      default: break;
    }
    double a = eval(o[0]), b = eval(o[1]);
    bool integer = e->operands[0]->dtype != DType::kFloat32;
    switch (e->kind) {
      case ExprKind::kAdd: return a + b;
      case ExprKind::kSub: return a - b;
      case ExprKind::kMul: return a * b;
      case ExprKind::kDiv:
        if (!integer) return a / b;
        if (b == 0) throw OutOfBounds{"integer division by zero"};
        return static_cast<double>(floor_div(static_cast<int64_t>(a), static_cast<int64_t>(b)));
      case ExprKind::kMod: {
        if (b == 0) throw OutOfBounds{"integer modulo by zero"};
        auto ia = static_cast<int64_t>(a), ib = static_cast<int64_t>(b);
        return static_cast<double>(ia - floor_div(ia, ib) * ib);
      }
      case ExprKind::kMin: return std::fmin(a, b);
      case ExprKind::kMax: return std::fmax(a, b);
      case ExprKind::kLT: return a < b;
      case ExprKind::kLE: return a <= b;
      case ExprKind::kEQ: return a == b;
      case ExprKind::kNE: return a != b;
      default: break;
    }
    throw OutOfBounds{"unsupported expression " + to_string(e)};
  }

  void set_shapes(const ComputeDAG& dag) {
    for (const Tensor& t : dag.stages()) shapes_[t->name] = t->shape;
  }

  // Stage `t` is evaluated point by point when read (memoized) instead of in full.
  void make_lazy(const TensorNode* t) { lazy_[t->name] = t; }

  // The value of `t` at the point its axis variables are bound to.
  double value_at_bound_point(const TensorNode& t) {
    if (t.reduce == ReduceKind::kNone) return eval(t.body);
    double acc = eval(t.init);
    for_each_reduce_point(t, [&] {
      double v = eval(t.body);
      acc = t.reduce == ReduceKind::kSum ? acc + v : std::fmax(acc, v);
    });
    return acc;
  }

 private:
  // What a load of one tensor reads: resolved by name once per load expression, then found by
  // the expression's address (name lookups in string-keyed maps were a third of the time).
  struct Source {
    const std::vector<int64_t>* shape = nullptr;
    const std::vector<double>* data = nullptr;  // an input, or a stage computed in full
    const TensorNode* lazy = nullptr;           // else a stage evaluated on demand...
    Memo* memo = nullptr;                       // ...at the points read so far
  };

  const Source& source_of(const Expr& e) {
    if (auto it = sources_.find(e.get()); it != sources_.end()) return it->second;
    Source s;
    s.shape = &shapes_.at(e->name);
    if (auto it = data_.find(e->name); it != data_.end()) {
      s.data = &it->second;
    } else {
      auto lazy = lazy_.find(e->name);
      if (lazy == lazy_.end()) throw OutOfBounds{"read of '" + e->name + "' before it is computed"};
      s.lazy = lazy->second;
      s.memo = &memo_[e->name];
      s.memo->size(num_elements(*s.shape));
    }
    return sources_.emplace(e.get(), s).first->second;  // only once it resolves: a stage computed later
  }

  double load(const Expr& e) {
    const Source& source = source_of(e);
    const std::vector<int64_t>& shape = *source.shape;
    const size_t dims = e->operands.size();
    constexpr size_t kInline = 8;
    int64_t inline_index[kInline];
    std::vector<int64_t> heap_index(dims > kInline ? dims : 0);
    int64_t* index = dims > kInline ? heap_index.data() : inline_index;
    int64_t flat = 0;
    for (size_t d = 0; d < dims; ++d) {
      index[d] = static_cast<int64_t>(eval(e->operands[d]));
      if (index[d] < 0 || index[d] >= shape[d]) {
        throw OutOfBounds{"read of " + e->name + " at dimension " + std::to_string(d) + " index " +
                          std::to_string(index[d]) + " outside [0, " + std::to_string(shape[d]) + ")"};
      }
      flat = flat * shape[d] + index[d];
    }
    if (source.data) return (*source.data)[static_cast<size_t>(flat)];
    if (const double* hit = source.memo->find(flat)) return *hit;
    const TensorNode& t = *source.lazy;
    for (size_t d = 0; d < dims; ++d) bind(t.axes[d].var.get(), index[d]);
    double value = value_at_bound_point(t);
    source.memo->put(flat, value);
    return value;
  }

  template <typename F>
  void for_each_reduce_point(const TensorNode& t, const F& fn);

  std::map<std::string, std::vector<double>>& data_;
  std::map<std::string, std::vector<int64_t>> shapes_;
  std::vector<std::pair<const ExprNode*, int64_t>> env_;
  std::map<std::string, const TensorNode*> lazy_;
  std::map<std::string, Memo> memo_;
  std::unordered_map<const ExprNode*, Source> sources_;
};

// Calls fn for every point of the box `extents`, binding `axes`.
template <typename F>
void for_each_point(Evaluator& ev, const std::vector<Axis>& axes, const F& fn) {
  std::vector<int64_t> idx(axes.size(), 0);
  while (true) {
    for (size_t d = 0; d < axes.size(); ++d) ev.bind(axes[d].var.get(), idx[d]);
    fn();
    size_t d = axes.size();
    while (d > 0) {
      --d;
      if (++idx[d] < axes[d].extent) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (axes.empty()) return;
  }
}

template <typename F>
void Evaluator::for_each_reduce_point(const TensorNode& t, const F& fn) {
  for_each_point(*this, t.reduce_axes, fn);
}

}  // namespace

TensorValues random_inputs(const ComputeDAG& dag, uint64_t seed) {
  std::mt19937_64 rng(seed);
  TensorValues values;
  for (const Tensor& t : dag.inputs()) {
    std::vector<float> v(static_cast<size_t>(t.num_elements()));
    // Top 24 bits of each draw: the same floats on every machine and standard library.
    for (float& x : v) x = static_cast<float>(rng() >> 40) / 8388608.0f - 1.0f;
    values[t->name] = std::move(v);
  }
  return values;
}

namespace {

// Evaluates every stage; the stage named `sampled` only at `points` (flat indices), returned in
// `sampled_values`. With `sampled` empty every stage is evaluated in full.
Result<TensorValues> evaluate(const ComputeDAG& dag, const TensorValues& inputs,
                              const std::string& sampled, const std::vector<int64_t>& points,
                              std::vector<float>* sampled_values) {
  std::map<std::string, std::vector<double>> data;
  for (const Tensor& t : dag.inputs()) {
    auto it = inputs.find(t->name);
    if (it == inputs.end()) return make_error("reference: no values for input '" + t->name + "'");
    if (static_cast<int64_t>(it->second.size()) != t.num_elements()) {
      return make_error("reference: input '" + t->name + "' has " +
                        std::to_string(it->second.size()) + " values, expected " +
                        std::to_string(t.num_elements()));
    }
    data[t->name].assign(it->second.begin(), it->second.end());
  }
  Evaluator ev(data);
  ev.set_shapes(dag);
  TensorValues result;
  try {
    for (const Tensor& t : dag.stages()) {
      if (t->is_placeholder) continue;
      if (t->name == sampled) {
        for (int64_t p : points) {
          if (p < 0 || p >= t.num_elements()) {
            return make_error("reference: point " + std::to_string(p) + " is outside " + t->name);
          }
          int64_t rest = p;
          for (size_t d = t->axes.size(); d-- > 0;) {
            ev.bind(t->axes[d].var.get(), rest % t->shape[d]);
            rest /= t->shape[d];
          }
          sampled_values->push_back(static_cast<float>(ev.value_at_bound_point(*t)));
        }
        continue;
      }
      if (!sampled.empty()) {
        // Only the points the samples need: evaluate on demand.
        ev.make_lazy(t.node().get());
        continue;
      }
      std::vector<double> out;
      out.reserve(static_cast<size_t>(t.num_elements()));
      for_each_point(ev, t->axes, [&] { out.push_back(ev.value_at_bound_point(*t)); });
      result[t->name].assign(out.begin(), out.end());
      data[t->name] = std::move(out);
    }
  } catch (const OutOfBounds& e) {
    return make_error("reference evaluation of " + dag.summary() + ": " + e.message);
  }
  return result;
}

}  // namespace

Result<TensorValues> evaluate_reference(const ComputeDAG& dag, const TensorValues& inputs) {
  return evaluate(dag, inputs, "", {}, nullptr);
}

Result<std::vector<float>> evaluate_reference_at(const ComputeDAG& dag, const TensorValues& inputs,
                                                 const std::string& output,
                                                 const std::vector<int64_t>& points) {
  if (!dag.is_output(output)) return make_error("reference: '" + output + "' is not an output");
  std::vector<float> values;
  auto r = evaluate(dag, inputs, output, points, &values);
  if (!r) return r.error();
  return values;
}

double tolerance_for(const ComputeDAG& dag) {
  std::map<std::string, double> path;
  double longest = 0;
  for (const Tensor& t : dag.stages()) {
    double below = 0;
    for (const auto& in : t->inputs) below = std::max(below, path[in->name]);
    double length = 1;
    for (const Axis& r : t->reduce_axes) length *= static_cast<double>(r.extent);
    path[t->name] = below + (t->reduce_axes.empty() ? 0 : length);
    longest = std::max(longest, path[t->name]);
  }
  constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24
  return 8 * kUnitRoundoff * std::max(longest, 16.0);
}

Comparison compare(const std::vector<float>& actual, const std::vector<float>& expected,
                   double tolerance) {
  Comparison c;
  if (actual.size() != expected.size()) {
    c.ok = false;
    c.mismatches = static_cast<int64_t>(std::max(actual.size(), expected.size()));
    c.max_error = INFINITY;
    return c;
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    double ref = expected[i];
    double err = std::fabs(static_cast<double>(actual[i]) - ref) / (1.0 + std::fabs(ref));
    // -inf == -inf (max over an empty window) is exact; NaN never passes.
    if (actual[i] == expected[i]) err = 0;
    if (std::isnan(err)) err = INFINITY;
    if (err > tolerance) ++c.mismatches;
    if (err > c.max_error || c.worst_index < 0) {
      if (err >= c.max_error) {
        c.max_error = err;
        c.worst_index = static_cast<int64_t>(i);
      }
    }
  }
  c.ok = c.mismatches == 0;
  return c;
}

}  // namespace tessera::schedule

// The reference evaluator and the tolerance model (see reference.h).
#include "schedule/reference.h"

#include <cmath>
#include <map>
#include <random>
#include <unordered_map>

#include "schedule/floor_div.h"

namespace tessera::schedule {
namespace {

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

// The evaluator works on the stages' expressions compiled once into a flat array of ops whose
// operands, variables and loaded tensors are indices: a point of a convolution's reduction then
// costs no name lookup, hash or allocation. Errors keep the interpreter's semantics: an
// unbound variable, a read out of bounds or of a tensor not yet computed fail only when
// evaluated (Select evaluates one branch, so a padded read outside a tensor never happens).
class Evaluator {
 public:
  Evaluator(std::map<std::string, std::vector<double>>& data, const ComputeDAG& dag) : data_(data) {
    for (const Tensor& t : dag.stages()) shapes_[t->name] = t->shape;
  }

  // Stage `t` is evaluated point by point when read (memoized) instead of in full.
  void make_lazy(const TensorNode* t) { lazy_[t->name] = t; }

  // The value of `t` at `index` (one entry per axis).
  double value_at(const TensorNode& t, const int64_t* index) {
    const Stage& stage = stage_of(t);
    for (size_t d = 0; d < stage.axes.size(); ++d) set(stage.axes[d], index[d]);
    return value_at_bound_point(stage);
  }

  // Every point of `t`, in row-major order.
  std::vector<double> evaluate_all(const TensorNode& t) {
    const Stage& stage = stage_of(t);
    std::vector<double> out;
    out.reserve(static_cast<size_t>(num_elements(t.shape)));
    for_each_point(stage.axes, t.shape, [&] { out.push_back(value_at_bound_point(stage)); });
    return out;
  }

 private:
  struct Op {
    ExprKind kind = ExprKind::kIntImm;
    DType dtype = DType::kFloat32;  // the expression's (kCast: the target)
    bool integer = false;   // binary ops: operand 0 is not a float
    CallFn fn = CallFn::kExp;
    double imm = 0;         // kIntImm / kFloatImm
    int a = -1, b = -1, c = -1;  // operand ops
    int index = -1;         // kVar: its slot; kLoad: its source (-1: unresolved, an error if run)
    std::vector<int> dims;  // kLoad: the index ops
    Expr expr;              // for error messages
  };
  struct Stage {
    int body = -1, init = -1;
    ReduceKind reduce = ReduceKind::kNone;
    std::vector<int> axes, reduce_axes;  // variable slots
    std::vector<int64_t> reduce_extents;
  };
  // What a load of one tensor reads.
  struct Source {
    const std::vector<int64_t>* shape = nullptr;
    const std::vector<double>* data = nullptr;  // an input, or a stage computed in full
    const Stage* lazy = nullptr;                // else a stage evaluated on demand...
    Memo* memo = nullptr;                       // ...at the points read so far
  };

  int slot_of(const ExprNode* var) {
    auto [it, added] = slots_.emplace(var, static_cast<int>(vars_.size()));
    if (added) vars_.push_back(0), bound_.push_back(0);
    return it->second;
  }
  void set(int slot, int64_t value) {
    vars_[static_cast<size_t>(slot)] = value;
    bound_[static_cast<size_t>(slot)] = 1;
  }

  const Stage& stage_of(const TensorNode& t) {
    if (auto it = stages_.find(&t); it != stages_.end()) return it->second;
    Stage stage;
    stage.reduce = t.reduce;
    for (const Axis& a : t.axes) stage.axes.push_back(slot_of(a.var.get()));
    for (const Axis& a : t.reduce_axes) stage.reduce_axes.push_back(slot_of(a.var.get())), stage.reduce_extents.push_back(a.extent);
    stage.body = compile(t.body);
    if (t.reduce != ReduceKind::kNone) stage.init = compile(t.init);
    return stages_.emplace(&t, std::move(stage)).first->second;
  }

  // The source a load of `name` reads, or -1 when there is none yet. With `lazy_too` false it
  // only finds computed tensors, and so never compiles (what runs during evaluation).
  int source_of(const std::string& name, bool lazy_too = true) {
    if (auto it = source_index_.find(name); it != source_index_.end()) return it->second;
    auto shape = shapes_.find(name);
    if (shape == shapes_.end()) return -1;
    Source s;
    s.shape = &shape->second;
    if (auto it = data_.find(name); it != data_.end()) {
      s.data = &it->second;
    } else if (auto lazy = lazy_.find(name); lazy_too && lazy != lazy_.end()) {
      s.lazy = &stage_of(*lazy->second);
      s.memo = &memo_[name];
      s.memo->size(num_elements(shape->second));
    } else {
      return -1;  // not computed yet: not remembered, it may be by the time another stage reads it
    }
    sources_.push_back(s);
    return source_index_[name] = static_cast<int>(sources_.size() - 1);
  }

  int compile(const Expr& e) {
    if (auto it = compiled_.find(e.get()); it != compiled_.end()) return it->second;
    Op op;
    op.kind = e->kind, op.dtype = e->dtype;
    op.expr = e;
    const auto& o = e->operands;
    switch (e->kind) {
      case ExprKind::kIntImm: op.imm = static_cast<double>(e->int_value); break;
      case ExprKind::kFloatImm: op.imm = e->float_value; break;
      case ExprKind::kVar: op.index = slot_of(e.get()); break;
      case ExprKind::kCall: op.fn = e->fn; break;
      case ExprKind::kLoad: op.index = source_of(e->name); break;
      default: break;
    }
    if (e->kind == ExprKind::kLoad) {
      for (const Expr& d : o) op.dims.push_back(compile(d));
    } else {
      if (o.size() > 0) op.a = compile(o[0]), op.integer = o[0]->dtype != DType::kFloat32;
      if (o.size() > 1) op.b = compile(o[1]);
      if (o.size() > 2) op.c = compile(o[2]);
    }
    ops_.push_back(std::move(op));
    const int i = static_cast<int>(ops_.size() - 1);
    compiled_.emplace(e.get(), i);
    return i;
  }

  double value_at_bound_point(const Stage& stage) {
    if (stage.reduce == ReduceKind::kNone) return eval(stage.body);
    double acc = eval(stage.init);
    for_each_point(stage.reduce_axes, stage.reduce_extents, [&] {
      const double v = eval(stage.body);
      acc = stage.reduce == ReduceKind::kSum ? acc + v : std::fmax(acc, v);
    });
    return acc;
  }

  // Calls fn at every point of the box `extents`, binding the variables in `slots`. Every
  // variable is bound again before each call: a stage evaluated on demand inside fn may share
  // variables with this one.
  template <typename F>
  void for_each_point(const std::vector<int>& slots, const std::vector<int64_t>& extents, const F& fn) {
    for (int64_t e : extents)
      if (e <= 0) return;
    constexpr size_t kInline = 8;
    int64_t inline_index[kInline] = {};
    std::vector<int64_t> heap_index(slots.size() > kInline ? slots.size() : 0);
    int64_t* index = slots.size() > kInline ? heap_index.data() : inline_index;
    while (true) {
      for (size_t d = 0; d < slots.size(); ++d) set(slots[d], index[d]);
      fn();
      size_t d = slots.size();
      while (d > 0) {
        --d;
        if (++index[d] < extents[d]) break;
        index[d] = 0;
        if (d == 0) return;
      }
      if (slots.empty()) return;
    }
  }

  // Integers and booleans are exact in a double up to 2^53, far beyond any index here.
  double eval(int i) {
    Op& op = ops_[static_cast<size_t>(i)];  // no op is compiled during evaluation: stays valid
    switch (op.kind) {
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm: return op.imm;
      case ExprKind::kVar:
        if (!bound_[static_cast<size_t>(op.index)]) throw OutOfBounds{"unbound variable " + op.expr->name};
        return static_cast<double>(vars_[static_cast<size_t>(op.index)]);
      case ExprKind::kSelect: return eval(op.a) != 0 ? eval(op.b) : eval(op.c);
      case ExprKind::kAnd: return (eval(op.a) != 0 && eval(op.b) != 0) ? 1 : 0;
      case ExprKind::kOr: return (eval(op.a) != 0 || eval(op.b) != 0) ? 1 : 0;
      case ExprKind::kNot: return eval(op.a) != 0 ? 0 : 1;
      case ExprKind::kCast: {
        const double v = eval(op.a);
        if (op.dtype == DType::kInt64) return std::trunc(v);
        if (op.dtype == DType::kBool) return v != 0 ? 1 : 0;
        return v;
      }
      case ExprKind::kCall: {
        const double x = eval(op.a);
        switch (op.fn) {
          case CallFn::kExp: return std::exp(x);
          case CallFn::kLog: return std::log(x);
          case CallFn::kSqrt: return std::sqrt(x);
          case CallFn::kTanh: return std::tanh(x);
          case CallFn::kErf: return std::erf(x);
          case CallFn::kAbs: return std::fabs(x);
        }
        return 0;
      }
      case ExprKind::kLoad: return load(op);
      default: break;
    }
    const double a = eval(op.a), b = eval(op.b);
    switch (op.kind) {
      case ExprKind::kAdd: return a + b;
      case ExprKind::kSub: return a - b;
      case ExprKind::kMul: return a * b;
      case ExprKind::kDiv:
        if (!op.integer) return a / b;
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
    throw OutOfBounds{"unsupported expression " + to_string(op.expr)};
  }

  double load(Op& op) {
    const ExprNode& e = *op.expr;
    if (op.index < 0) {
      // Resolved when compiled, unless the tensor was not computed then; try once more.
      op.index = source_of(e.name, false);
      if (op.index < 0) throw OutOfBounds{"read of '" + e.name + "' before it is computed"};
    }
    const Source source = sources_[static_cast<size_t>(op.index)];  // a copy: a nested retry may grow sources_
    const std::vector<int64_t>& shape = *source.shape;
    const size_t dims = op.dims.size();
    constexpr size_t kInline = 8;
    int64_t inline_index[kInline];
    std::vector<int64_t> heap_index(dims > kInline ? dims : 0);
    int64_t* index = dims > kInline ? heap_index.data() : inline_index;
    int64_t flat = 0;
    for (size_t d = 0; d < dims; ++d) {
      index[d] = static_cast<int64_t>(eval(op.dims[d]));
      if (index[d] < 0 || index[d] >= shape[d]) {
        throw OutOfBounds{"read of " + e.name + " at dimension " + std::to_string(d) + " index " +
                          std::to_string(index[d]) + " outside [0, " + std::to_string(shape[d]) + ")"};
      }
      flat = flat * shape[d] + index[d];
    }
    if (source.data) return (*source.data)[static_cast<size_t>(flat)];
    if (const double* hit = source.memo->find(flat)) return *hit;
    const Stage& t = *source.lazy;
    for (size_t d = 0; d < dims; ++d) set(t.axes[d], index[d]);
    const double value = value_at_bound_point(t);
    source.memo->put(flat, value);
    return value;
  }

  std::map<std::string, std::vector<double>>& data_;
  std::map<std::string, std::vector<int64_t>> shapes_;
  std::map<std::string, const TensorNode*> lazy_;
  std::map<std::string, Memo> memo_;
  // Compiled: ops, stages, loaded tensors and variable slots.
  std::vector<Op> ops_;
  std::unordered_map<const ExprNode*, int> compiled_, slots_;
  std::unordered_map<const TensorNode*, Stage> stages_;
  std::vector<Source> sources_;
  std::unordered_map<std::string, int> source_index_;
  std::vector<int64_t> vars_;
  std::vector<unsigned char> bound_;
};

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
  Evaluator ev(data, dag);
  TensorValues result;
  try {
    for (const Tensor& t : dag.stages()) {
      if (t->is_placeholder) continue;
      if (t->name == sampled) {
        std::vector<int64_t> index(t->axes.size());
        for (int64_t p : points) {
          if (p < 0 || p >= t.num_elements()) {
            return make_error("reference: point " + std::to_string(p) + " is outside " + t->name);
          }
          int64_t rest = p;
          for (size_t d = t->axes.size(); d-- > 0;) {
            index[d] = rest % t->shape[d];
            rest /= t->shape[d];
          }
          sampled_values->push_back(static_cast<float>(ev.value_at(*t, index.data())));
        }
        continue;
      }
      if (!sampled.empty()) {
        // Only the points the samples need: evaluate on demand.
        ev.make_lazy(t.node().get());
        continue;
      }
      std::vector<double> out = ev.evaluate_all(*t);
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

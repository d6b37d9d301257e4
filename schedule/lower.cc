// State -> LoopNest IR (see lower.h).
#include "schedule/lower.h"

#include <algorithm>

#include "schedule/simplify.h"

namespace tessera::schedule {
namespace {

class Lowerer {
 public:
  explicit Lowerer(const State& state) : state_(state) {}

  Result<LoweredFunc> run(const std::string& name) {
    LoweredFunc func;
    func.name = name;
    for (const Tensor& t : state_.dag().arguments()) {
      func.arguments.push_back(KernelArgument{t->name, t.num_elements(), t->dtype,
                                              state_.dag().is_output(t->name)});
    }
    std::vector<Stmt> nests;
    for (const StageState& s : state_.stages()) {
      if (s.op->is_placeholder || s.location == ComputeLocation::kInlined) continue;
      nests.push_back(lower_stage(s));
    }
    Stmt body = make_seq(std::move(nests));
    // Intermediate stages live for the whole kernel.
    const auto& stages = state_.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      const Tensor& t = it->op;
      if (t->is_placeholder || it->location == ComputeLocation::kInlined ||
          state_.dag().is_output(t->name)) {
        continue;
      }
      body = make_allocate(t->name, t.num_elements(), t->dtype, StorageScope::kGlobal, body);
    }
    func.body = body;
    return func;
  }

 private:
  const TensorNode& tensor(const std::string& name) const {
    return *state_.dag().stages()[state_.dag().stage_index(name)];
  }

  // Row-major flat index of `indices` into tensor `name`.
  Expr flatten(const std::string& name, const std::vector<Expr>& indices) const {
    const auto& shape = tensor(name).shape;
    Expr flat = indices.empty() ? Expr(int64_t{0}) : indices[0];
    for (size_t d = 1; d < indices.size(); ++d) flat = flat * Expr(shape[d]) + indices[d];
    return flat;
  }

  // Substitutes inlined producers into `e` and flattens every load.
  Expr expand_loads(const Expr& e) const {
    return rewrite_loads(e, [this](const Expr& load) -> Expr {
      int index = state_.dag().stage_index(load->name);
      const StageState& producer = state_.stage(index);
      if (producer.location == ComputeLocation::kInlined) {
        VarMap map;
        for (size_t d = 0; d < load->operands.size(); ++d) {
          map.emplace_back(producer.op->axes[d].var.get(), load->operands[d]);
        }
        return expand_loads(substitute(producer.op->body, map));
      }
      if (load->operands.size() == 1 && tensor(load->name).shape.size() != 1) return load;
      return schedule::load(load->name, {flatten(load->name, load->operands)}, load->dtype);
    });
  }

  // Wraps `leaf` in `loops` (outermost first), placing each guard whose variables are bound by
  // `outer` and `loops` at the innermost loop that binds one of them; guards bound by `outer`
  // alone are left for the enclosing nest.
  Stmt build_nest(const std::vector<Loop>& loops, Stmt leaf, const std::vector<Expr>& guards,
                  const std::vector<const ExprNode*>& outer, int64_t auto_unroll,
                  int64_t steps_below = 1) const {
    std::vector<std::vector<Expr>> guards_at(loops.size() + 1);
    for (const Expr& g : guards) {
      std::vector<const ExprNode*> vars;
      collect_vars(g, &vars);
      int level = -1;
      bool covered = true;
      for (const ExprNode* v : vars) {
        auto it = std::find_if(loops.begin(), loops.end(),
                               [v](const Loop& l) { return l.var.get() == v; });
        if (it != loops.end()) {
          level = std::max(level, static_cast<int>(it - loops.begin()));
        } else if (std::find(outer.begin(), outer.end(), v) == outer.end()) {
          covered = false;
        }
      }
      if (covered && (level >= 0 || outer.empty())) guards_at[level + 1].push_back(g);
    }
    Stmt nest = std::move(leaf);
    int64_t steps_inside = steps_below;
    for (size_t i = loops.size() + 1; i-- > 0;) {
      for (const Expr& g : guards_at[i]) nest = make_if(g, nest);
      if (i == 0) break;
      const Loop& l = loops[i - 1];
      steps_inside *= l.extent;
      ForKind kind = for_kind(l.annotation);
      if (kind == ForKind::kSerial && auto_unroll > 0 && steps_inside <= auto_unroll) {
        kind = ForKind::kUnrolled;
      }
      nest = make_for(l.var, l.extent, kind, nest);
    }
    return nest;
  }

  static ForKind for_kind(Annotation a) {
    switch (a) {
      case Annotation::kParallel: return ForKind::kParallel;
      case Annotation::kVectorize: return ForKind::kVectorized;
      case Annotation::kUnroll: return ForKind::kUnrolled;
      case Annotation::kNone: break;
    }
    return ForKind::kSerial;
  }

  Stmt lower_stage(const StageState& s) const {
    const TensorNode& op = *s.op;
    RangeMap ranges;
    for (const Loop& l : s.loops) ranges.emplace_back(l.var.get(), Interval{0, l.extent - 1});

    VarMap axis_map;
    std::vector<Expr> out_indices;
    for (size_t a = 0; a < op.axes.size(); ++a) {
      axis_map.emplace_back(op.axes[a].var.get(), s.axis_value[a]);
      out_indices.push_back(s.axis_value[a]);
    }
    for (size_t a = 0; a < op.reduce_axes.size(); ++a) {
      axis_map.emplace_back(op.reduce_axes[a].var.get(), s.axis_value[op.axes.size() + a]);
    }
    Expr value = simplify(expand_loads(substitute(op.body, axis_map)), ranges);
    Expr out_index = simplify(flatten(op.name, out_indices), ranges);

    std::vector<Expr> guards;
    for (const Expr& g : s.guards) {
      Expr simple = simplify(g, ranges);
      int64_t truth;
      if (!is_const_int(simple, &truth) || !truth) guards.push_back(simple);
    }

    if (op.reduce == ReduceKind::kNone) {
      return build_nest(s.loops, make_store(op.name, out_index, value), guards, {},
                        s.auto_unroll_max_step);
    }
    Expr current = load(op.name, {out_index}, op.dtype);
    Expr update = op.reduce == ReduceKind::kSum ? current + value : max(current, value);
    auto first_reduce = std::find_if(s.loops.begin(), s.loops.end(),
                                     [](const Loop& l) { return l.kind == IterKind::kReduce; });
    std::vector<Loop> outer(s.loops.begin(), first_reduce);
    std::vector<Loop> inner(first_reduce, s.loops.end());
    std::vector<Loop> init_loops;
    for (const Loop& l : inner) {
      if (l.kind == IterKind::kSpatial) init_loops.push_back(l);
    }
    std::vector<const ExprNode*> outer_vars;
    for (const Loop& l : outer) outer_vars.push_back(l.var.get());

    Stmt init = build_nest(init_loops, make_store(op.name, out_index, op.init), guards, outer_vars,
                           s.auto_unroll_max_step);
    Stmt main = build_nest(inner, make_store(op.name, out_index, update), guards, outer_vars,
                           s.auto_unroll_max_step);
    int64_t inner_steps = 1;
    for (const Loop& l : inner) inner_steps *= l.extent;
    return build_nest(outer, make_seq({init, main}), guards, {}, s.auto_unroll_max_step,
                      inner_steps);
  }

  const State& state_;
};

}  // namespace

Result<LoweredFunc> lower(const State& state, const std::string& name) {
  return Lowerer(state).run(name);
}

}  // namespace tessera::schedule

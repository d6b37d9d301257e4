// Symbolic interval bounds of reads and the region a compute_at needs (see region.h).
#include "schedule/region.h"

#include <algorithm>
#include <optional>

namespace tessera::schedule {

Expr expand_inlined(const State& state, const Expr& e) {
  return rewrite_loads(e, [&state](const Expr& load) -> Expr {
    int index = state.stage_index(load->name);
    if (index < 0) return load;
    const StageState& producer = state.stage(index);
    if (producer.location != ComputeLocation::kInlined) return load;
    VarMap map;
    for (size_t d = 0; d < load->operands.size(); ++d) {
      map.emplace_back(producer.op->axes[d].var.get(), load->operands[d]);
    }
    return expand_inlined(state, substitute(producer.op->body, map));
  });
}

Expr stage_body_in_loops(const State& state, int stage) {
  const StageState& s = state.stage(stage);
  const TensorNode& op = *s.op;
  VarMap axis_map;
  for (size_t a = 0; a < op.axes.size(); ++a) axis_map.emplace_back(op.axes[a].var.get(), s.axis_value[a]);
  for (size_t a = 0; a < op.reduce_axes.size(); ++a) {
    axis_map.emplace_back(op.reduce_axes[a].var.get(), s.axis_value[op.axes.size() + a]);
  }
  return expand_inlined(state, substitute(op.body, axis_map));
}

RangeMap loop_ranges(const State& state) {
  RangeMap ranges;
  for (const StageState& s : state.stages()) {
    for (const Loop& l : s.loops) ranges.emplace_back(l.var.get(), Interval{0, l.extent - 1});
  }
  return ranges;
}

namespace {

struct SymbolicInterval {
  Expr min, max;
};

bool uses_any(const Expr& e, const RangeMap& vars) {
  return std::any_of(vars.begin(), vars.end(), [&](const auto& v) { return uses_var(e, v.first); });
}

// Bounds of `e` when the variables in `inner` range over their intervals and every other
// variable is fixed; nullopt when the expression is beyond this arithmetic.
std::optional<SymbolicInterval> symbolic_bound(const Expr& e, const RangeMap& inner) {
  if (!uses_any(e, inner)) return SymbolicInterval{e, e};
  const auto& o = e->operands;
  int64_t c;
  switch (e->kind) {
    case ExprKind::kVar:
      for (const auto& [v, range] : inner) {
        if (v == e.get()) return SymbolicInterval{Expr(range.min), Expr(range.max)};
      }
      return SymbolicInterval{e, e};
    case ExprKind::kAdd:
    case ExprKind::kSub: {
      auto a = symbolic_bound(o[0], inner), b = symbolic_bound(o[1], inner);
      if (!a || !b) return std::nullopt;
      if (e->kind == ExprKind::kAdd) return SymbolicInterval{a->min + b->min, a->max + b->max};
      return SymbolicInterval{a->min - b->max, a->max - b->min};
    }
    case ExprKind::kMul: {
      const Expr* constant = is_const_int(o[1], &c) ? &o[1] : is_const_int(o[0], &c) ? &o[0] : nullptr;
      if (!constant) return std::nullopt;
      auto a = symbolic_bound(constant == &o[1] ? o[0] : o[1], inner);
      if (!a) return std::nullopt;
      if (c >= 0) return SymbolicInterval{a->min * Expr(c), a->max * Expr(c)};
      return SymbolicInterval{a->max * Expr(c), a->min * Expr(c)};
    }
    case ExprKind::kDiv: {
      if (!is_const_int(o[1], &c) || c <= 0) return std::nullopt;
      auto a = symbolic_bound(o[0], inner);
      if (!a) return std::nullopt;
      return SymbolicInterval{a->min / Expr(c), a->max / Expr(c)};  // floor division is monotone
    }
    case ExprKind::kMod:
      if (!is_const_int(o[1], &c) || c <= 0) return std::nullopt;
      return SymbolicInterval{Expr(int64_t{0}), Expr(c - 1)};
    case ExprKind::kMin:
    case ExprKind::kMax: {
      auto a = symbolic_bound(o[0], inner), b = symbolic_bound(o[1], inner);
      if (!a || !b) return std::nullopt;
      if (e->kind == ExprKind::kMin) return SymbolicInterval{min(a->min, b->min), min(a->max, b->max)};
      return SymbolicInterval{max(a->min, b->min), max(a->max, b->max)};
    }
    case ExprKind::kSelect: {
      auto a = symbolic_bound(o[1], inner), b = symbolic_bound(o[2], inner);
      if (!a || !b) return std::nullopt;
      return SymbolicInterval{min(a->min, b->min), max(a->max, b->max)};
    }
    default:
      return std::nullopt;
  }
}

void collect_loads(const Expr& e, const std::string& name, std::vector<Expr>* loads) {
  if (e->kind == ExprKind::kLoad && e->name == name) loads->push_back(e);
  for (const Expr& op : e->operands) collect_loads(op, name, loads);
}

}  // namespace

bool nested_inside(const State& state, int stage, int target, int loop_position) {
  const StageState* s = &state.stage(stage);
  while (s->location == ComputeLocation::kAttached) {
    int parent = state.stage_index(s->attach_stage);
    const StageState& p = state.stage(parent);
    int position = -1;
    for (size_t i = 0; i < p.loops.size(); ++i) {
      if (p.loops[i].name == s->attach_loop) position = static_cast<int>(i);
    }
    if (parent == target) return position >= loop_position;
    s = &p;
  }
  return false;
}

std::vector<int> stages_reading(const State& state, const std::string& name) {
  std::vector<int> readers;
  for (int c : state.consumers(name)) {
    if (state.stage(c).location == ComputeLocation::kInlined) {
      for (int r : stages_reading(state, state.stage(c).op->name)) readers.push_back(r);
    } else {
      readers.push_back(c);
    }
  }
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  return readers;
}

Result<Region> infer_region(const State& state, int producer, int target, int loop_position) {
  const StageState& p = state.stage(producer);
  const StageState& t = state.stage(target);
  // Inside one iteration of the loop: the target's inner loops and every loop of the stages
  // computed inside them.
  RangeMap inner;
  for (size_t i = static_cast<size_t>(loop_position) + 1; i < t.loops.size(); ++i) {
    inner.emplace_back(t.loops[i].var.get(), Interval{0, t.loops[i].extent - 1});
  }
  for (size_t s = 0; s < state.stages().size(); ++s) {
    if (!nested_inside(state, static_cast<int>(s), target, loop_position)) continue;
    for (const Loop& l : state.stage(static_cast<int>(s)).loops) {
      inner.emplace_back(l.var.get(), Interval{0, l.extent - 1});
    }
  }
  std::vector<Expr> reads;
  for (int reader : stages_reading(state, p.op->name)) {
    if (reader != target && !nested_inside(state, reader, target, loop_position)) {
      return make_error("stage '" + state.stage(reader).op->name + "' reads '" + p.op->name +
                        "' outside loop '" + t.loops[loop_position].name + "' of '" +
                        t.op->name + "'");
    }
    collect_loads(stage_body_in_loops(state, reader), p.op->name, &reads);
  }
  if (reads.empty()) {
    return make_error("stage '" + t.op->name + "' does not read stage '" + p.op->name + "'");
  }
  const RangeMap all = loop_ranges(state);
  Region region;
  for (size_t d = 0; d < p.op->shape.size(); ++d) {
    const int64_t size = p.op->shape[d];
    Expr lo, hi;
    bool known = true;
    for (const Expr& read : reads) {
      auto b = symbolic_bound(read->operands[d], inner);
      if (!b) {
        known = false;
        break;
      }
      lo = lo.defined() ? min(lo, b->min) : b->min;
      hi = hi.defined() ? max(hi, b->max) : b->max;
    }
    if (!known) {  // beyond the arithmetic: the whole dimension
      lo = Expr(int64_t{0});
      hi = Expr(size - 1);
    }
    lo = simplify(lo, all);
    hi = simplify(hi, all);
    // The box's size before clamping to the tensor bounds it after clamping too.
    Expr extent = simplify(hi - lo + Expr(int64_t{1}), all);
    int64_t upper;
    bool exact = is_const_int(extent, &upper);
    if (!exact) {
      Interval range = bound(extent, all);
      upper = range.bounded() ? range.max : size;
    }
    bool clamp_low = bound(lo, all).min < 0, clamp_high = bound(hi, all).max > size - 1;
    if (clamp_low) lo = simplify(max(lo, Expr(int64_t{0})), all);
    if (clamp_high) hi = simplify(min(hi, Expr(size - 1)), all);
    region.offset.push_back(lo);
    region.extent.push_back(std::clamp<int64_t>(upper, 1, size));
    region.limit.push_back(exact && !clamp_low && !clamp_high ? Expr() : hi);
  }
  return region;
}

}  // namespace tessera::schedule

// Skipping reduction blocks that read only padding (see padding_skip.h).
#include "schedule/padding_skip.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "schedule/region.h"

namespace tessera::schedule {
namespace {

bool is_float_constant(const Expr& e, double value) {
  return e->kind == ExprKind::kFloatImm &&
         (e->float_value == value || (std::isinf(value) && std::isinf(e->float_value) &&
                                      std::signbit(value) == std::signbit(e->float_value)));
}

// The condition outside which `e` equals `fill`, or undefined: `select(inside, x, fill)`, or a
// read of a stage defined that way (through copies of it, such as a cache read), its axes
// replaced by the read's indices.
Expr fill_condition(const State& state, const Expr& e, double fill, int depth = 0) {
  if (depth > 4) return Expr();
  if (e->kind == ExprKind::kSelect && is_float_constant(e->operands[2], fill)) return e->operands[0];
  if (e->kind != ExprKind::kLoad) return Expr();
  const int producer = state.stage_index(e->name);
  if (producer < 0) return Expr();
  const TensorNode& op = *state.stage(producer).op;
  if (op.is_placeholder || op.reduce != ReduceKind::kNone || op.axes.size() != e->operands.size()) {
    return Expr();
  }
  VarMap at_read;
  for (size_t a = 0; a < op.axes.size(); ++a) at_read.emplace_back(op.axes[a].var.get(), e->operands[a]);
  return fill_condition(state, substitute(op.body, at_read), fill, depth + 1);
}

// The padding condition of a reduction's term: a factor of a sum's product that is zero
// outside it, or a max's term that is -inf outside it.
Expr padding_condition(const State& state, const Expr& term, ReduceKind reduce) {
  if (reduce == ReduceKind::kMax) {
    return fill_condition(state, term, -std::numeric_limits<double>::infinity());
  }
  if (term->kind == ExprKind::kMul) {
    for (const Expr& factor : term->operands) {
      if (Expr c = padding_condition(state, factor, reduce); c.defined()) return c;
    }
    return Expr();
  }
  return fill_condition(state, term, 0.0);
}

bool in_register_tile(const Loop& l) {
  return l.annotation != Annotation::kNone && l.annotation != Annotation::kParallel;
}

// Which of `loops` (outermost first) belong to the register tile: vectorized or unrolled, or
// unrolled by auto_unroll (lower.cc's rule).
std::vector<bool> register_tile(const StageState& s, const std::vector<Loop>& loops) {
  std::vector<bool> tile(loops.size());
  int64_t steps_inside = 1;
  for (size_t i = loops.size(); i-- > 0;) {
    steps_inside *= loops[i].extent;
    tile[i] = in_register_tile(loops[i]) ||
              (s.auto_unroll_max_step > 0 && steps_inside <= s.auto_unroll_max_step);
  }
  return tile;
}

// The innermost of `loops` outside the register tile that `diff` reads (a loop of one
// iteration binds nothing: its variable is always 0); -1 when none.
int innermost_reading(const Expr& diff, const std::vector<Loop>& loops, const std::vector<bool>& tile) {
  int level = -1;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (!tile[i] && loops[i].extent > 1 && uses_var(diff, loops[i].var.get())) level = static_cast<int>(i);
  }
  return level;
}

// The iterations of loops[level + 1 ...]: the block a test at `level` decides for.
LoopBox block_below(const std::vector<Loop>& loops, int level) {
  LoopBox block;
  for (size_t i = static_cast<size_t>(level + 1); i < loops.size(); ++i) block.emplace_back(loops[i].var.get(), loops[i].extent);
  return block;
}

// Whether a padding conjunct `diff < 0` (kind kLT) or `diff <= 0` (kLE) holds at the block's
// corner where `diff` is largest or smallest, simplified; undefined when `diff` is not linear
// in the block's loops.
Expr holds_at_corner(ExprKind kind, const Expr& diff, const LoopBox& block, bool largest, const RangeMap& ranges) {
  const auto corner = extreme_corner(diff, block, largest);
  if (!corner) return Expr();
  const Expr at = substitute(diff, *corner);
  return simplify(kind == ExprKind::kLT ? at < Expr(int64_t{0}) : at <= Expr(int64_t{0}), ranges);
}

bool nest_on_gpu(const StageState& s) {
  return std::any_of(s.loops.begin(), s.loops.end(),
                     [](const Loop& l) { return is_gpu_block(l.annotation) || is_gpu_thread(l.annotation); });
}

// `term` with its inlined padding (a `select(inside, x, fill)` among a sum's factors, or a
// max's term) replaced by `x`, and `inside` stored in `*condition`; undefined when the padding
// is not inlined (a read of a padded stage, or none).
Expr without_inlined_padding(const Expr& term, ReduceKind reduce, Expr* condition) {
  const double fill = reduce == ReduceKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
  if (term->kind == ExprKind::kSelect && is_float_constant(term->operands[2], fill)) {
    *condition = term->operands[0];
    return term->operands[1];
  }
  if (reduce != ReduceKind::kSum || term->kind != ExprKind::kMul) return Expr();
  for (size_t f = 0; f < term->operands.size(); ++f) {
    if (Expr plain = without_inlined_padding(term->operands[f], reduce, condition); plain.defined()) {
      std::vector<Expr> factors = term->operands;
      factors[f] = plain;
      return with_operands(term, std::move(factors));
    }
  }
  return Expr();
}

}  // namespace

std::vector<std::vector<Expr>> padding_skip_guards(const State& state, int stage,
                                                   const std::vector<Loop>& loops,
                                                   const RangeMap& ranges) {
  std::vector<std::vector<Expr>> guards_at(loops.size() + 1);
  const StageState& s = state.stage(stage);
  if (s.op->reduce == ReduceKind::kNone || nest_on_gpu(s)) return guards_at;
  const Expr inside = padding_condition(state, stage_body_in_loops(state, stage), s.op->reduce);
  if (!inside.defined()) return guards_at;
  const std::vector<bool> tile = register_tile(s, loops);

  std::vector<Expr> parts;
  split_conjuncts(inside, &parts);
  for (const Expr& part : parts) {
    if (part->kind != ExprKind::kLT && part->kind != ExprKind::kLE) continue;
    const Expr diff = simplify(part->operands[0] - part->operands[1], ranges);
    // The guard goes inside the innermost loop outside the register tile that the part reads.
    const int level = innermost_reading(diff, loops, tile);
    if (level < 0) continue;
    int64_t block_steps = 1;
    for (size_t i = level + 1; i < loops.size(); ++i) block_steps *= loops[i].extent;
    if (block_steps < kMinSkippedSteps) continue;
    // Some point of the block is inside where the part holds at the block's smallest diff.
    const Expr guard = holds_at_corner(part->kind, diff, block_below(loops, level), /*largest=*/false, ranges);
    if (!guard.defined()) continue;
    int64_t truth = 0;
    if (is_const_int(guard, &truth) && truth) continue;  // never skips
    guards_at[level + 1].push_back(guard);
  }
  return guards_at;
}

std::optional<PaddingUnswitch> padding_unswitch(const State& state, int stage,
                                                const std::vector<Loop>& loops,
                                                const RangeMap& ranges) {
  const StageState& s = state.stage(stage);
  if (s.op->reduce == ReduceKind::kNone || nest_on_gpu(s)) return std::nullopt;
  PaddingUnswitch unswitch;
  Expr inside;
  unswitch.plain_body = without_inlined_padding(stage_body_in_loops(state, stage), s.op->reduce, &inside);
  if (!unswitch.plain_body.defined()) return std::nullopt;
  const std::vector<bool> tile = register_tile(s, loops);

  // One test for the whole condition, inside the innermost loop any of its conjuncts reads.
  std::vector<Expr> parts, diffs;
  split_conjuncts(inside, &parts);
  for (const Expr& part : parts) {
    if (part->kind != ExprKind::kLT && part->kind != ExprKind::kLE) return std::nullopt;
    diffs.push_back(simplify(part->operands[0] - part->operands[1], ranges));
    unswitch.level = std::max(unswitch.level, innermost_reading(diffs.back(), loops, tile));
  }
  int64_t steps = 1;  // reduction steps the block runs outside the register tile
  for (size_t i = static_cast<size_t>(unswitch.level + 1); i < loops.size(); ++i) {
    if (!tile[i]) steps *= loops[i].extent;
  }
  if (steps < kMinUnswitchedSteps) return std::nullopt;
  const LoopBox block = block_below(loops, unswitch.level);
  for (size_t p = 0; p < parts.size(); ++p) {
    // Every point of the block is inside where the part holds at the block's largest diff.
    const Expr holds = holds_at_corner(parts[p]->kind, diffs[p], block, /*largest=*/true, ranges);
    if (!holds.defined()) return std::nullopt;
    int64_t truth = 0;
    if (is_const_int(holds, &truth)) {
      if (!truth) return std::nullopt;  // some point of every block is padding
      continue;
    }
    unswitch.all_inside = unswitch.all_inside.defined() ? unswitch.all_inside && holds : holds;
  }
  return unswitch;
}

}  // namespace tessera::schedule

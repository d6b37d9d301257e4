// Finding a reduction's packed read (see packed_read.h).
#include "schedule/packed_read.h"

#include <algorithm>
#include <functional>

#include "schedule/simplify.h"

namespace tessera::schedule::detail {
namespace {

// The dimension of load `e` that `v` indexes as v (+ reduction variables of extent 1), or -1
// when no dimension uses `v`, or -2 when one uses it otherwise.
int plain_dimension(const Expr& e, const TensorNode& op, const ExprNode* v) {
  int found = -1;
  for (size_t d = 0; d < e->operands.size(); ++d) {
    const Expr& index = e->operands[d];
    if (!uses_var(index, v)) continue;
    if (found != -1) return -2;
    int64_t coefficient = 0;
    if (!linear_coefficient(index, v, &coefficient) || coefficient != 1) return -2;
    for (const Axis& a : op.axes) {
      if (a.var.get() != v && uses_var(index, a.var.get())) return -2;
    }
    for (const Axis& r : op.reduce_axes) {
      if (r.extent != 1 && uses_var(index, r.var.get())) return -2;
    }
    found = static_cast<int>(d);
  }
  return found;
}

// Fills `read.rows`: the inputs other than the packed one and the blocked ones that use exactly
// one spatial axis of `op`, other than the vector axis, as a plain dimension.
void add_row_reads(const TensorNode& op, const State& state, PackedRead& read) {
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    for (const Expr& o : e->operands) visit(o);
    if (e->kind != ExprKind::kLoad || e->name == read.packed.input) return;
    int p = state.stage_index(e->name);
    if (p < 0 || !state.stage(p).op->is_placeholder) return;
    auto named = [&](const AxisRead& r) { return r.input == e->name; };
    if (std::any_of(read.blocked.begin(), read.blocked.end(), named)) return;
    for (const auto& [r, axis] : read.rows) {
      if (r.input == e->name) return;
    }
    std::vector<size_t> used;
    for (size_t a = 0; a < op.axes.size(); ++a) {
      if (std::any_of(e->operands.begin(), e->operands.end(),
                      [&](const Expr& i) { return uses_var(i, op.axes[a].var.get()); })) {
        used.push_back(a);
      }
    }
    if (used.size() != 1 || used[0] == read.axis) return;
    int d = plain_dimension(e, op, op.axes[used[0]].var.get());
    if (d >= 0) read.rows.push_back({{e->name, static_cast<size_t>(d), e->operands.size()}, used[0]});
  };
  visit(op.body);
}

}  // namespace

std::optional<PackedRead> find_packed_read(const TensorNode& op, const State& state, bool constant) {
  std::optional<PackedRead> found;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (found) return;
    if (e->kind == ExprKind::kLoad) {
      int p = state.stage_index(e->name);
      if (p >= 0 && state.stage(p).op->is_placeholder && state.stage(p).op->is_constant == constant) {
        std::vector<std::pair<size_t, size_t>> uses;  // (axis, dim)
        bool plain = true;
        for (size_t d = 0; d < e->operands.size(); ++d) {
          for (size_t a = 0; a < op.axes.size(); ++a) {
            if (!uses_var(e->operands[d], op.axes[a].var.get())) continue;
            uses.emplace_back(a, d);
            plain &= e->operands[d].same_as(op.axes[a].var);
          }
        }
        const bool last_axis = uses.size() == 1 && uses[0].first + 1 == op.axes.size();
        if (uses.size() == 1 && plain && op.axes[uses[0].first].extent >= 2 && (constant || last_axis)) {
          found = PackedRead{{e->name, uses[0].second, e->operands.size()}, uses[0].first, {}, {}};
        }
      }
    }
    for (const Expr& o : e->operands) visit(o);
  };
  visit(op.body);
  if (!found) return found;
  const ExprNode* vector_var = op.axes[found->axis].var.get();
  bool ok = true;
  std::function<void(const Expr&)> check = [&](const Expr& e) {
    if (e->kind == ExprKind::kLoad && e->name != found->packed.input) {
      int d = plain_dimension(e, op, vector_var);
      if (d == -2) ok = false;
      bool seen = std::any_of(found->blocked.begin(), found->blocked.end(),
                              [&](const AxisRead& b) { return b.input == e->name; });
      if (d >= 0 && !seen) found->blocked.push_back({e->name, static_cast<size_t>(d), e->operands.size()});
    }
    for (const Expr& o : e->operands) check(o);
  };
  check(op.body);
  if (!ok) found.reset();
  if (found && !constant) add_row_reads(op, state, *found);
  return found;
}

}  // namespace tessera::schedule::detail

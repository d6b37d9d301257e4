// Loop partitioning around vectorized loops (see partition.h).
#include "schedule/partition.h"

namespace tessera::schedule {
namespace {

constexpr int kMaxDuplicatedStatements = 64;

// `s` with `map` applied to every expression, each simplified under `ranges`.
Stmt substitute_stmt(const Stmt& s, const VarMap& map, const RangeMap& ranges) {
  if (!s) return s;
  auto sub = [&](const Expr& e) { return simplify(substitute(e, map), ranges); };
  switch (s->kind) {
    case StmtKind::kFor: return make_for(s->loop_var, s->extent, s->for_kind, substitute_stmt(s->body, map, ranges));
    case StmtKind::kStore: return make_store(s->buffer, sub(s->index), sub(s->value));
    case StmtKind::kAllocate:
      return make_allocate(s->buffer, s->size, s->dtype, s->scope, substitute_stmt(s->body, map, ranges));
    case StmtKind::kIfThenElse:
      return make_if(sub(s->condition), substitute_stmt(s->then_case, map, ranges),
                     substitute_stmt(s->else_case, map, ranges));
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) children.push_back(substitute_stmt(c, map, ranges));
      return make_seq(std::move(children));
    }
  }
  return s;
}

bool proven_true(const Expr& condition, const RangeMap& ranges) {
  int64_t truth = 0;
  return is_const_int(simplify(condition, ranges), &truth) && truth != 0;
}

// `s` without the guards (no else branch) that `ranges` prove true.
Stmt drop_true_guards(const Stmt& s, const RangeMap& ranges) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kFor: return make_for(s->loop_var, s->extent, s->for_kind, drop_true_guards(s->body, ranges));
    case StmtKind::kAllocate:
      return make_allocate(s->buffer, s->size, s->dtype, s->scope, drop_true_guards(s->body, ranges));
    case StmtKind::kIfThenElse:
      if (!s->else_case && proven_true(s->condition, ranges)) return drop_true_guards(s->then_case, ranges);
      return make_if(s->condition, drop_true_guards(s->then_case, ranges), drop_true_guards(s->else_case, ranges));
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) children.push_back(drop_true_guards(c, ranges));
      return make_seq(std::move(children));
    }
    case StmtKind::kStore: break;
  }
  return s;
}

// Guards under a vectorized loop in `s` that read `v`; false when `s` allocates or runs a
// parallel loop (those are not duplicated).
bool vector_guards(const Stmt& s, const ExprNode* v, bool under_vector, std::vector<Expr>* out) {
  if (!s) return true;
  switch (s->kind) {
    case StmtKind::kFor:
      if (s->for_kind == ForKind::kParallel) return false;
      return vector_guards(s->body, v, under_vector || s->for_kind == ForKind::kVectorized, out);
    case StmtKind::kAllocate: return false;
    case StmtKind::kIfThenElse:
      if (under_vector && uses_var(s->condition, v)) out->push_back(s->condition);
      return vector_guards(s->then_case, v, under_vector, out) && vector_guards(s->else_case, v, under_vector, out);
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) {
        if (!vector_guards(c, v, under_vector, out)) return false;
      }
      return true;
    case StmtKind::kStore: return true;
  }
  return true;
}

RangeMap with_range(const RangeMap& ranges, const ExprNode* v, int64_t extent) {
  RangeMap out{{v, Interval{0, extent - 1}}};  // first match wins
  out.insert(out.end(), ranges.begin(), ranges.end());
  return out;
}

Stmt partition(const Stmt& s, const RangeMap& ranges);

Stmt partition_loop(const Stmt& loop, const RangeMap& ranges) {
  Stmt body = partition(loop->body, ranges);
  Stmt unchanged = make_for(loop->loop_var, loop->extent, loop->for_kind, body);
  if (loop->for_kind != ForKind::kSerial && loop->for_kind != ForKind::kUnrolled) return unchanged;
  const ExprNode* v = loop->loop_var.get();
  std::vector<Expr> guards;
  if (!vector_guards(body, v, false, &guards) || guards.empty()) return unchanged;
  int statements = 0;  // the body is duplicated: keep code (and compile time) in bounds
  visit(body, [&](const StmtNode&) { ++statements; });
  if (statements > kMaxDuplicatedStatements) return unchanged;
  auto all_true = [&](int64_t m) {
    RangeMap main = with_range(ranges, v, m);
    for (const Expr& g : guards) {
      if (!proven_true(g, main)) return false;
    }
    return true;
  };
  // The longest guard-free prefix of the loop (all_true holds for every shorter one).
  int64_t lo = 0, hi = loop->extent - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) / 2;
    if (all_true(mid)) lo = mid;
    else hi = mid - 1;
  }
  if (lo == 0) return unchanged;
  const int64_t main = lo, rest = loop->extent - lo;
  Stmt main_loop = make_for(loop->loop_var, main, loop->for_kind, drop_true_guards(body, with_range(ranges, v, main)));
  if (rest == 1) {  // the last iteration, in place
    return make_seq({main_loop, drop_true_guards(substitute_stmt(body, {{v, Expr(main)}}, ranges), ranges)});
  }
  Expr rest_var = var(loop->loop_var->name + ".rest");
  RangeMap rest_ranges = with_range(ranges, rest_var.get(), rest);
  Stmt rest_body = drop_true_guards(substitute_stmt(body, {{v, rest_var + Expr(main)}}, rest_ranges), rest_ranges);
  return make_seq({main_loop, make_for(rest_var, rest, loop->for_kind, rest_body)});
}

Stmt partition(const Stmt& s, const RangeMap& ranges) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kFor: return partition_loop(s, ranges);
    case StmtKind::kAllocate: return make_allocate(s->buffer, s->size, s->dtype, s->scope, partition(s->body, ranges));
    case StmtKind::kIfThenElse:
      return make_if(s->condition, partition(s->then_case, ranges), partition(s->else_case, ranges));
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) children.push_back(partition(c, ranges));
      return make_seq(std::move(children));
    }
    case StmtKind::kStore: break;
  }
  return s;
}

}  // namespace

Stmt partition_vector_guards(const Stmt& body, const RangeMap& ranges) { return partition(body, ranges); }

}  // namespace tessera::schedule

// Loop partitioning around vectorized loops (see partition.h).
#include "schedule/partition.h"

#include <algorithm>

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
      return rebuild_if(s, sub(s->condition), substitute_stmt(s->then_case, map, ranges),
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

// `s` without the guards (no else branch) that `ranges` prove true, and without the branches
// they prove never run.
Stmt drop_true_guards(const Stmt& s, const RangeMap& ranges) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kFor: return make_for(s->loop_var, s->extent, s->for_kind, drop_true_guards(s->body, ranges));
    case StmtKind::kAllocate:
      return make_allocate(s->buffer, s->size, s->dtype, s->scope, drop_true_guards(s->body, ranges));
    case StmtKind::kIfThenElse: {
      int64_t truth = 0;
      if (is_const_int(simplify(s->condition, ranges), &truth)) {
        if (truth) return drop_true_guards(s->then_case, ranges);
        // A branch that never runs (a block of padding at a loop's last iteration) goes.
        return s->else_case ? drop_true_guards(s->else_case, ranges) : make_seq({});
      }
      return rebuild_if(s, s->condition, drop_true_guards(s->then_case, ranges), drop_true_guards(s->else_case, ranges));
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) children.push_back(drop_true_guards(c, ranges));
      return make_seq(std::move(children));
    }
    case StmtKind::kStore: break;
  }
  return s;
}

// Guards (ifs without else) in `s` that read `v` (any guard when `v` is null): under a
// vectorized loop, or anywhere when `anywhere`. False when `s` allocates or runs a parallel
// loop (those are not duplicated).
bool vector_guards(const Stmt& s, const ExprNode* v, bool under_vector, std::vector<Expr>* out,
                   bool anywhere = false) {
  if (!s) return true;
  switch (s->kind) {
    case StmtKind::kFor:
      if (s->for_kind == ForKind::kParallel) return false;
      return vector_guards(s->body, v, under_vector || s->for_kind == ForKind::kVectorized, out, anywhere);
    case StmtKind::kAllocate: return false;
    case StmtKind::kIfThenElse:
      if ((under_vector || anywhere) && !s->else_case && (!v || uses_var(s->condition, v))) {
        out->push_back(s->condition);
      }
      return vector_guards(s->then_case, v, under_vector, out, anywhere) &&
             vector_guards(s->else_case, v, under_vector, out, anywhere);
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) {
        if (!vector_guards(c, v, under_vector, out, anywhere)) return false;
      }
      return true;
    case StmtKind::kStore: return true;
  }
  return true;
}

int statement_count(const Stmt& s) {
  int statements = 0;  // a duplicated body: keep code (and compile time) in bounds
  visit(s, [&](const StmtNode&) { ++statements; });
  return statements;
}

// `g` for every iteration of the loops in `inner` at once: a comparison linear in their
// variables holds for all of them when it holds at the corner where lhs - rhs is largest (each
// variable first or last by the sign of its coefficient); a conjunction when each part does.
// Undefined where `g` is neither.
Expr for_all(const Expr& g, const LoopBox& inner) {
  if (g->kind == ExprKind::kAnd) {
    Expr a = for_all(g->operands[0], inner), b = for_all(g->operands[1], inner);
    return a.defined() && b.defined() ? a && b : Expr();
  }
  if (g->kind != ExprKind::kLT && g->kind != ExprKind::kLE) return Expr();
  const auto corner = extreme_corner(simplify(g->operands[0] - g->operands[1]), inner, /*largest=*/true);
  return corner ? substitute(g, *corner) : Expr();
}

// `s` without the guards in `hoisted` (compared by identity).
Stmt drop_guards(const Stmt& s, const std::vector<Expr>& hoisted) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kFor: return make_for(s->loop_var, s->extent, s->for_kind, drop_guards(s->body, hoisted));
    case StmtKind::kIfThenElse:
      for (const Expr& h : hoisted) {
        if (!s->else_case && h.get() == s->condition.get()) return drop_guards(s->then_case, hoisted);
      }
      return rebuild_if(s, s->condition, drop_guards(s->then_case, hoisted), drop_guards(s->else_case, hoisted));
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) children.push_back(drop_guards(c, hoisted));
      return make_seq(std::move(children));
    }
    case StmtKind::kAllocate: case StmtKind::kStore: break;
  }
  return s;
}

// Unswitching, for guards that depend on loops outside `loop` (the tile a tiled nest is in:
// only edge tiles are partial, and the tile loops are often parallel, fused or around an
// allocation, where partition_loop cannot go): `if (every guard holds throughout) loop without
// them else loop`, the condition evaluated once per entry. Empty when no guard under a vector
// loop qualifies.
Stmt unswitch(const Stmt& loop, const RangeMap& ranges) {
  if (loop->for_kind != ForKind::kSerial && loop->for_kind != ForKind::kUnrolled) return Stmt();
  std::vector<Expr> under_vector, all;
  if (!vector_guards(loop, nullptr, false, &under_vector) || under_vector.empty()) return Stmt();
  if (statement_count(loop) > kMaxDuplicatedStatements) return Stmt();
  vector_guards(loop, nullptr, false, &all, true);
  LoopBox inner;
  visit(loop, [&](const StmtNode& n) {
    if (n.kind == StmtKind::kFor) inner.emplace_back(n.loop_var.get(), n.extent);
  });
  std::vector<Expr> hoisted;
  Expr condition;
  bool any_under_vector = false;
  for (const Expr& g : all) {
    Expr always = for_all(g, inner);
    if (!always.defined()) continue;
    always = simplify(always, ranges);
    int64_t truth = 0;
    if (is_const_int(always, &truth) && !truth) continue;  // fails on every entry: partition_loop's
    hoisted.push_back(g);
    any_under_vector |= std::any_of(under_vector.begin(), under_vector.end(),
                                    [&](const Expr& u) { return u.get() == g.get(); });
    if (!is_const_int(always)) condition = condition.defined() ? condition && always : always;
  }
  if (!any_under_vector) return Stmt();
  Stmt fast = drop_guards(loop, hoisted);
  if (!condition.defined()) return fast;
  return make_if(condition, fast, Stmt());
}

RangeMap with_range(const RangeMap& ranges, const ExprNode* v, int64_t extent) {
  RangeMap out{{v, Interval{0, extent - 1}}};  // first match wins
  out.insert(out.end(), ranges.begin(), ranges.end());
  return out;
}

// `may_unswitch` is false inside an unswitched loop: one level of versions, not a cascade.
Stmt partition(const Stmt& s, const RangeMap& ranges, bool may_unswitch);

Stmt partition_loop(const Stmt& loop, const RangeMap& ranges, bool may_unswitch) {
  Stmt body = partition(loop->body, ranges, may_unswitch);
  Stmt unchanged = make_for(loop->loop_var, loop->extent, loop->for_kind, body);
  if (loop->for_kind != ForKind::kSerial && loop->for_kind != ForKind::kUnrolled) return unchanged;
  // Guards on `v` around a vector loop count too (a reduction split's guard wraps the whole
  // register tile); a nest without a vector loop is left as it is.
  const ExprNode* v = loop->loop_var.get();
  std::vector<Expr> guards;
  bool vector_loop = false;
  visit(body, [&](const StmtNode& n) { vector_loop |= n.kind == StmtKind::kFor && n.for_kind == ForKind::kVectorized; });
  if (!vector_loop || !vector_guards(body, v, false, &guards, true) || guards.empty()) return unchanged;
  if (statement_count(body) > kMaxDuplicatedStatements) return unchanged;
  RangeMap local = ranges;  // with the loops inside, remainders of inner partitions among them
  visit(body, [&](const StmtNode& n) {
    if (n.kind == StmtKind::kFor) local = with_range(local, n.loop_var.get(), n.extent);
  });
  // Guards that fail on the first iteration already depend on something else (the tile): left.
  std::erase_if(guards, [&](const Expr& g) { return !proven_true(g, with_range(local, v, 1)); });
  if (guards.empty()) return unchanged;
  auto all_true = [&](int64_t m) {
    RangeMap main = with_range(local, v, m);
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
  Stmt main_loop = make_for(loop->loop_var, main, loop->for_kind, drop_true_guards(body, with_range(local, v, main)));
  if (rest == 1) {  // the last iteration, in place
    return make_seq({main_loop, drop_true_guards(substitute_stmt(body, {{v, Expr(main)}}, local), local)});
  }
  Expr rest_var = var(loop->loop_var->name + ".rest");
  RangeMap rest_ranges = with_range(local, rest_var.get(), rest);
  Stmt rest_body = drop_true_guards(substitute_stmt(body, {{v, rest_var + Expr(main)}}, rest_ranges), rest_ranges);
  return make_seq({main_loop, make_for(rest_var, rest, loop->for_kind, rest_body)});
}

Stmt partition(const Stmt& s, const RangeMap& ranges, bool may_unswitch) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kFor: {
      Stmt unswitched = may_unswitch ? unswitch(s, ranges) : Stmt();
      if (!unswitched) return partition_loop(s, ranges, may_unswitch);
      if (unswitched->kind == StmtKind::kFor) return partition_loop(unswitched, ranges, false);  // always true
      return make_if(unswitched->condition, partition_loop(unswitched->then_case, ranges, false),
                     partition_loop(s, ranges, false));
    }
    case StmtKind::kAllocate:
      return make_allocate(s->buffer, s->size, s->dtype, s->scope, partition(s->body, ranges, may_unswitch));
    case StmtKind::kIfThenElse:
      return rebuild_if(s, s->condition, partition(s->then_case, ranges, may_unswitch),
                     partition(s->else_case, ranges, may_unswitch));
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) children.push_back(partition(c, ranges, may_unswitch));
      return make_seq(std::move(children));
    }
    case StmtKind::kStore: break;
  }
  return s;
}

}  // namespace

Stmt partition_vector_guards(const Stmt& body, const RangeMap& ranges) { return partition(body, ranges, true); }

}  // namespace tessera::schedule

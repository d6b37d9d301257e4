// Guards around local-buffer stores moved onto the reads (see pad_local.h).
#include "schedule/pad_local.h"

#include <algorithm>

namespace tessera::schedule {
namespace {

struct Scope {
  RangeMap ranges;                                    // loops bound so far, innermost first
  std::vector<std::pair<std::string, int64_t>> locals;  // local buffers in scope: name, size
  const ExprNode* lane = nullptr;                     // the vectorized loop's variable, if inside one
  std::vector<std::pair<const ExprNode*, int64_t>> tile_loops;  // inside the innermost local buffer
  std::vector<Expr> kept;                             // conditions of the branches around, kept

  Scope inside(const StmtNode& loop) const {
    Scope s = *this;
    s.ranges.insert(s.ranges.begin(), {loop.loop_var.get(), Interval{0, loop.extent - 1}});
    s.tile_loops.emplace_back(loop.loop_var.get(), loop.extent);
    if (loop.for_kind == ForKind::kVectorized) s.lane = loop.loop_var.get();
    return s;
  }
  // The size of local buffer `name`, or -1 when it is not one.
  int64_t local_size(const std::string& name) const {
    for (auto it = locals.rbegin(); it != locals.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    return -1;
  }
  bool in_local(const std::string& buffer, const Expr& index) const {
    const int64_t size = local_size(buffer);
    const Interval b = bound(index, ranges);
    return size > 0 && b.bounded() && b.min >= 0 && b.max < size;
  }
};

Expr conjunction(const std::vector<Expr>& parts) {
  Expr all;
  for (const Expr& p : parts) all = all.defined() ? all && p : p;
  return all;
}

bool reads(const Expr& e, const std::string& buffer) {
  if (!e.defined()) return false;
  if (e->kind == ExprKind::kLoad && e->name == buffer) return true;
  return std::any_of(e->operands.begin(), e->operands.end(), [&](const Expr& o) { return reads(o, buffer); });
}

// Whether a read of `buffer` in `e` sits under a select whose condition tests `v`: such a read
// runs only where the condition holds, which a corner of `v` need not keep. (A read outside
// every select, a depthwise conv's weight beside its padded input, runs at every point.)
bool select_tests(const Expr& e, const ExprNode* v, const std::string& buffer) {
  if (!e.defined()) return false;
  if (e->kind == ExprKind::kSelect && uses_var(e->operands[0], v) &&
      (reads(e->operands[1], buffer) || reads(e->operands[2], buffer))) {
    return true;
  }
  return std::any_of(e->operands.begin(), e->operands.end(),
                     [&](const Expr& o) { return select_tests(o, v, buffer); });
}

// `guards` for some value of each loop of the tile that `index` does not read (and no kept
// branch tests, nor a select around a read of `buffer` in `value`): where every guard is linear in such a loop, all growing the same way, they
// hold together at one end of it if anywhere, so it takes that end. A read at `index` is in
// bounds where the result holds: the guards hold at a point that reads the same element.
Expr for_some(const std::vector<Expr>& guards, const std::string& buffer, const Expr& index, const Expr& value,
              const Scope& scope) {
  std::vector<Expr> parts;
  for (const Expr& g : guards) split_conjuncts(g, &parts);
  VarMap corners;
  for (const auto& [v, extent] : scope.tile_loops) {
    if (uses_var(index, v) || select_tests(value, v, buffer) || std::any_of(scope.kept.begin(), scope.kept.end(),
                                          [&](const Expr& k) { return uses_var(k, v); })) {
      continue;
    }
    int sign = 0;
    bool linear = true;
    for (const Expr& p : parts) {
      if (!uses_var(p, v)) continue;
      int64_t c = 0;
      linear = linear && (p->kind == ExprKind::kLT || p->kind == ExprKind::kLE) &&
               linear_coefficient(simplify(p->operands[0] - p->operands[1]), v, &c);
      const int s = c > 0 ? 1 : c < 0 ? -1 : 0;
      linear = linear && !(s != 0 && sign != 0 && s != sign);
      if (s != 0) sign = s;
    }
    // lhs - rhs smallest: the first iteration when it grows with the loop, the last otherwise.
    if (linear && sign != 0) corners.emplace_back(v, Expr(sign > 0 ? int64_t{0} : extent - 1));
  }
  return simplify(substitute(conjunction(parts), corners), scope.ranges);
}

// The value of a store under `guards` with every read of a non-local buffer made safe; undefined
// when a read cannot be.
Expr guarded_reads(const Expr& value, const std::vector<Expr>& guards, const Scope& scope) {
  bool ok = true;
  Expr out = rewrite_loads(value, [&](const Expr& load) -> Expr {
    const Expr& index = load->operands[0];
    if (scope.local_size(load->name) >= 0) {
      ok &= scope.in_local(load->name, index);
      return load;
    }
    const Expr some = for_some(guards, load->name, index, value, scope);
    if (scope.lane && uses_var(index, scope.lane)) {
      const Expr zero = is_float(load->dtype) ? float_imm(0.0, load->dtype) : Expr(int64_t{0});
      return select(some, load, zero);  // masked lanes read nothing
    }
    ok &= !scope.lane || !uses_var(some, scope.lane);  // one scalar read for every lane
    return with_operands(load, {select(some, index, Expr(int64_t{0}))});
  });
  return ok ? out : Expr();
}

// `s` (the body of `guards`) without those that only pick padded slots, its reads guarded
// instead; null when `s` stores to anything but a local buffer inside its allocation,
// allocates, runs in parallel or branches.
Stmt drop_guards(const Stmt& s, std::vector<Expr>& guards, const Scope& scope) {
  switch (s->kind) {
    case StmtKind::kStore: {
      if (!scope.in_local(s->buffer, s->index)) return nullptr;
      Expr value = guarded_reads(s->value, guards, scope);
      if (!value.defined()) return nullptr;
      // Only a guard that tells which slot this is (a point past the extent writes a padded
      // slot) may go; one on a loop of the tile the slot does not depend on (a reduction step
      // past its extent would add to a real slot) or on the tile alone stays around the store.
      std::vector<Expr> parts, kept;
      for (const Expr& g : guards) split_conjuncts(g, &parts);
      for (const Expr& p : parts) {
        bool slot = false, other = false;
        for (const auto& [v, extent] : scope.tile_loops) {
          if (!uses_var(p, v)) continue;
          (uses_var(s->index, v) ? slot : other) = true;
        }
        if (!slot || other) kept.push_back(p);
      }
      Stmt store = make_store(s->buffer, s->index, value);
      return kept.empty() ? store : make_if(conjunction(kept), store);
    }
    case StmtKind::kIfThenElse: {
      if (s->skips_padding) {  // stays where it is; the guards outside it go on inside
        Stmt then = drop_guards(s->then_case, guards, scope);
        return then ? rebuild_if(s, s->condition, then, nullptr) : nullptr;
      }
      int64_t truth = 1;
      if (s->else_case || (is_const_int(s->condition, &truth) && !truth)) return nullptr;  // dead code stays dead
      guards.push_back(s->condition);
      Stmt then = drop_guards(s->then_case, guards, scope);
      guards.pop_back();
      return then;
    }
    case StmtKind::kFor: {
      if (s->for_kind == ForKind::kParallel || s->for_kind == ForKind::kGpuBlock ||
          s->for_kind == ForKind::kGpuThread) {
        return nullptr;
      }
      Stmt body = drop_guards(s->body, guards, scope.inside(*s));
      return body ? make_for(s->loop_var, s->extent, s->for_kind, body, s->gpu_dim) : nullptr;
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) {
        children.push_back(drop_guards(c, guards, scope));
        if (!children.back()) return nullptr;
      }
      return make_seq(std::move(children));
    }
    case StmtKind::kAllocate: return nullptr;
  }
  return nullptr;
}

Stmt pad(const Stmt& s, const Scope& scope) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kFor:
      return make_for(s->loop_var, s->extent, s->for_kind, pad(s->body, scope.inside(*s)), s->gpu_dim);
    case StmtKind::kAllocate: {
      Scope inner = scope;
      if (s->scope == StorageScope::kLocal) {
        inner.locals.emplace_back(s->buffer, s->size);
        inner.tile_loops.clear();
        inner.kept.clear();
      }
      return make_allocate(s->buffer, s->size, s->dtype, s->scope, pad(s->body, inner));
    }
    case StmtKind::kIfThenElse: {
      int64_t truth = 1;
      if (!s->else_case && !s->skips_padding && !scope.locals.empty() &&
          !(is_const_int(s->condition, &truth) && !truth)) {
        std::vector<Expr> guards{s->condition};
        if (Stmt dropped = drop_guards(s->then_case, guards, scope)) return dropped;
      }
      Scope inner = scope;
      inner.kept.push_back(s->condition);
      return rebuild_if(s, s->condition, pad(s->then_case, inner), pad(s->else_case, inner));
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> children;
      for (const Stmt& c : s->children) children.push_back(pad(c, scope));
      return make_seq(std::move(children));
    }
    case StmtKind::kStore: break;
  }
  return s;
}

}  // namespace

Stmt pad_local_guards(const Stmt& body, const RangeMap& ranges) {
  Scope scope;
  scope.ranges = ranges;
  return pad(body, scope);
}

}  // namespace tessera::schedule

// Canonical linear forms, bounds-driven div/mod resolution and constant folding
// (see simplify.h).
#include "schedule/simplify.h"

#include <algorithm>
#include <cmath>

#include "schedule/floor_div.h"

namespace tessera::schedule {
namespace {

bool structural_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (a->kind != b->kind || a->dtype != b->dtype || a->operands.size() != b->operands.size()) {
    return false;
  }
  switch (a->kind) {
    case ExprKind::kVar: return false;  // variables are equal only by identity
    case ExprKind::kIntImm: return a->int_value == b->int_value;
    case ExprKind::kFloatImm: return a->float_value == b->float_value;
    case ExprKind::kLoad: if (a->name != b->name) return false; break;
    case ExprKind::kCall: if (a->fn != b->fn) return false; break;
    default: break;
  }
  for (size_t i = 0; i < a->operands.size(); ++i) {
    if (!structural_equal(a->operands[i], b->operands[i])) return false;
  }
  return true;
}

// sum(coefficient * atom) + constant over integer atoms.
struct Linear {
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;

  void add(const Expr& atom, int64_t c) {
    if (c == 0) return;
    for (auto& [a, coeff] : terms) {
      if (structural_equal(a, atom)) {
        coeff += c;
        return;
      }
    }
    terms.emplace_back(atom, c);
  }
  void drop_cancelled() {
    std::erase_if(terms, [](const auto& term) { return term.second == 0; });
  }
};

// Adds scale x `e` to `l`, one accumulator for the whole tree: building a linear form per node
// and merging it upward re-added every term at each level of a sum, cubic in its size.
void accumulate(Linear& l, const Expr& e, int64_t scale) {
  const auto& o = e->operands;
  int64_t c;
  switch (e->kind) {
    case ExprKind::kIntImm: l.constant += e->int_value * scale; return;
    case ExprKind::kAdd:
      accumulate(l, o[0], scale);
      accumulate(l, o[1], scale);
      return;
    case ExprKind::kSub:
      accumulate(l, o[0], scale);
      accumulate(l, o[1], -scale);
      return;
    case ExprKind::kMul:
      if (is_const_int(o[1], &c)) return accumulate(l, o[0], c * scale);
      if (is_const_int(o[0], &c)) return accumulate(l, o[1], c * scale);
      break;
    default: break;
  }
  l.add(e, scale);
}

// The linear form of `e`, without the terms that cancelled (x - x has no x term).
Linear to_linear(const Expr& e) {
  Linear l;
  accumulate(l, e, 1);
  l.drop_cancelled();
  return l;
}

// a - b as one linear form (terms in both cancel).
Linear difference(const Expr& a, const Expr& b) {
  Linear l;
  accumulate(l, a, 1);
  accumulate(l, b, -1);
  return l;
}

Expr from_linear(const Linear& l) {
  Expr sum;
  for (const auto& [atom, c] : l.terms) {
    if (c == 0) continue;
    int64_t magnitude = c < 0 ? -c : c;
    Expr term = magnitude == 1 ? atom : make_binary(ExprKind::kMul, atom, int_imm(magnitude));
    if (!sum.defined()) {
      sum = c < 0 ? make_binary(ExprKind::kSub, int_imm(0), term) : term;
    } else {
      sum = make_binary(c < 0 ? ExprKind::kSub : ExprKind::kAdd, sum, term);
    }
  }
  if (!sum.defined()) return int_imm(l.constant);
  if (l.constant > 0) return make_binary(ExprKind::kAdd, sum, int_imm(l.constant));
  if (l.constant < 0) return make_binary(ExprKind::kSub, sum, int_imm(-l.constant));
  return sum;
}

// True when `e` is the tree from_linear(l) would build, node for node (atoms by identity): an
// expression simplified before comes back as itself instead of as a copy, and the copy is the
// allocation most of simplifying an already simple index was.
bool is_built_from(const Expr& e, const Linear& l) {
  auto is_term = [](const ExprNode* node, const Expr& atom, int64_t magnitude) {
    if (magnitude == 1) return node == atom.get();
    int64_t c;
    return node->kind == ExprKind::kMul && node->operands[0].same_as(atom) &&
           is_const_int(node->operands[1], &c) && c == magnitude;
  };
  std::vector<const std::pair<Expr, int64_t>*> terms;
  for (const auto& t : l.terms) {
    if (t.second != 0) terms.push_back(&t);
  }
  const ExprNode* node = e.get();
  int64_t c;
  if (terms.empty()) return is_const_int(e, &c) && c == l.constant;
  if (l.constant != 0) {  // sum + constant or sum - (-constant)
    if (node->kind != (l.constant > 0 ? ExprKind::kAdd : ExprKind::kSub)) return false;
    if (!is_const_int(node->operands[1], &c) || c != (l.constant > 0 ? l.constant : -l.constant)) return false;
    node = node->operands[0].get();
  }
  for (size_t i = terms.size(); i-- > 1;) {  // ((t0 +- t1) +- t2) ...: the last term first
    const auto& [atom, coeff] = *terms[i];
    if (node->kind != (coeff > 0 ? ExprKind::kAdd : ExprKind::kSub)) return false;
    if (!is_term(node->operands[1].get(), atom, coeff > 0 ? coeff : -coeff)) return false;
    node = node->operands[0].get();
  }
  const auto& [atom, coeff] = *terms[0];
  if (coeff > 0) return is_term(node, atom, coeff);
  return node->kind == ExprKind::kSub && is_const_int(node->operands[0], &c) && c == 0 &&
         is_term(node->operands[1].get(), atom, -coeff);
}

// Saturating interval arithmetic: anything that could overflow becomes unbounded.
Interval add(Interval a, Interval b) {
  if (!a.bounded() || !b.bounded()) return Interval::everything();
  int64_t lo, hi;
  if (__builtin_add_overflow(a.min, b.min, &lo) || __builtin_add_overflow(a.max, b.max, &hi)) {
    return Interval::everything();
  }
  return {lo, hi};
}
Interval negate(Interval a) {
  if (!a.bounded()) return Interval::everything();
  return {-a.max, -a.min};
}
Interval mul(Interval a, Interval b) {
  if (!a.bounded() || !b.bounded()) return Interval::everything();
  int64_t p[4];
  if (__builtin_mul_overflow(a.min, b.min, &p[0]) || __builtin_mul_overflow(a.min, b.max, &p[1]) ||
      __builtin_mul_overflow(a.max, b.min, &p[2]) || __builtin_mul_overflow(a.max, b.max, &p[3])) {
    return Interval::everything();
  }
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

Interval bound_linear(const Linear& l, const RangeMap& ranges) {
  Interval total = Interval::point(l.constant);
  for (const auto& [atom, c] : l.terms) {
    if (c != 0) total = add(total, mul(bound(atom, ranges), Interval::point(c)));  // x - x: nothing
  }
  return total;
}

Expr fold_int(ExprKind kind, int64_t a, int64_t b) {
  switch (kind) {
    case ExprKind::kMin: return int_imm(std::min(a, b));
    case ExprKind::kMax: return int_imm(std::max(a, b));
    case ExprKind::kLT: return bool_imm(a < b);
    case ExprKind::kLE: return bool_imm(a <= b);
    case ExprKind::kEQ: return bool_imm(a == b);
    case ExprKind::kNE: return bool_imm(a != b);
    case ExprKind::kAnd: return bool_imm(a && b);
    case ExprKind::kOr: return bool_imm(a || b);
    default: return Expr();
  }
}

// x / c and x % c for a constant c > 0: x = c*Q + R exactly, so x / c = Q + R / c and
// x % c = R % c; when the bounds put R in one block [k*c, k*c + c) both resolve.
Expr simplify_div_mod(ExprKind kind, const Expr& x, int64_t c, const RangeMap& ranges) {
  Linear l = to_linear(x);
  Linear q, r;
  for (const auto& [atom, coeff] : l.terms) {
    if (coeff % c == 0) q.add(atom, coeff / c);
    else r.add(atom, coeff);
  }
  q.constant = floor_div(l.constant, c);
  r.constant = floor_mod(l.constant, c);
  Interval rb = bound_linear(r, ranges);
  Expr r_expr = from_linear(r);
  if (rb.bounded() && floor_div(rb.min, c) == floor_div(rb.max, c)) {
    int64_t block = floor_div(rb.min, c);
    if (kind == ExprKind::kDiv) {
      q.constant += block;
      return from_linear(q);
    }
    Linear shifted = r;
    shifted.constant -= block * c;
    return from_linear(shifted);
  }
  if (kind == ExprKind::kMod) return make_binary(ExprKind::kMod, r_expr, int_imm(c));
  Linear result = q;
  result.add(make_binary(ExprKind::kDiv, r_expr, int_imm(c)), 1);
  return from_linear(result);
}

Expr simplify_int(const Expr& e, const RangeMap& ranges) {
  const Expr& a = e->operands[0];
  const Expr& b = e->operands[1];
  int64_t va, vb;
  bool ca = is_const_int(a, &va), cb = is_const_int(b, &vb);
  switch (e->kind) {  // (+, - and * are folded whole by simplify: add_simplified)
    case ExprKind::kDiv:
    case ExprKind::kMod:
      if (cb && vb > 0) {
        if (ca) return int_imm(e->kind == ExprKind::kDiv ? floor_div(va, vb) : floor_mod(va, vb));
        if (vb == 1) return e->kind == ExprKind::kDiv ? a : int_imm(0);
        return simplify_div_mod(e->kind, a, vb, ranges);
      }
      return e;
    case ExprKind::kMin:
    case ExprKind::kMax: {
      if (ca && cb) return fold_int(e->kind, va, vb);
      Interval d = bound_linear(difference(a, b), ranges);
      if (d.bounded() && d.max <= 0) return e->kind == ExprKind::kMin ? a : b;
      if (d.bounded() && d.min >= 0) return e->kind == ExprKind::kMin ? b : a;
      return e;
    }
    default: break;
  }
  if (is_comparison(e->kind)) {
    if (ca && cb) return fold_int(e->kind, va, vb);
    Interval d = bound_linear(difference(a, b), ranges);
    if (!d.bounded()) return e;
    switch (e->kind) {
      case ExprKind::kLT: if (d.max < 0) return bool_imm(true); if (d.min >= 0) return bool_imm(false); break;
      case ExprKind::kLE: if (d.max <= 0) return bool_imm(true); if (d.min > 0) return bool_imm(false); break;
      case ExprKind::kEQ: if (d.min == 0 && d.max == 0) return bool_imm(true); if (d.min > 0 || d.max < 0) return bool_imm(false); break;
      case ExprKind::kNE: if (d.min == 0 && d.max == 0) return bool_imm(false); if (d.min > 0 || d.max < 0) return bool_imm(true); break;
      default: break;
    }
  }
  return e;
}

Expr simplify_float(const Expr& e) {
  const Expr& a = e->operands[0];
  const Expr& b = e->operands[1];
  bool ca = a->kind == ExprKind::kFloatImm, cb = b->kind == ExprKind::kFloatImm;
  double x = a->float_value, y = b->float_value;
  if (ca && cb) {
    switch (e->kind) {
      case ExprKind::kAdd: return float_imm(x + y, e->dtype);
      case ExprKind::kSub: return float_imm(x - y, e->dtype);
      case ExprKind::kMul: return float_imm(x * y, e->dtype);
      case ExprKind::kDiv: return float_imm(x / y, e->dtype);
      default: return e;
    }
  }
  if (e->kind == ExprKind::kAdd && cb && y == 0.0) return a;
  if (e->kind == ExprKind::kAdd && ca && x == 0.0) return b;
  if (e->kind == ExprKind::kMul && cb && y == 1.0) return a;
  if (e->kind == ExprKind::kMul && ca && x == 1.0) return b;
  if (e->kind == ExprKind::kDiv && cb && y == 1.0) return a;
  return e;
}

Expr simplify_node(const Expr& e, const RangeMap& ranges) {
  switch (e->kind) {
    case ExprKind::kNot: {
      int64_t v;
      return is_const_int(e->operands[0], &v) ? bool_imm(!v) : e;
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      int64_t v;
      bool is_and = e->kind == ExprKind::kAnd;
      for (int side = 0; side < 2; ++side) {
        if (e->operands[side]->kind == ExprKind::kIntImm) {
          v = e->operands[side]->int_value;
          // true && x = x, false && x = false, true || x = true, false || x = x
          if (is_and == (v != 0)) return e->operands[1 - side];
          return bool_imm(v != 0);
        }
      }
      return e;
    }
    case ExprKind::kSelect: {
      int64_t v;
      if (is_const_int(e->operands[0], &v)) return v ? e->operands[1] : e->operands[2];
      return e;
    }
    case ExprKind::kCast: {
      const Expr& x = e->operands[0];
      if (is_float(e->dtype) && x->kind == ExprKind::kIntImm) {
        return float_imm(static_cast<double>(x->int_value), e->dtype);
      }
      return e;
    }
    default: break;
  }
  if (!is_binary(e->kind)) return e;
  const Expr& a = e->operands[0];
  if (is_float(a->dtype)) return simplify_float(e);
  return simplify_int(e, ranges);
}

}  // namespace

Interval bound(const Expr& e, const RangeMap& ranges) {
  switch (e->kind) {
    case ExprKind::kIntImm: return Interval::point(e->int_value);
    case ExprKind::kVar:
      for (const auto& [v, range] : ranges) {
        if (v == e.get()) return range;
      }
      return Interval::everything();
    case ExprKind::kAdd: return add(bound(e->operands[0], ranges), bound(e->operands[1], ranges));
    case ExprKind::kSub:
      return add(bound(e->operands[0], ranges), negate(bound(e->operands[1], ranges)));
    case ExprKind::kMul: return mul(bound(e->operands[0], ranges), bound(e->operands[1], ranges));
    case ExprKind::kDiv: {
      int64_t c;
      Interval a = bound(e->operands[0], ranges);
      if (!is_const_int(e->operands[1], &c) || c <= 0 || !a.bounded()) return Interval::everything();
      return {floor_div(a.min, c), floor_div(a.max, c)};
    }
    case ExprKind::kMod: {
      int64_t c;
      if (!is_const_int(e->operands[1], &c) || c <= 0) return Interval::everything();
      Interval a = bound(e->operands[0], ranges);
      if (a.bounded() && a.min >= 0 && a.max < c) return a;
      return {0, c - 1};
    }
    case ExprKind::kMin:
    case ExprKind::kMax: {
      Interval a = bound(e->operands[0], ranges), b = bound(e->operands[1], ranges);
      if (e->kind == ExprKind::kMin) return {std::min(a.min, b.min), std::min(a.max, b.max)};
      return {std::max(a.min, b.min), std::max(a.max, b.max)};
    }
    case ExprKind::kSelect: {
      Interval a = bound(e->operands[1], ranges), b = bound(e->operands[2], ranges);
      return {std::min(a.min, b.min), std::max(a.max, b.max)};
    }
    default: return Interval::everything();
  }
}

namespace {

bool is_int_linear(const Expr& e) {
  return (e->kind == ExprKind::kAdd || e->kind == ExprKind::kSub || e->kind == ExprKind::kMul) &&
         !is_float(e->operands[0]->dtype);
}

// Adds scale x `e` (an integer expression) to `l`, simplifying only its atoms: the nodes that
// are not +, - or * by a constant. One linear form for a whole sum, where simplifying it node by
// node rebuilt a linear form at every +, quadratic in the sum's size (index expressions of tiled
// convolutions have dozens of terms, and lowering them was most of featurizing a candidate).
void add_simplified(Linear& l, const Expr& e, int64_t scale, const RangeMap& ranges) {
  const auto& o = e->operands;
  switch (e->kind) {
    case ExprKind::kIntImm: l.constant += e->int_value * scale; return;
    case ExprKind::kAdd:
      add_simplified(l, o[0], scale, ranges);
      add_simplified(l, o[1], scale, ranges);
      return;
    case ExprKind::kSub:
      add_simplified(l, o[0], scale, ranges);
      add_simplified(l, o[1], -scale, ranges);
      return;
    case ExprKind::kMul: {
      Expr a = simplify(o[0], ranges), b = simplify(o[1], ranges);
      int64_t c;
      if (is_const_int(b, &c)) return accumulate(l, a, c * scale);
      if (is_const_int(a, &c)) return accumulate(l, b, c * scale);
      l.add(a.same_as(o[0]) && b.same_as(o[1]) ? e : with_operands(e, {a, b}), scale);
      return;
    }
    default: accumulate(l, simplify(e, ranges), scale);  // a div/mod may simplify to a sum
  }
}

}  // namespace

Expr simplify(const Expr& e, const RangeMap& ranges) {
  if (e->operands.empty()) return e;
  if (is_int_linear(e)) {
    Linear l;
    add_simplified(l, e, 1, ranges);
    return is_built_from(e, l) ? e : from_linear(l);
  }
  std::vector<Expr> operands;
  bool changed = false;
  for (const Expr& op : e->operands) {
    operands.push_back(simplify(op, ranges));
    changed |= !operands.back().same_as(op);
  }
  Expr rebuilt = changed ? with_operands(e, std::move(operands)) : e;
  return simplify_node(rebuilt, ranges);
}

namespace {

// The coefficient of `v` in `l`; false when `v` also appears inside another term (v * w, v / 4).
bool coefficient_in(const Linear& l, const ExprNode* v, int64_t* coefficient) {
  *coefficient = 0;
  for (const auto& [atom, c] : l.terms) {
    if (atom.get() == v) {
      *coefficient += c;
    } else if (uses_var(atom, v)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool linear_coefficient(const Expr& e, const ExprNode* v, int64_t* coefficient) {
  return coefficient_in(to_linear(e), v, coefficient);
}

std::optional<VarMap> extreme_corner(const Expr& e, const LoopBox& box, bool largest) {
  const Linear l = to_linear(e);  // once, not once per loop of the box
  VarMap corner;
  for (const auto& [v, extent] : box) {
    int64_t c = 0;
    if (!coefficient_in(l, v, &c)) return std::nullopt;
    if (c != 0) corner.emplace_back(v, Expr((c > 0) == largest ? extent - 1 : int64_t{0}));
  }
  return corner;
}

}  // namespace tessera::schedule

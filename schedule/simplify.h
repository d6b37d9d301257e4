// Simplifier for index arithmetic, and interval bounds of integer expressions.
//
// Integer expressions are brought to a canonical linear form (sum of coefficient * atom plus a
// constant, atoms in first-seen order); floor division and modulo by a constant are resolved
// when the bounds of the variables prove the remainder stays in range, which undoes the
// arithmetic that splits and fuses introduce ("((i.0*8 + i.1)*64 + j) / 64" becomes
// "i.0*8 + i.1"). Comparisons that the bounds decide become constants, which removes guards.
// Float expressions only get constant folding and identities.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "schedule/expr.h"

namespace tessera::schedule {

struct Interval {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  bool bounded() const {
    return min != std::numeric_limits<int64_t>::min() && max != std::numeric_limits<int64_t>::max();
  }
  static Interval point(int64_t v) { return {v, v}; }
  static Interval everything() { return {}; }
};

// The value range of each loop variable, typically [0, extent - 1].
using RangeMap = std::vector<std::pair<const ExprNode*, Interval>>;

// Bounds of an integer expression given variable ranges (unknown variables are unbounded).
Interval bound(const Expr& e, const RangeMap& ranges);

Expr simplify(const Expr& e, const RangeMap& ranges = {});

// When `e` (integer) is c * v + rest with `rest` not using `v` and c constant, returns c.
// Used by codegen to recognise contiguous (c == 1) and broadcast (c == 0) vector accesses.
bool linear_coefficient(const Expr& e, const ExprNode* v, int64_t* coefficient);

// The corner of a box of loop iterations (each variable in [0, extent)) where `e`, linear in
// those variables, is largest (`largest`) or smallest: each variable at its first or last
// iteration by the sign of its coefficient; variables `e` does not use are left out. Nullopt
// when `e` is not linear in some variable of `box`.
using LoopBox = std::vector<std::pair<const ExprNode*, int64_t>>;
std::optional<VarMap> extreme_corner(const Expr& e, const LoopBox& box, bool largest);

}  // namespace tessera::schedule

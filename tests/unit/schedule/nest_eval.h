// Evaluating the LoopNest IR's integer expressions at one point, for tests that walk a nest
// iteration by iteration as the kernel would run it (pad_local_test, padding_skip_test).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>

#include "schedule/loop_nest.h"
#include "schedule/simplify.h"

namespace tessera::schedule::testing {

// The value of integer expression `e` with every variable bound to a point in `values`.
inline int64_t eval(const Expr& e, const RangeMap& values) {
  const auto& o = e->operands;
  auto floor_div = [](int64_t a, int64_t b) { return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0); };
  switch (e->kind) {
    case ExprKind::kIntImm: return e->int_value;
    case ExprKind::kVar: {
      auto it = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == e.get(); });
      EXPECT_NE(it, values.end()) << e->name << " unbound";
      return it == values.end() ? 0 : it->second.min;
    }
    case ExprKind::kSelect: return eval(o[0], values) ? eval(o[1], values) : eval(o[2], values);
    case ExprKind::kNot: return !eval(o[0], values);
    default: break;
  }
  const int64_t a = eval(o[0], values), b = eval(o[1], values);
  switch (e->kind) {
    case ExprKind::kAdd: return a + b;
    case ExprKind::kSub: return a - b;
    case ExprKind::kMul: return a * b;
    case ExprKind::kDiv: return floor_div(a, b);
    case ExprKind::kMod: return a - floor_div(a, b) * b;
    case ExprKind::kMin: return std::min(a, b);
    case ExprKind::kMax: return std::max(a, b);
    case ExprKind::kLT: return a < b;
    case ExprKind::kLE: return a <= b;
    case ExprKind::kEQ: return a == b;
    case ExprKind::kNE: return a != b;
    case ExprKind::kAnd: return a && b;
    case ExprKind::kOr: return a || b;
    default: ADD_FAILURE() << "not an index: " << to_string(e); return 0;
  }
}

}  // namespace tessera::schedule::testing

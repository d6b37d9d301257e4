// Integer expressions evaluated at a point (see evaluate_int.h).
#include "schedule/evaluate_int.h"

#include <algorithm>

#include "schedule/floor_div.h"

namespace tessera::schedule {

std::optional<int64_t> evaluate_int(const Expr& e, const PointValues& at) {
  switch (e->kind) {
    case ExprKind::kIntImm: return e->int_value;
    case ExprKind::kVar:
      for (const auto& [v, value] : at) {
        if (v == e.get()) return value;
      }
      return std::nullopt;
    case ExprKind::kNot: {
      auto x = evaluate_int(e->operands[0], at);
      if (!x) return std::nullopt;
      return *x == 0 ? 1 : 0;
    }
    case ExprKind::kSelect: {
      auto c = evaluate_int(e->operands[0], at);
      if (!c) return std::nullopt;
      return evaluate_int(e->operands[*c != 0 ? 1 : 2], at);
    }
    case ExprKind::kFloatImm:
    case ExprKind::kCast:
    case ExprKind::kCall:
    case ExprKind::kLoad:
      return std::nullopt;
    default: break;
  }
  auto a = evaluate_int(e->operands[0], at);
  auto b = evaluate_int(e->operands[1], at);
  if (!a || !b) return std::nullopt;
  switch (e->kind) {
    case ExprKind::kAdd: return *a + *b;
    case ExprKind::kSub: return *a - *b;
    case ExprKind::kMul: return *a * *b;
    case ExprKind::kDiv:
      if (*b == 0) return std::nullopt;
      return floor_div(*a, *b);
    case ExprKind::kMod:
      if (*b == 0) return std::nullopt;
      return *a - floor_div(*a, *b) * *b;
    case ExprKind::kMin: return std::min(*a, *b);
    case ExprKind::kMax: return std::max(*a, *b);
    case ExprKind::kLT: return *a < *b ? 1 : 0;
    case ExprKind::kLE: return *a <= *b ? 1 : 0;
    case ExprKind::kEQ: return *a == *b ? 1 : 0;
    case ExprKind::kNE: return *a != *b ? 1 : 0;
    case ExprKind::kAnd: return (*a != 0 && *b != 0) ? 1 : 0;
    case ExprKind::kOr: return (*a != 0 || *b != 0) ? 1 : 0;
    default: return std::nullopt;
  }
}

}  // namespace tessera::schedule

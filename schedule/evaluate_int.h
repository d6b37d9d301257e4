// Integer and boolean expressions evaluated at one point: every variable given a value.
//
// For questions intervals answer too loosely. The bounds of `((row * 28) + col) * 192` over
// row in [0, 27] and col in [-1, 28] run below zero, though the read only leaves its buffer at
// row 0, col -1; evaluated at the corners of the loops' box the index says where it really
// lands. Used by the LLVM backend to tell which masked reads can point outside their buffer
// (runtime/llvm/emit_expr.cc). Floor semantics for division and modulo, as ExprKind says.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "schedule/expr.h"

namespace tessera::schedule {

using PointValues = std::vector<std::pair<const ExprNode*, int64_t>>;

// The value of `e` (integer or boolean: 0 or 1) with each variable at its value in `at`;
// nullopt when it reads a buffer, calls a function, uses floats, divides by zero, or meets a
// variable `at` does not give.
std::optional<int64_t> evaluate_int(const Expr& e, const PointValues& at);

}  // namespace tessera::schedule

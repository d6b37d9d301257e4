// Integer division and modulo that round toward negative infinity, the semantics ExprKind's
// kDiv and kMod give (C++'s `/` and `%` truncate toward zero). Shared by the simplifier, the
// evaluators and the feature extractor, so that all agree on what `(-1) / 4` is.
#pragma once

#include <cstdint>

namespace tessera::schedule {

// a / b rounded down; b != 0.
inline int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a - b * floor_div(a, b): takes the sign of b.
inline int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

}  // namespace tessera::schedule

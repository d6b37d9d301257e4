// Reduction blocks that read only padding are skipped.
//
// A convolution over a padded input multiplies the padding's zeros by weights: at 7x7 with a
// 3x3 kernel, 18% of the taps add nothing (361 of 441 per channel are real); vendor libraries
// skip them. When a reduction's term is a product with a factor that is zero wherever a
// padding condition fails (a read of a stage defined as `select(inside, x, 0)`, such as the
// `pad` stage, or that select inlined), the tap loop can stop reading where every point of a
// block lies outside. Max reductions over a `-inf` padding skip the same way.
//
// Each conjunct of the padding condition (`row >= 1`, `col < 8`, ...) becomes a guard placed
// inside the innermost loop of the reduction nest that binds one of its variables and is not
// part of the register tile (vectorized, unrolled, or unrolled by auto_unroll). The variables
// of loops inside the guard are quantified: the guard holds when some point of the block is
// inside, so a skipped block is padding at every point and the result is exact (for finite
// weights: 0 * inf would have been NaN). Guards over blocks of fewer than kMinSkippedSteps
// statement instances are not placed, as their test would cost more than they save.
// Run by `lower` (lower.cc) on every reduction stage.
#pragma once

#include <vector>

#include "schedule/simplify.h"
#include "schedule/state.h"

namespace tessera::schedule {

inline constexpr int64_t kMinSkippedSteps = 64;

// Guards for the update nest of reduction stage `stage` over `loops` (its loops from the
// first reduction loop on, outermost first): element i of the result goes inside loops[i - 1]
// (element 0 around the whole nest). `ranges` bound every loop variable.
std::vector<std::vector<Expr>> padding_skip_guards(const State& state, int stage,
                                                   const std::vector<Loop>& loops,
                                                   const RangeMap& ranges);

}  // namespace tessera::schedule

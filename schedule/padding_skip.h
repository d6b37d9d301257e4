// Reduction blocks that read only padding are skipped; blocks that read none run without its test.
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
//
// The dual, for padding inlined into the reduction (`select(inside, x, 0)` in its term, not a
// read of a padded buffer at root): most blocks read no padding at all (interior tiles, and
// at an edge tile every tap that does not reach over the border), so the nest is unswitched at
// the innermost loop outside the register tile that a padding conjunct reads: `if (every point
// of the block is inside) { the block reading x plainly } else { the block with the select }`.
// The test is each conjunct at the block's largest corner instead of its smallest. Without it
// the inlined select costs the hot loop about what a padded copy costs the call (ResNet-50's
// stride-2 3x3 at 56x56: a 1.7 MB buffer written every call, 9% of the conv; bench/NOTES.md).
// Run by `lower` (lower.cc) on every reduction stage.
#pragma once

#include <optional>
#include <vector>

#include "schedule/simplify.h"
#include "schedule/state.h"

namespace tessera::schedule {

inline constexpr int64_t kMinSkippedSteps = 64;
// Unswitch only blocks that run more than one reduction step outside the register tile: a
// depthwise conv's block is its tile alone, one step a tap, so its test costs what the select
// did, and with the nest doubled it ran 1.6-2x slower (MobileNetV2's 3x3 depthwise convs,
// Intel Xeon).
inline constexpr int64_t kMinUnswitchedSteps = 2;

// Guards for the update nest of reduction stage `stage` over `loops` (its loops from the
// first reduction loop on, outermost first): element i of the result goes inside loops[i - 1]
// (element 0 around the whole nest). `ranges` bound every loop variable.
std::vector<std::vector<Expr>> padding_skip_guards(const State& state, int stage,
                                                   const std::vector<Loop>& loops,
                                                   const RangeMap& ranges);

// Where and how a reduction nest with inlined padding is unswitched (see above).
struct PaddingUnswitch {
  int level = -1;      // the test goes inside loops[level] (-1: around the whole nest)
  Expr all_inside;     // the test: every point of the block reads inside; undefined when always
  Expr plain_body;     // the stage's body in its loops, the padding select replaced by its value
};

// The unswitch for reduction stage `stage` over `loops` (as for padding_skip_guards), or
// nullopt when its term has no inlined padding select or the test would never hold.
std::optional<PaddingUnswitch> padding_unswitch(const State& state, int stage,
                                                const std::vector<Loop>& loops,
                                                const RangeMap& ranges);

}  // namespace tessera::schedule

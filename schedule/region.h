// Region inference for compute_at, and the stage bodies it reads.
//
// When stage P is computed inside loop L of its consumer T, one iteration of L needs the part of
// P that T's body reads while the loops inside L (and T's reduction loops) run over their
// ranges, the loops at and outside L held fixed. Each index of each read of P is bounded with
// symbolic interval arithmetic over the LoopNest's integer expressions: the loops inside L
// contribute their constant ranges, the others stay symbolic. The union over reads gives a box:
// per dimension a first element (an expression in the outer loop variables) and an extent.
// When that extent varies from iteration to iteration, or the box would leave P's shape, the
// extent is a constant upper bound and a limit expression guards the computation.
#pragma once

#include <vector>

#include "schedule/expr.h"
#include "schedule/result.h"
#include "schedule/simplify.h"
#include "schedule/state.h"

namespace tessera::schedule {

struct Region {
  std::vector<Expr> offset;     // first element, per dimension
  std::vector<int64_t> extent;  // elements per dimension (an upper bound where `limit` is set)
  std::vector<Expr> limit;      // last element (inclusive) where it varies; else undefined
};

// Every stage that reads `producer` must be `target` or be computed (transitively) inside
// `target` at or within the loop; otherwise the result is an Error naming the outside reader.
Result<Region> infer_region(const State& state, int producer, int target, int loop_position);

// Whether `stage` is computed inside loop `loop_position` of `target` (directly or through
// other attached stages).
bool nested_inside(const State& state, int stage, int target, int loop_position);

// Stages that read `name`, seeing through inlined stages.
std::vector<int> stages_reading(const State& state, const std::string& name);

// `e` with reads of inlined stages replaced by their definitions (indices stay per dimension).
Expr expand_inlined(const State& state, const Expr& e);

// The value a stage computes at one point (its reduced term, for a reduction), in the stage's
// loop variables, with inlined producers expanded.
Expr stage_body_in_loops(const State& state, int stage);

// Ranges [0, extent - 1] of every loop variable of every stage.
RangeMap loop_ranges(const State& state);

}  // namespace tessera::schedule

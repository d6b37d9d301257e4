// Lowering: a schedule State becomes a LoweredFunc in the LoopNest IR.
//
// Each stage at root becomes a loop nest in the order of its loops, with its annotations as
// loop kinds; a reduction gets an init nest placed just outside its outermost reduction loop;
// guards from non-dividing splits sit at the innermost loop that binds all their variables;
// inlined stages are substituted into their consumers; intermediate stages get global
// allocations; multi-dimensional indices are flattened row-major and simplified.
#pragma once

#include <string>

#include "schedule/loop_nest.h"
#include "schedule/result.h"
#include "schedule/state.h"

namespace tessera::schedule {

Result<LoweredFunc> lower(const State& state, const std::string& name = "kernel");

}  // namespace tessera::schedule

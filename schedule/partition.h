// Loop partitioning: a guard-free main body for the innermost vectorized loop of a nest whose
// split does not divide its extent.
//
// A non-dividing split guards each point (`j.0*16 + j.1 <= 36`); under a vectorized loop the
// guard becomes a lane mask computed, with masked loads and stores, on every iteration. When
// the guard can only fail on the last iterations of a serial (or unrolled) loop around the
// vector loop, that loop is split into a main part, where the simplifier proves every such guard
// true and drops it, and a remainder that keeps the guards (masked there). Guards that depend on
// loops further out (which tile of a tiled nest this is: those loops are often parallel, fused,
// or around a cache_write allocation, where nothing is duplicated) are unswitched instead: the
// outermost loop inside such a context becomes `if (every guard holds throughout) { loop
// without them } else { loop }`, so full tiles run guard-free and only edge tiles are masked.
// Run by `lower` on the whole nest; the program computes the same values either way.
#pragma once

#include "schedule/loop_nest.h"
#include "schedule/simplify.h"

namespace tessera::schedule {

// `body` with loops partitioned as above; `ranges` are the loop variables' ranges.
Stmt partition_vector_guards(const Stmt& body, const RangeMap& ranges);

}  // namespace tessera::schedule

// Padded local tiles: the edge tiles of a non-dividing split compute their whole local
// accumulator tile, with only the reads of the inputs guarded.
//
// A ceil split (knobs.h) leaves guards (`j.0*16 + j.1 <= 1008`) around the points of an edge
// tile; partition.h runs full tiles without them, but an edge tile of a cache_write nest keeps
// one per row and a lane mask per vector, so its accumulator loads and stores are masked every
// iteration (never kept in registers) and its broadcast reads become gathers: the edge tiles
// cost many times a full one. A store into a local buffer (Allocate of scope local) whose index
// stays inside the allocation at every iteration needs no guard: the slots of points past the
// extent are scratch that no guarded reader copies out. So guards that only tell such slots
// apart (on the slot's own loops, not a reduction step's) are dropped, and each
// read of another buffer under them is made safe instead: a read along the vector lanes becomes
// `select(guard, read, 0)` (a masked load), any other read takes its index from
// `select(some lane's guard holds, index, 0)` (one scalar load, no gather). Guards on stores to
// global buffers (the copy out) stay. Run by `lower` after partition_vector_guards.
#pragma once

#include "schedule/loop_nest.h"
#include "schedule/simplify.h"

namespace tessera::schedule {

// `body` with guards around local-buffer stores moved onto the reads (see above); statements
// where that cannot be shown safe (index bounds unknown, guards not linear in the vector lane)
// are left as they are. `ranges` are the ranges of loop variables bound outside `body`.
Stmt pad_local_guards(const Stmt& body, const RangeMap& ranges = {});

}  // namespace tessera::schedule

// Program features of a lowered candidate, for the learned reward proxy.
//
// In the spirit of Ansor's per-store features, read from the LoopNest IR alone: for every
// Store, its arithmetic (float add/mul/div/min-max/math calls), the loops around it (trip
// count, vectorized lanes, unrolled and parallel extents, innermost extent), its memory
// accesses (how many, how many are contiguous, broadcast, strided or gathered along the
// innermost loop, the bytes each touches over the whole nest and their reuse) and the local
// buffers in scope, plus locality: estimated traffic into a 32 KiB L1 and a 1 MiB L2 (from the
// bytes each loop level touches), the accumulator tile of the unrolled/vectorized register body
// and its flops per loaded element. Per-store vectors are pooled (sum, weighted by trip count, and max) into a
// fixed-length vector of log-scaled values, so schedules of any shape compare.
#pragma once

#include <string>
#include <vector>

#include "schedule/loop_nest.h"

namespace tessera::schedule {

// Names of the features, in vector order (length kFeatureCount).
const std::vector<std::string>& feature_names();

// The pooled feature vector of a lowered kernel; fast (no allocation beyond the result and
// small per-store scratch).
std::vector<float> extract_features(const LoweredFunc& func);

}  // namespace tessera::schedule

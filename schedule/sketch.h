// Sketches: schedules with holes, generated from a DAG by Ansor-style rules for CPU.
//
// Rules, per stage, from the output back: elementwise producers are always inlined; a
// reduction with data reuse (an input not indexed by every spatial axis: matmul, dense,
// conv) gets multi-level tiling "SSRSRS", either with its elementwise consumer fused at the
// tile (the consumer is tiled, the reduction computed at its tile) or, without one, with an
// added cache_write stage in that role, or plainly tiled in place; a reduction with a small
// spatial extent and a long reduction may be rfactor'ed into vectorized partial sums; other
// stages get a simple vectorize / parallelize / unroll rule. The per-stage choices multiply
// into a handful of sketches per task, each with a stable id and a readable description.
// Row-wise DAGs (softmax, layer norm) also get one whole-DAG row sketch (sketch_rows.h).
// Knob values fill the holes: a sketch plus knobs is a candidate, and since lowering is
// deterministic, (sketch id, knobs) is the candidate's serializable identity.
//
// Adding a rule: write a function that checks its condition on a stage and appends its knobs
// and step emitters to a SketchBuilder (sketch.cc), then list it in `rules_for_stage`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "schedule/knobs.h"
#include "schedule/state.h"

namespace tessera::schedule {

struct Sketch {
  std::string id;           // stable across runs, e.g. "C:tile_cache"
  std::string description;  // for people
  KnobSpace knobs;
  std::function<std::vector<Step>(const KnobSpace&, const KnobValues&)> materialize;

  std::vector<Step> steps(const KnobValues& values) const { return materialize(knobs, values); }
};

std::vector<Sketch> generate_sketches(const ComputeDAG& dag);

// The State of a candidate, or why the candidate is rejected.
Result<State> apply_candidate(const ComputeDAG& dag, const Sketch& sketch,
                              const KnobValues& values);

}  // namespace tessera::schedule

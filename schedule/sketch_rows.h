// The row sketch: memory-bound ops over rows (softmax, layer norm and their fused variants)
// scheduled as memory-bound ops.
//
// It fires on a DAG whose one output is elementwise of rank >= 2 and whose other stages are
// elementwise stages of the output's shape or reductions over its last (contiguous) axis into
// one value per row. Rows run in parallel; each row computes its intermediates once into a
// row buffer (compute_at the row, where the default sketches inline a stage into every reader,
// computing softmax's exp twice); every reduction becomes vector partial sums (rfactor, the
// partial lane vectorized along the row) reduced horizontally at the end; elementwise stages
// are vectorized along the row. Knobs: vector width, accumulator width, row tile (the parallel
// grain), parallel or not, unroll. generate_sketches (sketch.cc) appends it after the
// per-stage sketches, whose ids and order it leaves unchanged.
#pragma once

#include <optional>

#include "schedule/sketch.h"

namespace tessera::schedule {

// The row sketch of `dag` (id "<output>:rows"), or nullopt when the DAG is not of that form.
std::optional<Sketch> row_sketch(const ComputeDAG& dag);

}  // namespace tessera::schedule

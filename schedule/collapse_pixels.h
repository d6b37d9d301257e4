// Collapsing a DAG's two pixel axes into one, where every access allows it.
//
// A pointwise convolution in NCHW (1x1 filter, stride 1, no padding) and the elementwise ops
// fused after it (bias, residual add, relu) read and write every image at the pixel they
// compute: X[n, c, h, w] for Y[n, k, h, w]. Then (h, w) is one contiguous axis of H*W pixels in
// every buffer the task touches, and the task is a matrix product over it. That matters for the
// vector axis: 56x56 pixels are 196 whole 16-lane vectors, where a row of 56 is 3.5 of them (a
// masked edge vector in every row), and rows of 28, 14 and 7 fill 1.75, 0.875 and 0.44.
//
// The rewrite changes how the DAG indexes its buffers, never their bytes or order, so a kernel
// of the collapsed DAG runs on exactly the arguments of the original. It applies when the first
// output has rank >= 3 and last two extents H, W > 1, and:
//   - every tensor whose last two dims are (H, W) is read only by stages whose last two axes
//     are (H, W), at exactly those axes (after reduction axes of extent 1 are read at 0: a 1x1
//     filter's taps), and
//   - no other read of any stage uses those two axes.
// Anything else (a 3x3 or strided conv, pooling, a reduction over the pixels, a transpose)
// leaves the DAG as it is.
#pragma once

#include <optional>

#include "schedule/compute_dag.h"

namespace tessera::schedule {

// The DAG with (h, w) collapsed into one axis "hw" (reduction axes of extent 1 dropped), or
// nothing when it does not apply. The summary is kept; the workload key changes.
std::optional<ComputeDAG> collapse_pixel_axes(const ComputeDAG& dag);

// The collapsed DAG where collapse_pixel_axes applies, else `dag` itself: what network tasks
// and the conv ops build.
ComputeDAG with_pixels_as_one_axis(ComputeDAG dag);

}  // namespace tessera::schedule

// Hand-written schedules: the reference points that searches must beat, and the schedules
// the quickstart and benchmarks compile before any tuning exists.
//
// The matmul schedule is a register-blocked micro-kernel: C is tiled into mr x (nr*lanes)
// blocks whose accumulators stay in vector registers across a kc-long slice of the reduction
// (O3 promotes the C tile out of the k loop since buffers are noalias), with the j panels
// outermost and parallel.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/steps.h"

namespace tessera::schedule {

struct MatmulTiling {
  int64_t mr = 8;      // rows of C per micro-kernel (unrolled)
  int64_t nr = 2;      // vectors of C per row (unrolled)
  int64_t lanes = 16;  // vector width in floats (16 = AVX-512)
  int64_t kc = 128;    // reduction slice kept hot in cache
};

// Steps for the DAG built by schedule::matmul(m, n, k) (stage "C", loops i, j, r0). Tile sizes
// are clamped to the extents; non-dividing extents get guards.
std::vector<Step> matmul_hand_schedule(int64_t m, int64_t n, int64_t k,
                                       const MatmulTiling& tiling = {});

// The same micro-kernel written with multi-stage steps: cache_write gives C a local
// accumulator tile (C.local, computed at C's i.0 over the whole reduction, registers once
// unrolled), and cache_read packs the kc x (nr*lanes) panel of B that one j.0 iteration reads
// into a contiguous buffer (B.local, computed at C's j.0).
std::vector<Step> matmul_cache_write_schedule(int64_t m, int64_t n, int64_t k,
                                              const MatmulTiling& tiling = {});

struct ConvTiling {
  int64_t k_tile = 4;   // output channels per micro-kernel (unrolled)
  int64_t lanes = 14;   // vector width over the output row (56 = 4 x 14)
};

// conv2d_bias_relu in NCHW (stages pad, conv, Y): the padded input at root; Y tiled over
// (k_tile output channels x one output row); conv computed at that tile as an accumulator
// block held across the whole C x R x S reduction, vectorized along the row; bias + relu
// applied from the tile. `out_width` is the output row length.
std::vector<Step> conv2d_bias_relu_schedule(int64_t out_channels, int64_t out_width,
                                            const ConvTiling& tiling = {});

}  // namespace tessera::schedule

// Hand-written schedules (see hand_schedules.h).
#include "schedule/hand_schedules.h"

#include <algorithm>

namespace tessera::schedule {

namespace {

// The tiling with every tile clamped to the matrix it tiles.
MatmulTiling clamped(int64_t m, int64_t n, int64_t k, const MatmulTiling& t) {
  MatmulTiling c;
  c.mr = std::min(t.mr, m);
  c.lanes = std::min(t.lanes, n);
  c.nr = std::max<int64_t>(1, std::min(t.nr, n / c.lanes));
  c.kc = std::min(t.kc, k);
  return c;
}

}  // namespace

std::vector<Step> matmul_hand_schedule(int64_t m, int64_t n, int64_t k, const MatmulTiling& tiling) {
  const MatmulTiling t = clamped(m, n, k, tiling);
  const int64_t mr = t.mr, lanes = t.lanes, nr = t.nr, kc = t.kc;
  return {
      SplitStep{"C", "i", {mr}},
      SplitStep{"C", "j", {nr, lanes}},
      SplitStep{"C", "r0", {kc}},
      ReorderStep{"C", {"j.0", "r0.0", "i.0", "r0.1", "i.1", "j.1", "j.2"}},
      AnnotateStep{"C", "j.0", "parallel"},
      AnnotateStep{"C", "i.1", "unroll"},
      AnnotateStep{"C", "j.1", "unroll"},
      AnnotateStep{"C", "j.2", "vectorize"},
  };
}

std::vector<Step> matmul_cache_write_schedule(int64_t m, int64_t n, int64_t k,
                                              const MatmulTiling& tiling) {
  const MatmulTiling t = clamped(m, n, k, tiling);
  const int64_t mr = t.mr, lanes = t.lanes, nr = t.nr;
  return {
      CacheWriteStep{"C", "local"},
      CacheReadStep{"B", "C.local", "local"},
      SplitStep{"C", "i", {mr}},
      SplitStep{"C", "j", {nr, lanes}},
      ReorderStep{"C", {"j.0", "i.0", "i.1", "j.1", "j.2"}},
      ComputeAtStep{"C.local", "C", "i.0"},
      ComputeAtStep{"B.local", "C", "j.0"},
      AnnotateStep{"C", "j.0", "parallel"},
      AnnotateStep{"C", "i.1", "unroll"},
      AnnotateStep{"C", "j.1", "unroll"},
      AnnotateStep{"C", "j.2", "vectorize"},
      SplitStep{"C.local", "j", {lanes}},
      ReorderStep{"C.local", {"r0", "i", "j.0", "j.1"}},
      AnnotateStep{"C.local", "i", "unroll"},
      AnnotateStep{"C.local", "j.0", "unroll"},
      AnnotateStep{"C.local", "j.1", "vectorize"},
      SplitStep{"B.local", "j", {lanes}},
      AnnotateStep{"B.local", "j.1", "vectorize"},
  };
}

std::vector<Step> conv2d_bias_relu_schedule(int64_t out_channels, int64_t out_width,
                                            const ConvTiling& t) {
  int64_t kt = std::min(t.k_tile, out_channels);
  int64_t lanes = std::min(t.lanes, out_width);
  return {
      SplitStep{"Y", "c", {kt}},
      SplitStep{"Y", "w", {lanes}},
      ReorderStep{"Y", {"n", "c.0", "h", "c.1", "w.0", "w.1"}},
      ComputeAtStep{"conv", "Y", "h"},
      AnnotateStep{"Y", "c.0", "parallel"},
      AnnotateStep{"Y", "c.1", "unroll"},
      AnnotateStep{"Y", "w.0", "unroll"},
      AnnotateStep{"Y", "w.1", "vectorize"},
      SplitStep{"conv", "w", {lanes}},
      ReorderStep{"conv", {"n", "h", "r0", "r1", "r2", "c", "w.0", "w.1"}},
      AnnotateStep{"conv", "c", "unroll"},
      AnnotateStep{"conv", "w.0", "unroll"},
      AnnotateStep{"conv", "w.1", "vectorize"},
      AnnotateStep{"pad", "w", "vectorize"},
  };
}

}  // namespace tessera::schedule

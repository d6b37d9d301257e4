// The default schedule rule (see default_schedule.h): knob values for a task's sketches.
//
// It reads the knob list the sketch rules (schedule/sketch.cc) produce: a run of 4-part tile
// knobs is a tiled stage's spatial axes (outermost first), the 2-part tile knobs after it its
// reduction axes, then its parallel and unroll choices; "X.vector" and "X.rf" belong to the
// simple and rfactor rules. A knob the rule does not recognise keeps its first value.
#include "runtime/default_schedule.h"

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>

#include "runtime/fingerprint.h"
#include "runtime/host_cache.h"
#include "schedule/dtype.h"
#include "schedule/sketch.h"

namespace tessera::runtime {
namespace {

using schedule::Knob;
using schedule::KnobKind;

constexpr int64_t kVectorLanes = 16;          // the widest vector of a simple or row stage (AVX-512)
constexpr int64_t kReduceUnroll = 16;         // reduction steps unrolled around the block
constexpr int64_t kParallelChunks = 16;       // outer parallel iterations wanted (threads x slack)
constexpr int64_t kPackedReductionSteps = 128;  // from here on the packed sketch comes first
constexpr int64_t kPlanePixels = 64;          // the most output pixels a whole-plane tile holds
constexpr int64_t kPlaneVectors = 4;          // its vectors of accumulators per output pixel
constexpr int64_t kPlaneReduceUnroll = 8;     // reduction steps per pass over its accumulators
constexpr int64_t kStreamReduceChunk = 64;    // reduction steps per pass of a one-row block's rows

// The most reduction steps any stage takes per output element.
int64_t longest_reduction(const schedule::ComputeDAG& dag) {
  int64_t longest = 0;
  for (const schedule::Tensor& t : dag.stages()) {
    int64_t steps = 1;
    for (const schedule::Axis& r : t->reduce_axes) steps *= r.extent;
    if (!t->reduce_axes.empty()) longest = std::max(longest, steps);
  }
  return longest;
}

// Whether every reduction's last spatial axis holds whole 16-lane vectors: the packed sketches'
// tiles do not pad (sketch_packed.cc), so elsewhere their vector is narrow.
bool whole_vector_reductions(const schedule::ComputeDAG& dag) {
  for (const schedule::Tensor& t : dag.stages()) {
    if (!t->reduce_axes.empty() && (t->axes.empty() || t->axes.back().extent % schedule::kFullVectorLanes != 0)) {
      return false;
    }
  }
  return true;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// The largest divisor of `extent` that is at most `limit` (at least 1).
int64_t divisor_up_to(int64_t extent, int64_t limit) {
  for (int64_t d = std::min(extent, limit); d > 1; --d) {
    if (extent % d == 0) return d;
  }
  return 1;
}

// The lanes of a simple (or rfactor) stage's vector: 16 or 8 where they divide the extent, else
// its largest divisor up to 16. Whole power-of-two vectors matter for strided reads: the emitter
// deinterleaves each from one contiguous read, and splits an odd width into narrower chunks
// (emit_stmt.cc). ResNet-50's max pool, 56 outputs wide at stride 2, took 0.78 ms at 14 lanes
// when odd widths were still gathered lane by lane.
int64_t simple_lanes(int64_t extent) {
  for (int64_t lanes : {kVectorLanes, kVectorLanes / 2}) {
    if (extent % lanes == 0) return lanes;
  }
  return divisor_up_to(extent, kVectorLanes);
}

// The index of the tile knob's factorization nearest `want` (in log scale; exact when present).
int nearest(const Knob& knob, const std::vector<int64_t>& want) {
  int best = 0;
  double best_distance = std::numeric_limits<double>::max();
  for (size_t i = 0; i < knob.domain.size(); ++i) {
    const auto& f = knob.domain[i];
    if (f.size() != want.size()) continue;
    double d = 0;
    for (size_t p = 0; p < f.size(); ++p) d += std::abs(std::log2(double(f[p])) - std::log2(double(want[p])));
    if (d < best_distance) best_distance = d, best = static_cast<int>(i);
  }
  return best;
}

// The index of the choice knob's value `want`, or the largest value below it.
int choice_index(const Knob& knob, int64_t want) {
  int best = 0;
  for (size_t i = 0; i < knob.domain.size(); ++i) {
    if (knob.domain[i][0] <= want) best = static_cast<int>(i);
  }
  return best;
}

// What a tiled stage reads, split by the vector axis: `friendly[a]` says the operands indexed by
// the vector axis (a packed conv's weights, a matmul's B: its "panels") do not depend on axis `a`
// of `run` (the stage's tile knobs, "conv.w", in loop order, the vector axis's last), and the
// bytes of the operands that do depend on the vector axis (`panel_bytes`) and of those that do
// not (`row_bytes`: a conv's input, a matmul's A).
struct StageOperands {
  std::vector<bool> friendly;
  int64_t panel_bytes = 0;
  int64_t row_bytes = 0;
  bool broadcasts = false;  // some operand is not indexed by the vector axis (a depthwise conv has none)
};

StageOperands stage_operands(const schedule::ComputeDAG& dag, const std::vector<std::string>& run) {
  const size_t axes = run.size();
  StageOperands out;
  out.friendly.assign(axes, false);
  if (axes == 0) return out;
  const std::string stage = run.back().substr(0, run.back().rfind('.'));
  const int index = dag.stage_index(stage);
  if (index < 0 || dag.stages()[static_cast<size_t>(index)]->axes.size() != axes) return out;
  const schedule::TensorNode& op = *dag.stages()[static_cast<size_t>(index)];
  auto axis_var = [&](const std::string& knob) -> const schedule::ExprNode* {
    const std::string name = knob.substr(knob.rfind('.') + 1);
    for (const schedule::Axis& a : op.axes) {
      if (a.name == name) return a.var.get();
    }
    return nullptr;
  };
  const schedule::ExprNode* vector_var = axis_var(run.back());
  if (!vector_var) return out;
  std::vector<schedule::Expr> vector_loads;
  std::vector<std::string> panel_tensors, row_tensors;
  std::function<void(const schedule::Expr&)> visit = [&](const schedule::Expr& e) {
    if (e->kind == schedule::ExprKind::kLoad) {
      const bool by_vector = std::any_of(e->operands.begin(), e->operands.end(),
                                         [&](const schedule::Expr& i) { return schedule::uses_var(i, vector_var); });
      if (by_vector) vector_loads.push_back(e);
      std::vector<std::string>& names = by_vector ? panel_tensors : row_tensors;
      if (std::find(names.begin(), names.end(), e->name) == names.end()) names.push_back(e->name);
    }
    for (const schedule::Expr& operand : e->operands) visit(operand);
  };
  visit(op.body);
  for (size_t a = 0; a + 1 < axes; ++a) {
    const schedule::ExprNode* v = axis_var(run[a]);
    out.friendly[a] = v && !vector_loads.empty() &&
                      std::none_of(vector_loads.begin(), vector_loads.end(),
                                   [&](const schedule::Expr& l) { return schedule::uses_var(l, v); });
  }
  auto bytes = [&](const std::vector<std::string>& names) {
    int64_t total = 0;
    for (const auto& input : op.inputs) {
      if (std::find(names.begin(), names.end(), input->name) == names.end()) continue;
      total += product(input->shape) * schedule::dtype_bytes(input->dtype);
    }
    return total;
  };
  out.panel_bytes = bytes(panel_tensors);
  out.row_bytes = bytes(row_tensors);
  out.broadcasts = !row_tensors.empty();
  return out;
}

// The order in which a tiled stage's axes other than the vector one get register rows: first
// those the vector operand does not depend on (each row then reuses one vector load with a
// broadcast: a conv's output channels, a matmul's rows), innermost first, then the rest. The
// result lists positions in the stage's run of tile knobs.
std::vector<size_t> row_order(const StageOperands& operands) {
  const size_t axes = operands.friendly.size();
  std::vector<size_t> order;
  if (axes == 0) return order;
  for (bool want : {true, false}) {
    for (size_t a = axes - 1; a-- > 0;) {
      if (operands.friendly[a] == want) order.push_back(a);
    }
  }
  return order;
}

bool is_tile_group_knob(const Knob& k, size_t parts) {
  return k.kind == KnobKind::kTile && k.domain[0].size() == parts && !ends_with(k.name, ".vector") &&
         !ends_with(k.name, ".rf");
}

// A tiled stage's register block: its spatial tile knobs' values (knobs [begin, end), the
// vector axis's last), their outer extents, and the vector registers its accumulators take.
struct Block {
  std::vector<int> values;
  std::vector<int64_t> outer;
  int64_t registers = 0;
  int64_t rows = 1;           // accumulator rows, each `registers / rows` vector registers
  int64_t friendly_rows = 1;  // of them, rows along axes the vector operand does not depend on
};

// The vector registers a register block's accumulators may take. Each step of the block loads
// its vector (one register per register of the vector) and broadcasts one element per row, so
// the more accumulators, the fewer loads per FMA. AVX2's 16 registers: 8, as each broadcast
// needs a register of its own (16 spilled: 0.40 of oneDNN against 0.89 at 8, Zen 3). AVX-512's
// 32: 28, as its FMAs broadcast straight from memory and only the vector's registers and a
// spare or two stay free (ResNet-50's 64 -> 256 1x1 at 56x56 on an Intel Xeon: 8 accumulators
// 0.81 of oneDNN, 16 0.94, 28 0.99, 32 spilled at 0.65).
int64_t accumulator_registers(int register_floats) { return register_floats >= 16 ? 28 : 8; }

// The largest inner factor up to `limit` of a ceil tile `knob` can take (its edge tile padded:
// [ceil(extent / inner), 1, 1, inner]), or 1 where it takes none (schedule/knobs.h: only some
// sketches' knobs have them).
int64_t ceil_inner_up_to(const Knob& knob, int64_t extent, int64_t limit) {
  for (int64_t inner = std::min(extent, limit); inner > 1; --inner) {
    const std::vector<int64_t> want{(extent + inner - 1) / inner, 1, 1, inner};
    if (std::find(knob.domain.begin(), knob.domain.end(), want) != knob.domain.end()) return inner;
  }
  return 1;
}

// The block with a vector of the largest divisor of its extent up to `lanes_limit` lanes, then
// rows along the axes in `rows` (positions in the run) while the accumulators fit in
// accumulator_registers() registers of `register_floats` lanes: the largest divisor of each
// row axis's extent, or with `ceil_rows`, where that is 1, the largest ceil tile its knob takes.
// The lanes and rows are read back from the values the knobs can take.
Block register_block(const std::vector<Knob>& knobs, size_t begin, size_t end, const std::vector<size_t>& rows,
                     const std::vector<bool>& friendly, int64_t lanes_limit, int register_floats,
                     bool ceil_rows = false) {
  Block b;
  const size_t axes = end - begin;
  b.values.assign(axes, 0);
  b.outer.assign(axes, 1);
  auto place = [&](size_t a, int64_t inner) {
    const Knob& knob = knobs[begin + a];
    const int64_t extent = product(knob.domain[0]);
    b.values[a] = nearest(knob, {(extent + inner - 1) / inner, 1, 1, inner});
    const std::vector<int64_t>& chosen = knob.domain[static_cast<size_t>(b.values[a])];
    b.outer[a] = chosen[0];
    return chosen.back();
  };
  const int64_t lanes = place(axes - 1, divisor_up_to(product(knobs[end - 1].domain[0]), lanes_limit));
  const int64_t per_row = (lanes + register_floats - 1) / register_floats;
  for (size_t a = 0; a + 1 < axes; ++a) place(a, 1);  // axes without rows
  int64_t budget = std::max<int64_t>(1, accumulator_registers(register_floats) / per_row), used = 1;
  for (size_t a : rows) {
    const int64_t extent = product(knobs[begin + a].domain[0]);
    int64_t want = divisor_up_to(extent, budget);
    if (ceil_rows && want == 1) want = ceil_inner_up_to(knobs[begin + a], extent, budget);
    const int64_t inner = place(a, want);
    budget = std::max<int64_t>(1, budget / inner);
    used *= inner;
    if (friendly[a]) b.friendly_rows *= inner;
  }
  b.rows = used;
  b.registers = used * per_row;
  return b;
}

// Whether the block's panel tiles (the vector axis's outer loop) should run outside its row
// tiles rather than inside them. Rows outside re-read every panel once per row tile unless the
// panels stay in L2 between row tiles; panels outside re-read the rows once per panel unless
// the rows stay. The order that moves fewer bytes from beyond L2 wins (counted as fitting when
// an operand takes at most half of it). Only rows the panels do not depend on move: the tiles
// of an axis they depend on (a batch axis, Winograd's transform points) keep their place,
// outermost, and the count is made for one of them, with its share of the panels. Measured on
// an Intel Xeon (2 MiB L2, ~14 GB/s per core from memory), ResNet-50's 7x7 and 14x14 convs with
// their 2-9 MB of weights: panels outside ran 1.4-1.6x faster by default; on a Zen 3 (512 KiB
// L2, fast 32 MiB L3) the same order was even, but a strided 1x1 conv whose 800 KB input exceeds
// that L2 lost 14%, which this count keeps rows-first. Winograd's gemm on a 14x14 map on that
// Zen 3, in the 16-lane block by 4 transform points it had before the wide block below (4 MB of
// weights, 4 tiles of points, 49 tiles of pixels, 16 panels), re-read each point tile's 1 MB of
// weights for every pixel tile with rows first; panels first took ResNet-50's t18 from 37.9-40.3
// to 32.7-33.4 ms an inference (bench/NOTES.md). The wide block's point tiles (256 KB) fit there.
bool panels_outermost(const StageOperands& operands, const Block& block, int64_t l2_bytes) {
  const size_t vector_axis = block.outer.size() - 1;
  int64_t row_tiles = 1, batch_tiles = 1;
  for (size_t a = 0; a < vector_axis; ++a) {
    if (block.outer[a] == 1) continue;
    (operands.friendly[a] ? row_tiles : batch_tiles) *= block.outer[a];
  }
  const int64_t panels = block.outer[vector_axis];
  if (row_tiles <= 1 || panels <= 1 || operands.panel_bytes == 0) return false;
  auto fits = [&](int64_t bytes) { return 2 * bytes <= l2_bytes; };
  // The rows are counted whole: they need not depend on the batch axes.
  const int64_t panel_share = operands.panel_bytes / batch_tiles;
  const double panel_bytes = static_cast<double>(panel_share);
  const double row_bytes = static_cast<double>(operands.row_bytes);
  const double rows_first = row_bytes + panel_bytes * static_cast<double>(fits(panel_share) ? 1 : row_tiles);
  const double panels_first = panel_bytes + row_bytes * static_cast<double>(fits(operands.row_bytes) ? 1 : panels);
  return panels_first < rows_first;
}

// A whole-plane tile for a packed conv whose weights stream from memory, or false where it does
// not apply. The register block above reuses each weight vector for one row of output pixels
// (7 at 7x7), and panels-first reads a panel from memory during its first row tile only, at a
// rate of 7 pixels of work per weight, then from L2: the memory stream comes in bursts the
// compute cannot hide. Here the tile holds every output pixel (rows and columns at tile level 2)
// times kPlaneVectors vectors of output channels, and each pass of kPlaneReduceUnroll
// reduction steps updates all of it, so every weight vector fetched serves the whole plane (49
// pixels) and the stream is even over the call. The accumulators (49 x 64 floats, 12.5 KB)
// stay in L1. On an Intel Xeon (2 MiB L2), ResNet-50's 7x7 convs, weights evicted before each
// call, against oneDNN: 3x3 512->512 0.77 -> 1.00-1.05, 1x1 2048->512 0.80 -> 1.00, 512->2048
// 0.85 -> 1.04-1.06, strided 1x1 1024->2048 0.86 -> 0.99, strided 3x3 0.78 -> 0.88. With the
// weights cached it loses (0.87 -> 0.80), and at 14x14 (196 pixels) it lost 10-30% cold, so it
// is kept to Constants::kFromMemory, weights past half of L2, and planes of kPlanePixels.
bool plane_tile(const std::vector<Knob>& knobs, size_t begin, size_t end, const StageOperands& operands,
                const CoreShape& core, Block& block) {
  const size_t axes = end - begin;
  if (axes == 0 || 2 * operands.panel_bytes <= core.l2_bytes) return false;
  int64_t pixels = 1;
  for (size_t a = 0; a + 1 < axes; ++a) {
    const int64_t extent = product(knobs[begin + a].domain[0]);
    if (extent > 1 && !operands.friendly[a]) return false;
    pixels *= extent;
  }
  const int64_t lanes = core.register_floats, channels = product(knobs[end - 1].domain[0]);
  if (pixels > kPlanePixels || channels % (kPlaneVectors * lanes) != 0) return false;
  Block plane;
  plane.values.assign(axes, 0);
  plane.outer.assign(axes, 1);
  for (size_t a = 0; a < axes; ++a) {
    const Knob& knob = knobs[begin + a];
    const int64_t extent = product(knob.domain[0]);
    const std::vector<int64_t> want = a + 1 < axes ? std::vector<int64_t>{1, 1, extent, 1}
                                                   : std::vector<int64_t>{extent / (kPlaneVectors * lanes), 1, kPlaneVectors, lanes};
    plane.values[a] = nearest(knob, want);
    if (knob.domain[static_cast<size_t>(plane.values[a])] != want) return false;
    plane.outer[a] = want[0];
  }
  plane.registers = 1;
  block = std::move(plane);
  return true;
}

// The rows of a tiled stage's run (knobs [begin, end)): the product of the extents of its axes
// the vector operand does not depend on.
int64_t row_count(const std::vector<Knob>& knobs, size_t begin, size_t end, const StageOperands& operands) {
  int64_t rows = 1;
  for (size_t a = 0; a + 1 < end - begin; ++a) {
    if (operands.friendly[a]) rows *= product(knobs[begin + a].domain[0]);
  }
  return rows;
}

// The inner factor the rule gives each reduction tile knob of [first, last): innermost first,
// the largest divisor of its extent within what `budget` (steps unrolled around the block)
// has left.
std::vector<int64_t> reduction_inners(const std::vector<Knob>& knobs, size_t first, size_t last, int64_t budget) {
  std::vector<int64_t> inners(last - first, 1);
  for (size_t a = last; a-- > first;) {
    inners[a - first] = divisor_up_to(product(knobs[a].domain[0]), budget);
    budget /= inners[a - first];
  }
  return inners;
}

// The reduction steps inside the reduction's outer tile of the run whose reduction knobs start
// at `first`, given `budget`.
int64_t reduction_chunk(const std::vector<Knob>& knobs, size_t first, int64_t budget) {
  size_t last = first;
  while (last < knobs.size() && is_tile_group_knob(knobs[last], 2)) ++last;
  int64_t chunk = 1;
  for (int64_t inner : reduction_inners(knobs, first, last, budget)) chunk *= inner;
  return chunk;
}

// A one-row block's rows streamed through each chunk of its panel, or false where it does not
// apply. A block of one row (its rows have no divisor that fills it: 197 tokens) reads a whole
// panel, every reduction step of its vector, per row: 768 steps of 64 lanes is 192 KB, from L2,
// for 8 FMAs per 9 loads, and the L2's bandwidth caps it at about half the FMA rate. Here every
// row sits at tile level 2, inside the reduction's outer loop, and each pass of
// kStreamReduceChunk steps (64 steps of 64 lanes: 16 KB) runs all the rows over a chunk of the
// panel that stays in L1; the rows' accumulators are loaded and stored once a chunk. Matmul
// 197x768x768 on a Zen 3 (AVX2), against OpenBLAS in the same process: 1 row of 64 lanes over
// the whole reduction 0.50-0.55, rows inside 64-step chunks 0.88 (the old 1 row of 16 lanes:
// 0.30). The accumulators of all rows (rows x lanes floats) must fit in half the core's L2, and
// the vector must be a whole register at least (a prime extent's 1-lane vector gains nothing).
bool row_stream(const std::vector<Knob>& knobs, size_t begin, size_t end, const StageOperands& operands,
                const CoreShape& core, Block& block) {
  const size_t axes = end - begin;
  if (axes < 2 || !operands.broadcasts || block.rows != 1) return false;
  const Knob& vector = knobs[end - 1];
  const int64_t lanes = vector.domain[static_cast<size_t>(block.values[axes - 1])].back();
  const int64_t rows = row_count(knobs, begin, end, operands);
  if (lanes < core.register_floats || rows <= 1 || 2 * rows * lanes * int64_t{sizeof(float)} > core.l2_bytes) return false;
  Block stream = block;
  for (size_t a = 0; a + 1 < axes; ++a) {
    if (!operands.friendly[a]) continue;
    const Knob& knob = knobs[begin + a];
    const std::vector<int64_t> want{1, 1, product(knob.domain[0]), 1};
    stream.values[a] = nearest(knob, want);
    if (knob.domain[static_cast<size_t>(stream.values[a])] != want) return false;
    stream.outer[a] = 1;
  }
  block = std::move(stream);
  return true;
}

// Whether stage `stage`'s zero padding should stay inlined (read as a select, the nest
// unswitched so only blocks at the border test it: schedule/padding_skip.h) rather than be
// copied into a padded buffer at root in every call. The copy is worth its input's pixels, the
// select only the border's blocks. At stride 2 the input has 4x the output's pixels and only
// its leading border is ever read (the last tap of the last output stops inside), so inlining
// won on ResNet-50's stride-2 3x3 convs, weights evicted, against oneDNN (Intel Xeon):
// 0.89 -> 0.96 at 56x56, 0.90 -> 0.95 at 28x28, even at 14x14. At stride 1 both borders are read
// and the branches of the tested blocks cost more than the copy (0.98 -> 0.75-0.81 at 56x56);
// over 3 channels (a stem conv) a tap's block is too short to carry its test (0.93 -> 0.82).
bool padding_inlined(const schedule::ComputeDAG& dag, const std::string& stage, int register_floats) {
  const int index = dag.stage_index(stage);
  if (index < 0) return false;
  const schedule::TensorNode& op = *dag.stages()[static_cast<size_t>(index)];
  auto pixels = [](const schedule::TensorNode& t) {  // points of all axes but the last (channels)
    int64_t n = 1;
    for (size_t d = 0; d + 1 < t.axes.size(); ++d) n *= t.axes[d].extent;
    return n;
  };
  bool padded = false;
  for (const auto& producer : op.inputs) {
    if (producer->is_placeholder || producer->reduce != schedule::ReduceKind::kNone || producer->axes.empty()) continue;
    if (pixels(*producer) < 2 * pixels(op) || producer->axes.back().extent < register_floats) return false;
    padded = true;
  }
  return padded;
}

schedule::KnobValues rule_values(const schedule::ComputeDAG& dag, const schedule::KnobSpace& space,
                                 const CoreShape& core, bool plane_tiles) {
  const int register_floats = core.register_floats;
  const auto& knobs = space.knobs();
  schedule::KnobValues values(knobs.size(), 0);
  std::vector<int64_t> level0;  // the last tiled stage's outer extents, for its parallel knob
  bool tiled = false;           // the knobs being read belong to a tile rule
  int64_t reduce_unroll = kReduceUnroll;  // for the reduction axes of the last tiled stage
  size_t i = 0;
  while (i < knobs.size()) {
    const Knob& k = knobs[i];
    const size_t parts = k.kind == KnobKind::kTile ? k.domain[0].size() : 0;
    if (parts == 4 || (parts == 2 && tiled && is_tile_group_knob(k, 2))) {
      size_t end = i;
      while (end < knobs.size() && is_tile_group_knob(knobs[end], parts)) ++end;
      if (parts == 4) {
        // Spatial axes: the vector axis innermost, then rows along the others, outward. The
        // vector takes up to two registers, or one where that fills more of the block.
        tiled = true;
        std::vector<std::string> run;
        for (size_t k = i; k < end; ++k) run.push_back(knobs[k].name);
        const StageOperands operands = stage_operands(dag, run);
        const std::vector<size_t> rows = row_order(operands);
        // On AVX2 also a vector of four registers where that fills more of the block than two
        // or one: rows whose largest divisor within the two-register block's budget is 2 (50
        // tokens: 2 rows of 16 lanes, 4 registers, or 5 rows of 8, 5 registers) fill it as 2
        // rows of 32. There each row's broadcast is a load of its own, so 5 rows of one
        // register load 6 times for 5 FMAs and 2 rows of four 6 times for 8. Matmul on a Zen 3
        // against OpenBLAS: 50x768x768 0.65-0.74 -> 0.91-0.97, 50x3072x768 0.56 -> 0.72,
        // 14x512x512 0.87-0.90 -> 1.19, a one-row 1x1000x2048 0.61-0.76 -> 0.76-1.02 (40 lanes).
        // AVX-512's FMAs broadcast from memory, so its narrow blocks do not pay that; its blocks
        // (measured against oneDNN, tests/unit/graph/network_executor_test.cc) stay.
        Block best;
        std::vector<int64_t> lane_limits{int64_t{2} * register_floats, int64_t{register_floats}};
        if (register_floats < 16) lane_limits.push_back(4 * int64_t{register_floats});  // AVX2
        for (int64_t limit : lane_limits) {
          Block b = register_block(knobs, i, end, rows, operands.friendly, limit, register_floats);
          if (b.registers > best.registers) best = std::move(b);
        }
        std::vector<size_t> friendly_rows;
        for (size_t a : rows) {
          if (operands.friendly[a]) friendly_rows.push_back(a);
        }
        // Where the friendly rows have no divisor that fits the block but 1 and their knobs
        // take ceil tiles (the generic sketch's; the packed sketch's rows have none), they take
        // the largest that fits: 197 rows as 50 tiles of 4, the last padded by 3 rows, rather
        // than one row (a plain matmul) or rows along a batch axis, each with a vector of its
        // own (attention's per-head products, below). Matmul 1009x1009x1009 on a Zen 3 (AVX2)
        // against OpenBLAS: 4 rows of 16 lanes 0.56, the one row of 16 lanes before 0.23. With
        // a batch axis, on a Zen 3, taken over the wide block below: attention's products at 197
        // tokens (12 heads, generic sketch) 0.54 -> 0.95 of OpenBLAS (197x197x64) and 0.82 ->
        // 0.92 (197x64x197); ResNet-50's Winograd gemm on its 14x14 map (7x7 tiles, 13 tiles of
        // 4, 16 lanes) 11.0-13.6 ms an inference against 16.8-19.7 (bench/NOTES.md).
        bool ceiled = false;
        if (operands.broadcasts && best.friendly_rows == 1 && !friendly_rows.empty()) {
          for (int64_t limit : {int64_t{2} * register_floats, int64_t{register_floats}}) {
            Block b = register_block(knobs, i, end, friendly_rows, operands.friendly, limit, register_floats,
                                     /*ceil_rows=*/true);
            if (b.friendly_rows > 1 && (!ceiled || b.registers > best.registers)) best = std::move(b), ceiled = true;
          }
        }
        // Where no friendly axis could take rows (not even ceil ones) but others did, the
        // block's rows each load a vector of their own, a whole slice of the operand apart
        // (Winograd's transform points: 256 KB), streams that fall in the same few L1 sets. A
        // vector of four registers, rows only where they share it, loads contiguously and less
        // per FMA (5 loads for 4 FMAs against 12 for 8). Winograd's gemm on a 14x14 map, AVX2
        // on a Zen 3, 32 lanes by 1 against 16 lanes by 4 points: ResNet-50's t18 18.0-18.6 ms
        // an inference against 40.6-41.7 (bench/NOTES.md). Depthwise convs, which broadcast
        // nothing, keep their rows.
        bool points_wide = false;
        if (!ceiled && operands.broadcasts && best.friendly_rows == 1 && best.rows > 1) {
          Block wide = register_block(knobs, i, end, friendly_rows, operands.friendly, 4 * int64_t{register_floats},
                                      register_floats);
          if (wide.registers >= 4) best = std::move(wide), points_wide = true;
        }
        // Where the rows have no divisor that fits the block but 1 (a prime number of them, as
        // ViT's 197 tokens, whose largest divisor under AVX2's 4-row budget is 1), the vector
        // widens instead, up to every accumulator register (one row of 8 AVX2 registers loads
        // 8 vectors and broadcasts once for 8 FMAs, where 1 row of 2 registers left 2 FMA
        // chains waiting on each other's latency), and its rows stream through the panel
        // (row_stream) where the reduction splits into chunks of at least 16 steps. Matmul on a
        // Zen 3 against OpenBLAS: 197x768x768 0.30 -> 0.50-0.55 widened, 0.84-0.88 streamed too;
        // 197x64x197 (a prime reduction, no chunks) 0.39 -> 0.65 widened, 0.38 streamed by
        // single steps. Depthwise convs (which broadcast nothing) and blocks of a single row in
        // all (a dense layer of one row, memory-bound) were not measured so and keep their block.
        bool streamed = false;
        if (operands.broadcasts && best.rows == 1 && !points_wide && row_count(knobs, i, end, operands) > 1) {
          const int64_t accumulators = accumulator_registers(register_floats);
          for (int64_t limit = 4 * int64_t{register_floats}; limit <= accumulators * register_floats; limit *= 2) {
            Block b = register_block(knobs, i, end, rows, operands.friendly, limit, register_floats);
            if (b.registers > best.registers && b.registers <= accumulators) best = std::move(b);
          }
          streamed = reduction_chunk(knobs, end, kStreamReduceChunk) >= kStreamReduceChunk / 4 &&
                     row_stream(knobs, i, end, operands, core, best);
        }
        reduce_unroll = kReduceUnroll;
        if (plane_tiles && plane_tile(knobs, i, end, operands, core, best)) {
          reduce_unroll = kPlaneReduceUnroll;
        } else if (streamed) {
          reduce_unroll = kStreamReduceChunk;
        } else if (panels_outermost(operands, best, core.l2_bytes)) {
          // The rows' outer tiles move in one level, under the panels' (tile level 1 of 4).
          for (size_t a = 0; a + 1 < best.values.size(); ++a) {
            if (best.outer[a] == 1 || !operands.friendly[a]) continue;
            const Knob& knob = knobs[i + a];
            const int64_t inner = knob.domain[static_cast<size_t>(best.values[a])].back();
            best.values[a] = nearest(knob, {1, best.outer[a], 1, inner});
            best.outer[a] = 1;
          }
        }
        level0 = best.outer;
        for (size_t a = 0; a < best.values.size(); ++a) values[i + a] = best.values[a];
      } else {
        // Reduction axes: the innermost ones unrolled around the block, up to kReduceUnroll
        // (kPlaneReduceUnroll for a whole-plane tile, kStreamReduceChunk for streamed rows).
        const std::vector<int64_t> inners = reduction_inners(knobs, i, end, reduce_unroll);
        for (size_t a = i; a < end; ++a) {
          values[a] = nearest(knobs[a], {product(knobs[a].domain[0]) / inners[a - i], inners[a - i]});
        }
      }
      i = end;
      continue;
    }
    if (parts == 2) {  // "X.vector" (simple rule) or "X.rf" (rfactor rule)
      tiled = false;
      const int64_t extent = product(k.domain[0]);
      const int64_t lanes = simple_lanes(extent);
      values[i] = nearest(k, {extent / lanes, lanes});
    } else if (k.kind == KnobKind::kChoice && ends_with(k.name, ".vector")) {
      values[i] = choice_index(k, kVectorLanes);  // the row sketch's vector (sketch_rows.cc)
    } else if (k.kind == KnobKind::kChoice && ends_with(k.name, ".accumulate")) {
      values[i] = choice_index(k, register_floats);  // ...and its partial sums: one register
    } else if (k.kind == KnobKind::kChoice && ends_with(k.name, ".producers_at_root")) {
      const std::string stage = k.name.substr(0, k.name.rfind('.'));
      const int64_t at_root = padding_inlined(dag, stage, register_floats) ? 0 : 1;
      for (size_t c = 0; c < k.domain.size(); ++c) {
        if (k.domain[c][0] == at_root) values[i] = static_cast<int>(c);  // its domain is {1, 0}
      }
    } else if (k.kind == KnobKind::kParallel) {
      if (tiled) {
        // Fuse as few outer loops as give kParallelChunks iterations to share.
        int64_t want = static_cast<int64_t>(k.domain.back()[0]), fused = 1;
        for (size_t g = 0; g < level0.size(); ++g) {
          fused *= level0[g];
          if (fused >= kParallelChunks) {
            want = static_cast<int64_t>(g) + 1;
            break;
          }
        }
        values[i] = choice_index(k, want);
      } else {
        values[i] = choice_index(k, 1);
      }
    } else if (k.kind == KnobKind::kUnroll) {
      values[i] = choice_index(k, tiled ? 512 : 16);
    }
    ++i;
  }
  return values;
}

}  // namespace

CoreShape host_core_shape() {
  return {vector_register_floats(host_fingerprint()), host_l2_bytes()};
}

std::vector<ScheduleChoice> default_schedules(const schedule::ComputeDAG& dag, Constants constants) {
  return default_schedules(dag, host_core_shape(), constants);
}

std::vector<ScheduleChoice> default_schedules(const schedule::ComputeDAG& dag, const CoreShape& core,
                                              Constants constants) {
  std::vector<ScheduleChoice> choices;
  // Sketches that pack a constant first when the reduction is long enough to pay for copying
  // the accumulator tile out across the vector (sketch_packed.cc): their micro-kernel reads
  // every operand contiguously or as a broadcast whatever the strides. Below that (a 1x1 conv
  // over few channels) the output's own last axis makes the better vector. Measured on
  // MobileNetV2's and ResNet-50's convolutions (AMD EPYC): the packed kernel was 1.3-2x slower
  // at 16-32 reduction steps and faster from a few hundred; a dense layer's was 4.5x faster.
  // (A stride-2 depthwise convolution's packed kernel, its input stored NCHW16c in the call,
  // was slower than the gathering one by default: 4.7 ms against 2.3 for MobileNetV2's
  // largest; the search may still pick it.)
  std::vector<schedule::Sketch> sketches = schedule::generate_sketches(dag);
  if (longest_reduction(dag) >= kPackedReductionSteps) {
    // Panels packed in the call (a matmul's B) go first only where their vector is whole: SGEMM
    // 1024's was 13.2 ms against 22.2 for the cache-write tiling (its 4 KiB row stride), but
    // 509x1000x777's, 8 lanes wide, 58 ms against 28 for the padded 16-lane in-place tiling.
    const bool whole_vectors = whole_vector_reductions(dag);
    std::stable_partition(sketches.begin(), sketches.end(), [&](const schedule::Sketch& s) {
      if (s.id.find(":packed_call") != std::string::npos) return whole_vectors;
      return s.id.find(":packed") != std::string::npos;
    });
  }
  // A row-wise op (softmax, layer norm) runs best as rows (sketch_rows.cc): each row's
  // intermediates computed once, its reductions as vector partial sums. The per-stage sketches
  // before it vectorize a reduction across rows, one strided lane per row: BERT's softmax
  // (1536 rows of 128) took 0.53-0.63 ms a call that way on an AVX2 Zen 3, 0.19 ms as rows.
  std::stable_partition(sketches.begin(), sketches.end(),
                        [](const schedule::Sketch& s) { return ends_with(s.id, ":rows"); });
  for (const schedule::Sketch& sketch : sketches) {
    // Whole-plane tiles only for convs whose packed constants (their weights) come from memory.
    // Whether one beats the register block depends on the machine, not the conv: it won on an
    // Intel Xeon with ~14 GB/s per core from memory (plane_tile's comment), and lost on an AMD
    // EPYC Zen 5 (ResNet-50's t24, the 3x3 512->512 conv at 7x7, cold constants: the register
    // block 0.78-0.84 of the plane tile's time in three runs, the 1x1 conv before it 0.78-0.79;
    // why, not measured; bench/NOTES.md stop 98). So where a plane tile applies the register
    // block follows it as a second default: a tuning run times both in its first round.
    const bool plane_tiles = constants == Constants::kFromMemory && sketch.id.rfind("conv:packed:", 0) == 0;
    std::vector<schedule::KnobValues> rules{rule_values(dag, sketch.knobs, core, plane_tiles)};
    if (plane_tiles) {
      schedule::KnobValues block = rule_values(dag, sketch.knobs, core, /*plane_tiles=*/false);
      if (block != rules.front()) rules.push_back(std::move(block));
    }
    for (const schedule::KnobValues& values : rules) {
      if (!schedule::apply_candidate(dag, sketch, values)) continue;
      choices.push_back({sketch.id, sketch.knobs.to_json(values), sketch.steps(values)});
    }
  }
  choices.push_back({});
  return choices;
}

}  // namespace tessera::runtime

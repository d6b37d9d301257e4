// The packed tiling rule: vendor-style micro-kernels for reductions that read a constant
// (convolutions, dense layers) by choosing where values live, not only how loops run.
//
// A convolution vectorized along its output channels reads its weights W[k, c, r, s] with a
// stride of C*R*S between lanes, and NCHW outputs put the same stride between accumulators.
// This rule picks the spatial axis `v` that indexes the constant input (k for conv, n for dense),
// tiles SSRSRS with `v` innermost, and:
//   - packs the constant at load (cache_read + layout + pack) into a layout that splits `v` into
//     blocks of the vector tile and puts the position in the block innermost (OIHW16o for conv,
//     [N/16][K][16] for dense): every vector load of it is contiguous and none is timed;
//   - stores the accumulator tile (cache_write, or the stage itself under a fused consumer) with
//     `v` innermost, so the unrolled register tile is a row of whole vectors that O3 keeps in
//     registers, while the copy out stays vectorized along the output's own last axis;
//   - lets elementwise producers (the zero padding of a convolution) be computed at root
//     instead of inlined, so the hot loop reads plain values without bounds checks.
// Without a constant input, an input read along the output's last axis (a matmul's B) is packed
// the same way in every call (`:packed_call`), as BLAS packs its panels: the copy is timed, and
// in return the hot loop's reads no longer depend on the input's row stride.
// The other input is then read as one broadcast per FMA row, whatever its stride, which is
// why stride-2 and dilated convolutions get the same micro-kernel as stride-1 ones. An input
// read along the vector axis too (a depthwise convolution's input channel follows its output
// channel) is stored blocked by the vector in every call, NCHW16c, so its vector is contiguous
// as well; grouped convolutions, whose channel group follows the output channel by a division,
// get no such sketch (their vector would be a gather).
#include <algorithm>
#include <map>
#include <optional>

#include "schedule/packed_read.h"
#include "schedule/sketch_rule.h"

namespace tessera::schedule::detail {
namespace {

// Layout dims that block dimension `dim` of a rank-`rank` stage by `lanes`, the block innermost.
std::vector<std::string> blocked_dims(size_t rank, size_t dim, int64_t lanes) {
  std::vector<std::string> dims;
  for (size_t d = 0; d < rank; ++d) {
    dims.push_back(d == dim ? std::to_string(d) + "/" + std::to_string(lanes) : std::to_string(d));
  }
  dims.push_back(std::to_string(dim) + "%" + std::to_string(lanes));
  return dims;
}

// Layout dims of a packed panel: the blocks of dimension `dim` by `lanes` outermost, then the
// other dimensions, the position in the block innermost ([N/16][K][16] for a matmul's B[K][N],
// OIHW16o for conv weights), so one block's values are contiguous along every other dimension.
std::vector<std::string> panel_dims(size_t rank, size_t dim, int64_t lanes) {
  std::vector<std::string> dims{std::to_string(dim) + "/" + std::to_string(lanes)};
  for (size_t d = 0; d < rank; ++d) {
    if (d != dim) dims.push_back(std::to_string(d));
  }
  dims.push_back(std::to_string(dim) + "%" + std::to_string(lanes));
  return dims;
}

// Orders the copy loops of `stage` (an input copied into panel_dims(rank, dim, lanes)) as the
// panel is laid out, so the copy in every call writes each panel contiguously (rows of the
// source in turn) instead of scattering one value per row of the panel.
void order_copy_as_panel(std::vector<Step>& steps, const std::string& stage, size_t rank, size_t dim,
                         int64_t lanes, bool vectorize) {
  const std::string blocked = spatial_axis_name(dim, rank);
  steps.push_back(SplitStep{stage, blocked, {lanes}});
  std::vector<std::string> order{blocked + ".0"};
  for (size_t d = 0; d < rank; ++d) {
    if (d != dim) order.push_back(spatial_axis_name(d, rank));
  }
  order.push_back(blocked + ".1");
  steps.push_back(ReorderStep{stage, order});
  if (vectorize && lanes <= kMaxVectorLanes) steps.push_back(AnnotateStep{stage, blocked + ".1", "vectorize"});
}

// Elementwise stages `op` reads directly (inlined by the sketch prelude).
std::vector<std::string> elementwise_producers(const TensorNode& op, const State& state) {
  std::vector<std::string> names;
  for (const auto& in : op.inputs) {
    int p = state.stage_index(in->name);
    if (p >= 0 && !in->is_placeholder && in->reduce == ReduceKind::kNone) names.push_back(in->name);
  }
  return names;
}

// The innermost axis of each elementwise producer of `op` (by name): computed at root, its copy
// is vectorized along it.
std::map<std::string, Axis> producer_rows(const TensorNode& op, const State& state) {
  std::map<std::string, Axis> rows;
  for (const std::string& name : elementwise_producers(op, state)) {
    const TensorNode& p = *state.stage(state.stage_index(name)).op;
    if (!p.axes.empty()) rows[name] = p.axes.back();
  }
  return rows;
}

// Vectorizes a root producer along its innermost axis, in power-of-two vectors of at most 16
// lanes (the last, partial one masked). A convolution's zero padding is copied in every call;
// as a scalar loop with a branch per element it cost ResNet-50's searched 64-channel 3x3 conv
// 3-5% of its time (Zen 4, bench/NOTES.md).
void vectorize_root_producer(std::vector<Step>& steps, const std::string& stage, const Axis& row) {
  int64_t lanes = 1;
  while (lanes * 2 <= std::min<int64_t>(row.extent, kFullVectorLanes)) lanes *= 2;
  if (lanes < 2) return;
  if (row.extent == lanes) {
    steps.push_back(AnnotateStep{stage, row.name, "vectorize"});
    return;
  }
  steps.push_back(SplitStep{stage, row.name, {lanes}});
  steps.push_back(AnnotateStep{stage, row.name + ".1", "vectorize"});
}

// A tile knob for the vector axis: innermost at least 4 lanes, a multiple of 8 where the
// extent allows (whole AVX2/AVX-512 vectors), else any of at least 2.
Knob vector_tile_knob(const std::string& name, int64_t extent) {
  Knob k = tile_knob(name, extent, 4, 64);
  auto keep = [&](auto pred) {
    std::vector<std::vector<int64_t>> kept;
    for (const auto& f : k.domain) {
      if (pred(f.back())) kept.push_back(f);
    }
    if (!kept.empty()) k.domain = std::move(kept);
  };
  keep([](int64_t lanes) { return lanes >= 2; });
  keep([&](int64_t lanes) { return lanes >= 4 && (lanes % 8 == 0 || lanes == extent); });
  return k;
}

StageRule packed_rule(const TensorNode& op, const PackedRead& read, bool at_load, const std::string& consumer,
                      const std::vector<std::string>& producers, const std::map<std::string, Axis>& rows) {
  const std::string name = op.name;
  const std::vector<Axis> axes = op.axes, reduce_axes = op.reduce_axes;
  const size_t n = axes.size();
  // Spatial axes with the vector axis last.
  std::vector<size_t> order;
  for (size_t a = 0; a < n; ++a) {
    if (a != read.axis) order.push_back(a);
  }
  order.push_back(read.axis);
  StageRule rule;
  rule.tag = name + (at_load ? ":packed" : ":packed_call") +
             (consumer.empty() ? ":tile_cache" : ":tile_fuse(" + consumer + ")");
  std::string blocked_names;
  for (const AxisRead& b : read.blocked) blocked_names += ", " + b.input;
  rule.description = "tile " + name + " SSRSRS with " + axes[read.axis].name +
                     " as the innermost vector, " + read.packed.input +
                     (at_load ? " packed at load" : " packed in every call") + " in blocks of it" +
                     (blocked_names.empty() ? "" : blocked_names + " stored in blocks of it in the call") +
                     (consumer.empty() ? ", a cache_write accumulator tile"
                                       : ", computed at the tile of its consumer " + consumer);
  rule.apply = [=](SketchBuilder& b) {
    // Tile knobs in loop order, the vector axis's last (as in the other tile rules, whose
    // vector axis is their last axis).
    std::vector<size_t> tiles(n), reduce_tiles;
    for (size_t a : order) {
      tiles[a] = b.add(a == read.axis ? vector_tile_knob(name + "." + axes[a].name, axes[a].extent)
                                      : tile_knob(name + "." + axes[a].name, axes[a].extent, 4, 16));
    }
    for (const Axis& r : reduce_axes) reduce_tiles.push_back(b.add(tile_knob(name + "." + r.name, r.extent, 2, 64)));
    // Up to every level-0 loop fused: the panels' loop (the vector axis's, last) is among them,
    // and where the weights' panels lead (runtime/default_schedule.cc) the other outer loops
    // have one iteration each, so without it nothing would be shared between threads.
    std::vector<int64_t> parallel_choices;
    for (int64_t g = 1; g <= static_cast<int64_t>(n); ++g) parallel_choices.push_back(g);
    size_t parallel = b.add(choice_knob(name + ".parallel", KnobKind::kParallel, parallel_choices));
    size_t unroll = b.add(choice_knob(name + ".unroll", KnobKind::kUnroll, kUnrollSteps));
    size_t copy_order = b.add(choice_knob(name + ".copy_along_vector", KnobKind::kChoice, {1, 0}));
    std::optional<size_t> pack_rows;
    if (!read.rows.empty()) pack_rows = b.add(choice_knob(name + ".pack_rows", KnobKind::kChoice, {1, 0}));
    // A producer read along the vector axis is stored blocked, so it must be at root; others
    // may stay inlined.
    bool producer_blocked = false;
    for (const AxisRead& r : read.blocked) {
      producer_blocked |= std::find(producers.begin(), producers.end(), r.input) != producers.end();
    }
    std::optional<size_t> at_root;
    if (!producers.empty() && !producer_blocked) {
      at_root = b.add(choice_knob(name + ".producers_at_root", KnobKind::kChoice, {1, 0}));
    }
    const std::string outer_stage = consumer.empty() ? name : consumer;
    const std::string inner_stage = consumer.empty() ? name + ".local" : name;
    b.emitters.push_back([=](const KnobSpace& ks, const KnobValues& v, std::vector<Step>& steps) {
      auto tile = [&](size_t a) { return ks.value(v, tiles[a]); };
      const int64_t lanes = tile(read.axis)[3];
      if (producer_blocked || (at_root && ks.choice(v, *at_root))) {
        for (const std::string& p : producers) {
          steps.push_back(ComputeRootStep{p});
          // A producer stored blocked by the vector is copied along that block instead.
          bool blocked = std::any_of(read.blocked.begin(), read.blocked.end(),
                                     [&](const AxisRead& r) { return r.input == p; });
          if (auto row = rows.find(p); row != rows.end() && !blocked) vectorize_root_producer(steps, p, row->second);
        }
      }
      if (consumer.empty()) steps.push_back(CacheWriteStep{name, "local"});
      // The constant, packed with the vector's block innermost: at load, or in every call for an
      // input that is not constant (a matmul's B: its rows, 4 KiB apart at N = 1024, would fall
      // into cache sets chosen by the physical pages the process got).
      steps.push_back(CacheReadStep{read.packed.input, inner_stage, "global"});
      const std::string packed = read.packed.input + ".local";
      if (lanes >= 2) steps.push_back(LayoutStep{packed, panel_dims(read.packed.rank, read.packed.dim, lanes)});
      if (at_load) {
        steps.push_back(PackStep{packed});
      } else if (lanes >= 2 && axes[read.axis].extent % lanes == 0) {
        order_copy_as_panel(steps, packed, read.packed.rank, read.packed.dim, lanes, true);
      }
      // Inputs read along another axis, packed in every call into panels of that axis's register
      // tile ([M/4][K][4] for a matmul's A): the FMA rows' broadcasts read consecutive values
      // instead of one value per row, each a row stride apart.
      for (const auto& [r, axis] : read.rows) {
        const int64_t rows = tile(axis)[3];
        if (!pack_rows || !ks.choice(v, *pack_rows) || rows < 2) break;
        steps.push_back(CacheReadStep{r.input, inner_stage, "global"});
        steps.push_back(LayoutStep{r.input + ".local", panel_dims(r.rank, r.dim, rows)});
        if (axes[axis].extent % rows == 0) order_copy_as_panel(steps, r.input + ".local", r.rank, r.dim, rows, false);
      }
      // Inputs read along the vector axis, stored blocked by it in every call (NCHW16c for a
      // depthwise convolution): a producer at root in place, an input through a copy.
      for (const AxisRead& r : read.blocked) {
        if (lanes < 2) break;
        std::string stage = r.input;
        if (std::find(producers.begin(), producers.end(), r.input) == producers.end()) {
          steps.push_back(CacheReadStep{r.input, inner_stage, "global"});
          stage = r.input + ".local";
        }
        steps.push_back(LayoutStep{stage, blocked_dims(r.rank, r.dim, lanes)});
      }
      // The accumulator tile with the vector axis innermost.
      std::vector<std::string> tile_dims;
      for (size_t a : order) tile_dims.push_back(std::to_string(a));
      steps.push_back(LayoutStep{inner_stage, tile_dims});
      // Outer stage: S S over the tiles, then the copy out in the output's own order.
      std::vector<std::string> level0, level1, level2;
      for (size_t a : order) {
        const auto& t = tile(a);
        steps.push_back(SplitStep{outer_stage, axes[a].name, {t[1], t[2] * t[3]}});
        level0.push_back(axes[a].name + ".0");
        level1.push_back(axes[a].name + ".1");
      }
      // The copy out of the tile: along the output's last axis (contiguous stores, strided reads
      // of the tile) or along the vector axis (contiguous reads, strided stores).
      const bool copy_along_vector = ks.choice(v, copy_order) == 1;
      for (size_t a = 0; a < n; ++a) {
        level2.push_back(axes[copy_along_vector ? order[a] : a].name + ".2");
      }
      std::vector<std::string> outer = level0;
      outer.insert(outer.end(), level1.begin(), level1.end());
      outer.insert(outer.end(), level2.begin(), level2.end());
      steps.push_back(ReorderStep{outer_stage, outer});
      int64_t g = std::min<int64_t>(ks.choice(v, parallel), static_cast<int64_t>(n));
      if (g > 1) steps.push_back(FuseStep{outer_stage, {level0.begin(), level0.begin() + g}});
      steps.push_back(ComputeAtStep{inner_stage, outer_stage, level1.back()});
      steps.push_back(AnnotateStep{outer_stage, fused_name({level0.begin(), level0.begin() + g}), "parallel"});
      const size_t copy_axis = copy_along_vector ? read.axis : n - 1;
      int64_t copy_width = tile(copy_axis)[2] * tile(copy_axis)[3];
      if (copy_width >= 2 && copy_width <= kMaxVectorLanes) {
        steps.push_back(AnnotateStep{outer_stage, level2.back(), "vectorize"});
      }
      // Inside the tile: R S R S, the vector axis innermost.
      std::vector<std::string> spatial, reductions;
      std::vector<int64_t> inner, reduce_inner;
      for (size_t a : order) {
        spatial.push_back(axes[a].name);
        inner.push_back(tile(a)[3]);
      }
      for (size_t r = 0; r < reduce_axes.size(); ++r) {
        reductions.push_back(reduce_axes[r].name);
        reduce_inner.push_back(ks.value(v, reduce_tiles[r])[1]);
      }
      emit_inner_tile(steps, inner_stage, spatial, inner, reductions, reduce_inner, lanes >= 2, ks.choice(v, unroll));
    });
  };
  return rule;
}

}  // namespace

std::vector<StageRule> packed_tile_rules(const TensorNode& op, const State& state,
                                         const std::string& consumer) {
  if (!has_data_reuse(op)) return {};
  if (auto read = find_packed_read(op, state, true)) {
    return {packed_rule(op, *read, true, consumer, elementwise_producers(op, state), producer_rows(op, state))};
  }
  if (auto read = find_packed_read(op, state, false)) {
    return {packed_rule(op, *read, false, consumer, elementwise_producers(op, state), producer_rows(op, state))};
  }
  return {};
}

}  // namespace tessera::schedule::detail

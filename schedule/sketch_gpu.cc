// GPU sketch rules and their assembly into sketches (see sketch_gpu.h).
#include "schedule/sketch_gpu.h"

#include <algorithm>
#include <memory>

#include "schedule/sketch_rule.h"
#include "schedule/step_helpers.h"

namespace tessera::schedule {
namespace {

using namespace detail;

const std::vector<int64_t> kThreadChoices = {32, 64, 128, 256, 512, 1024};

bool is_elementwise(const TensorNode& t) { return !t.is_placeholder && t.reduce == ReduceKind::kNone; }

// Threads per spatial axis, innermost first: a warp along the last axis, the rest spread so
// that the product never passes kMaxGpuThreads.
std::vector<int64_t> thread_bounds(size_t axes) {
  std::vector<int64_t> bounds(axes, 1);
  const std::vector<int64_t> from_last = axes == 2 ? std::vector<int64_t>{32, 32}
                                                   : std::vector<int64_t>{32, 8, 4};
  for (size_t i = 0; i < axes && i < from_last.size(); ++i) bounds[axes - 1 - i] = from_last[i];
  return bounds;
}

// [block, register, register, thread] factorizations of `extent`: threads at most
// `max_threads`, a thread's register tile (the two middle levels) at most `max_registers`.
Knob gpu_tile_knob(const std::string& name, int64_t extent, int64_t max_threads, int64_t max_registers) {
  Knob k = tile_knob(name, extent, 4, max_threads);
  std::vector<std::vector<int64_t>> kept;
  for (const auto& t : k.domain) {
    if (t[1] * t[2] <= max_registers) kept.push_back(t);
  }
  k.domain = std::move(kept);
  return k;
}

// Emits the cooperative fetch of each shared copy: its loops fused, split by the block's thread
// count and bound to threadIdx.x. The copies' loops exist only once compute_at has placed them,
// so the steps so far are applied to read them.
void emit_cooperative_fetch(const ComputeDAG& dag, const std::vector<std::string>& copies,
                            int64_t threads, std::vector<Step>& steps) {
  State state(dag);
  if (!state.apply_all(steps)) return;  // the candidate is refused when applied
  for (const std::string& copy : copies) {
    int index = state.stage_index(copy);
    if (index < 0) continue;
    std::vector<std::string> loops;
    int64_t extent = 1;
    for (const Loop& l : state.stage(index).loops) {
      loops.push_back(l.name);
      extent *= l.extent;
    }
    if (loops.empty()) continue;
    if (loops.size() > 1) steps.push_back(FuseStep{copy, loops});
    const std::string fused = fused_name(loops);
    steps.push_back(SplitStep{copy, fused, {std::min(threads, extent)}});
    steps.push_back(BindStep{copy, fused + ".1", "threadIdx.x"});
  }
}

// Multi-level tiling S(block) R(chunk) S(thread) S R S with block and thread levels bound; the
// inputs in `staged` copied to shared memory per chunk.
StageRule gpu_tile_rule(const ComputeDAG& dag, const TensorNode& op, const std::vector<std::string>& staged) {
  const std::string name = op.name;
  const std::vector<Axis> axes = op.axes, reduce_axes = op.reduce_axes;
  StageRule rule;
  rule.tag = name + (staged.empty() ? ":gpu_tile" : ":gpu_tile_shared");
  rule.description = "tile " + name + " for blocks and threads (S R S S R S)" +
                     (staged.empty() ? std::string(", inputs read from global memory")
                                     : ", " + join(staged) + " staged in shared memory per reduction chunk");
  rule.apply = [=](SketchBuilder& b) {
    std::vector<size_t> tiles, chunks;
    const std::vector<int64_t> bounds = thread_bounds(axes.size());
    for (size_t a = 0; a < axes.size(); ++a) {
      const int64_t registers = a + 2 >= axes.size() ? 8 : 2;
      tiles.push_back(b.add(gpu_tile_knob(name + "." + axes[a].name, axes[a].extent, bounds[a], registers)));
    }
    for (const Axis& r : reduce_axes) chunks.push_back(b.add(tile_knob(name + "." + r.name, r.extent, 2, 32)));
    size_t unroll = b.add(choice_knob(name + ".unroll", KnobKind::kUnroll, kUnrollSteps));
    b.emitters.push_back([=](const KnobSpace& ks, const KnobValues& v, std::vector<Step>& steps) {
      std::vector<std::string> block, thread, reg1, reg2, r0, r1;
      int64_t threads = 1;
      for (size_t a = 0; a < axes.size(); ++a) {
        const auto& t = ks.value(v, tiles[a]);
        steps.push_back(SplitStep{name, axes[a].name, {t[1], t[2], t[3]}});
        block.push_back(axes[a].name + ".0");
        reg1.push_back(axes[a].name + ".1");
        reg2.push_back(axes[a].name + ".2");
        thread.push_back(axes[a].name + ".3");
        threads *= t[3];
      }
      for (size_t r = 0; r < reduce_axes.size(); ++r) {
        steps.push_back(SplitStep{name, reduce_axes[r].name, {ks.value(v, chunks[r])[1]}});
        r0.push_back(reduce_axes[r].name + ".0");
        r1.push_back(reduce_axes[r].name + ".1");
      }
      std::vector<std::string> order;
      for (const auto* part : {&block, &r0, &thread, &reg1, &r1, &reg2}) {
        order.insert(order.end(), part->begin(), part->end());
      }
      steps.push_back(ReorderStep{name, order});
      if (block.size() > 1) steps.push_back(FuseStep{name, block});
      if (thread.size() > 1) steps.push_back(FuseStep{name, thread});
      steps.push_back(BindStep{name, fused_name(block), "blockIdx.x"});
      steps.push_back(BindStep{name, fused_name(thread), "threadIdx.x"});
      if (!staged.empty() && !r0.empty()) {
        std::vector<std::string> copies;
        for (const std::string& in : staged) {
          steps.push_back(CacheReadStep{in, name, "shared"});
          copies.push_back(in + ".shared");
        }
        for (const std::string& copy : copies) steps.push_back(ComputeAtStep{copy, name, r0.back()});
        emit_cooperative_fetch(dag, copies, threads, steps);
      }
      if (ks.choice(v, unroll) > 0) steps.push_back(AutoUnrollStep{name, ks.choice(v, unroll)});
    });
  };
  return rule;
}

// Spatial loops fused and split into blocks of a knob's threads; reductions serial per thread.
StageRule gpu_simple_rule(const TensorNode& op) {
  const std::string name = op.name;
  const std::vector<Axis> axes = op.axes;
  StageRule rule;
  rule.tag = name + ":gpu_simple";
  rule.description = "one thread per element of " + name + ", in blocks";
  rule.apply = [=](SketchBuilder& b) {
    size_t threads = b.add(choice_knob(name + ".threads", KnobKind::kChoice, kThreadChoices));
    size_t unroll = b.add(choice_knob(name + ".unroll", KnobKind::kUnroll, kUnrollSteps));
    b.emitters.push_back([=](const KnobSpace& ks, const KnobValues& v, std::vector<Step>& steps) {
      if (axes.empty()) return;
      std::vector<std::string> loops;
      int64_t total = 1;
      for (const Axis& a : axes) {
        loops.push_back(a.name);
        total *= a.extent;
      }
      if (loops.size() > 1) steps.push_back(FuseStep{name, loops});
      const std::string fused = fused_name(loops);
      steps.push_back(SplitStep{name, fused, {std::min(ks.choice(v, threads), total)}});
      steps.push_back(BindStep{name, fused + ".0", "blockIdx.x"});
      steps.push_back(BindStep{name, fused + ".1", "threadIdx.x"});
      if (ks.choice(v, unroll) > 0) steps.push_back(AutoUnrollStep{name, ks.choice(v, unroll)});
    });
  };
  return rule;
}

}  // namespace

std::vector<Sketch> generate_gpu_sketches(const ComputeDAG& dag) {
  State state(dag);
  const size_t n = state.stages().size();
  std::vector<bool> inlined(n, false);
  std::vector<Step> prelude;
  for (size_t i = 0; i < n; ++i) {
    const TensorNode& t = *state.stage(static_cast<int>(i)).op;
    if (is_elementwise(t) && !dag.is_output(t.name) && !state.consumers(t.name).empty()) {
      inlined[i] = true;
      prelude.push_back(ComputeInlineStep{t.name});
    }
  }
  std::vector<std::vector<StageRule>> choices;
  for (size_t i = n; i-- > 0;) {
    const TensorNode& t = *state.stage(static_cast<int>(i)).op;
    if (t.is_placeholder || inlined[i]) continue;
    std::vector<StageRule> options;
    if (has_data_reuse(t)) {
      // Inputs read directly (not through an inlined stage, which cache_read cannot copy).
      std::vector<std::string> staged;
      for (const auto& in : t.inputs) {
        int p = state.stage_index(in->name);
        if (p >= 0 && !inlined[static_cast<size_t>(p)]) staged.push_back(in->name);
      }
      if (!staged.empty()) options.push_back(gpu_tile_rule(dag, t, staged));
      options.push_back(gpu_tile_rule(dag, t, {}));
    }
    options.push_back(gpu_simple_rule(t));
    choices.push_back(std::move(options));
  }
  std::vector<Sketch> sketches;
  std::vector<size_t> pick(choices.size(), 0);
  while (true) {
    SketchBuilder builder;
    for (size_t s = 0; s < choices.size(); ++s) {
      const StageRule& rule = choices[s][pick[s]];
      rule.apply(builder);
      builder.tags.push_back(rule.tag);
      builder.descriptions.push_back(rule.description);
    }
    Sketch sketch;
    for (const auto& tag : builder.tags) sketch.id += (sketch.id.empty() ? "" : ";") + tag;
    sketch.description = prelude.empty() ? "" : "inline elementwise producers; ";
    for (size_t d = 0; d < builder.descriptions.size(); ++d) {
      sketch.description += (d ? "; " : "") + builder.descriptions[d];
    }
    sketch.knobs = KnobSpace(builder.knobs);
    auto emitters = std::make_shared<std::vector<Emitter>>(builder.emitters);
    sketch.materialize = [prelude, emitters](const KnobSpace& ks, const KnobValues& v) {
      std::vector<Step> steps = prelude;
      for (const Emitter& e : *emitters) e(ks, v, steps);
      return steps;
    };
    sketches.push_back(std::move(sketch));
    size_t s = 0;
    while (s < choices.size() && ++pick[s] == choices[s].size()) pick[s++] = 0;
    if (s == choices.size()) break;
  }
  return sketches;
}

}  // namespace tessera::schedule

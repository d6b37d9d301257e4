// Sketch rules for CPU and the assembly of sketches from per-stage rules (see sketch.h).
#include "schedule/sketch.h"

#include <algorithm>
#include <memory>

#include "schedule/simplify.h"
#include "schedule/sketch_rows.h"
#include "schedule/sketch_rule.h"

namespace tessera::schedule {
namespace detail {

// A reduction reuses data when some input is not indexed by every spatial axis.
bool has_data_reuse(const TensorNode& t) {
  if (t.reduce == ReduceKind::kNone || t.axes.size() < 2) return false;
  bool reuse = false;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e->kind == ExprKind::kLoad) {
      for (const Axis& a : t.axes) {
        bool used = std::any_of(e->operands.begin(), e->operands.end(),
                                [&](const Expr& i) { return uses_var(i, a.var.get()); });
        reuse |= !used;
      }
    }
    for (const Expr& op : e->operands) visit(op);
  };
  visit(t.body);
  return reuse;
}

// Fused loop name of `loops` (what FuseStep names it), or the loop itself.
std::string fused_name(const std::vector<std::string>& loops) {
  std::string name;
  for (const auto& l : loops) name += (name.empty() ? "" : "@") + l;
  return name;
}

void emit_inner_tile(std::vector<Step>& steps, const std::string& stage, const std::vector<std::string>& spatial,
                     const std::vector<int64_t>& inner, const std::vector<std::string>& reductions,
                     const std::vector<int64_t>& reduce_inner, bool vectorize, int64_t unroll) {
  std::vector<std::string> r0, s0, r1, s1;
  for (size_t a = 0; a < spatial.size(); ++a) {
    steps.push_back(SplitStep{stage, spatial[a], {inner[a]}});
    s0.push_back(spatial[a] + ".0");
    s1.push_back(spatial[a] + ".1");
  }
  for (size_t r = 0; r < reductions.size(); ++r) {
    steps.push_back(SplitStep{stage, reductions[r], {reduce_inner[r]}});
    r0.push_back(reductions[r] + ".0");
    r1.push_back(reductions[r] + ".1");
  }
  std::vector<std::string> order = r0;
  order.insert(order.end(), s0.begin(), s0.end());
  order.insert(order.end(), r1.begin(), r1.end());
  order.insert(order.end(), s1.begin(), s1.end());
  steps.push_back(ReorderStep{stage, order});
  if (vectorize) steps.push_back(AnnotateStep{stage, s1.back(), "vectorize"});
  if (unroll > 0) steps.push_back(AutoUnrollStep{stage, unroll});
}

}  // namespace detail

namespace {

using namespace detail;

// Whether distinct values of `axis` (the rest fixed) read distinct elements through `load`:
// some index is linear in it with a non-zero coefficient and uses no reduction axis (a
// window's reduction axis beside it, oh * stride + r, makes neighbouring values share
// elements; so does a division, a grouped conv's k / (K / groups)). A reduction axis of one
// step (a depthwise conv's input channel within its group) is always 0.
bool reads_apart(const Expr& load, const Axis& axis, const std::vector<Axis>& reduce_axes) {
  return std::any_of(load->operands.begin(), load->operands.end(), [&](const Expr& index) {
    int64_t c = 0;
    if (!linear_coefficient(index, axis.var.get(), &c) || c == 0) return false;
    return std::none_of(reduce_axes.begin(), reduce_axes.end(),
                        [&](const Axis& r) { return r.extent > 1 && uses_var(index, r.var.get()); });
  });
}

// The indices of `t`'s spatial axes: first those across which no input is reused (every load
// reads apart along them: a depthwise conv's channels), then the rest, each group in axis order.
std::vector<size_t> reuse_free_first(const TensorNode& t) {
  std::vector<bool> apart(t.axes.size(), true);
  bool any_load = false;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e->kind == ExprKind::kLoad) {
      any_load = true;
      for (size_t a = 0; a < t.axes.size(); ++a) apart[a] = apart[a] && reads_apart(e, t.axes[a], t.reduce_axes);
    }
    for (const Expr& op : e->operands) visit(op);
  };
  if (t.body.defined()) visit(t.body);
  std::vector<size_t> order;
  for (size_t a = 0; a < t.axes.size(); ++a) {
    if (any_load && apart[a]) order.push_back(a);
  }
  for (size_t a = 0; a < t.axes.size(); ++a) {
    if (!any_load || !apart[a]) order.push_back(a);
  }
  return order;
}

bool is_elementwise(const TensorNode& t) { return !t.is_placeholder && t.reduce == ReduceKind::kNone; }

std::vector<std::string> names_of(const std::vector<Axis>& axes) {
  std::vector<std::string> n;
  for (const Axis& a : axes) n.push_back(a.name);
  return n;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Parallelizes the first `count` of `loops` (fusing them when more than one).
void emit_parallel(std::vector<Step>& steps, const std::string& stage,
                   const std::vector<std::string>& loops, int64_t count) {
  count = std::min<int64_t>(count, static_cast<int64_t>(loops.size()));
  if (count <= 0) return;
  std::vector<std::string> outer(loops.begin(), loops.begin() + count);
  if (outer.size() > 1) steps.push_back(FuseStep{stage, outer});
  steps.push_back(AnnotateStep{stage, fused_name(outer), "parallel"});
}

// Multi-level tiling SSRSRS. With `consumer`, the consumer is tiled (S S | S S) and `stage`
// computed at its tile (R S R S inside); with `cache`, a cache_write stage plays that role.
StageRule tile_rule(const TensorNode& op, const std::string& consumer, bool cache) {
  const std::string name = op.name;
  const std::vector<Axis> axes = op.axes, reduce_axes = op.reduce_axes;
  StageRule rule;
  rule.tag = name + (consumer.empty() ? (cache ? ":tile_cache" : ":tile") : ":tile_fuse(" + consumer + ")");
  rule.description = consumer.empty()
                         ? (cache ? "tile " + name + " SSRSRS with a cache_write accumulator tile"
                                  : "tile " + name + " SSRSRS in place")
                         : "tile " + name + " SSRSRS, computed at the tile of its consumer " + consumer;
  rule.apply = [=](SketchBuilder& b) {
    std::vector<size_t> tiles, reduce_tiles;
    for (size_t a = 0; a < axes.size(); ++a) {
      bool last = a + 1 == axes.size();
      // Ceil tiles too: a prime extent has no other tiling (partition.h keeps its edge out of
      // the hot loop, pad_local.h makes the edge tiles cheap); the vector axis in whole vectors.
      tiles.push_back(b.add(tile_knob(name + "." + axes[a].name, axes[a].extent, 4, last ? 64 : 16, true,
                                      last ? kFullVectorLanes : 0)));
    }
    for (const Axis& r : reduce_axes) {
      reduce_tiles.push_back(b.add(tile_knob(name + "." + r.name, r.extent, 2, 64, true)));
    }
    std::vector<int64_t> parallel_choices;
    for (int64_t g = 1; g <= std::min<int64_t>(3, static_cast<int64_t>(axes.size())); ++g) parallel_choices.push_back(g);
    size_t parallel = b.add(choice_knob(name + ".parallel", KnobKind::kParallel, parallel_choices));
    size_t unroll = b.add(choice_knob(name + ".unroll", KnobKind::kUnroll, kUnrollSteps));
    // The outermost tile level runs first the axes along which no input is reused (a depthwise
    // conv's channels): each of their tiles reads its own slice of every input, so the loops
    // that do carry reuse run inside one slice, whose working set is smaller by their extent.
    const std::vector<size_t> outer_order = reuse_free_first(op);
    const std::string outer_stage = !consumer.empty() ? consumer : name;
    const std::string inner_stage = !consumer.empty() ? name : name + ".local";
    b.emitters.push_back([=](const KnobSpace& ks, const KnobValues& v, std::vector<Step>& steps) {
      const size_t n = axes.size();
      auto tile = [&](size_t a) { return ks.value(v, tiles[a]); };
      if (!consumer.empty() || cache) {
        if (cache) steps.push_back(CacheWriteStep{name, "local"});
        std::vector<std::string> level0, level1, level2;
        for (size_t a = 0; a < n; ++a) {
          const auto& t = tile(a);
          steps.push_back(SplitStep{outer_stage, axes[a].name, {t[1], t[2] * t[3]}});
          level0.push_back(axes[a].name + ".0");
          level1.push_back(axes[a].name + ".1");
          level2.push_back(axes[a].name + ".2");
        }
        std::vector<std::string> order;
        for (size_t a : outer_order) order.push_back(level0[a]);
        order.insert(order.end(), level1.begin(), level1.end());
        order.insert(order.end(), level2.begin(), level2.end());
        steps.push_back(ReorderStep{outer_stage, order});
        int64_t g = std::min<int64_t>(ks.choice(v, parallel), static_cast<int64_t>(n));
        if (g > 1) steps.push_back(FuseStep{outer_stage, {order.begin(), order.begin() + g}});
        steps.push_back(ComputeAtStep{inner_stage, outer_stage, level1.back()});
        steps.push_back(AnnotateStep{outer_stage, fused_name({order.begin(), order.begin() + g}), "parallel"});
        int64_t copy_width = tile(n - 1)[2] * tile(n - 1)[3];
        if (copy_width >= 2 && copy_width <= kMaxVectorLanes) {
          steps.push_back(AnnotateStep{outer_stage, level2.back(), "vectorize"});
        }
        // Inside the tile: R S R S over the region.
        std::vector<std::string> spatial, reductions;
        std::vector<int64_t> inner, reduce_inner;
        for (size_t a = 0; a < n; ++a) {
          spatial.push_back(axes[a].name);
          inner.push_back(tile(a)[3]);
        }
        for (size_t r = 0; r < reduce_axes.size(); ++r) {
          reductions.push_back(reduce_axes[r].name);
          reduce_inner.push_back(ks.value(v, reduce_tiles[r])[1]);
        }
        emit_inner_tile(steps, inner_stage, spatial, inner, reductions, reduce_inner, tile(n - 1)[3] >= 2,
                        ks.choice(v, unroll));
        return;
      }
      // In place: S S R S R S on the stage itself.
      std::vector<std::vector<std::string>> s(4), r(2);
      for (size_t a = 0; a < n; ++a) {
        const auto& t = tile(a);
        steps.push_back(SplitStep{name, axes[a].name, {t[1], t[2], t[3]}});
        for (int l = 0; l < 4; ++l) s[l].push_back(axes[a].name + "." + std::to_string(l));
      }
      for (size_t q = 0; q < reduce_axes.size(); ++q) {
        steps.push_back(SplitStep{name, reduce_axes[q].name, {ks.value(v, reduce_tiles[q])[1]}});
        for (int l = 0; l < 2; ++l) r[l].push_back(reduce_axes[q].name + "." + std::to_string(l));
      }
      std::vector<std::string> order;
      for (size_t a : outer_order) order.push_back(s[0][a]);
      for (const auto* part : {&s[1], &r[0], &s[2], &r[1], &s[3]}) {
        order.insert(order.end(), part->begin(), part->end());
      }
      steps.push_back(ReorderStep{name, order});
      emit_parallel(steps, name, {order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n)}, ks.choice(v, parallel));
      if (tile(n - 1)[3] >= 2) steps.push_back(AnnotateStep{name, s[3].back(), "vectorize"});
      if (ks.choice(v, unroll) > 0) steps.push_back(AutoUnrollStep{name, ks.choice(v, unroll)});
    });
  };
  return rule;
}

// Vectorized partial sums: split the first reduction axis, rfactor its inner part into a
// vector lane of a partial stage, and reduce the partials in the stage itself.
StageRule rfactor_rule(const TensorNode& op) {
  const std::string name = op.name;
  const std::vector<Axis> axes = op.axes, reduce_axes = op.reduce_axes;
  StageRule rule;
  rule.tag = name + ":rfactor";
  rule.description = "rfactor " + name + " into vectorized partial reductions";
  rule.apply = [=](SketchBuilder& b) {
    size_t factor = b.add(tile_knob(name + ".rf", reduce_axes[0].extent, 2, 64));
    b.emitters.push_back([=](const KnobSpace& ks, const KnobValues& v, std::vector<Step>& steps) {
      int64_t f = ks.value(v, factor)[1];
      const std::string r = reduce_axes[0].name;
      steps.push_back(SplitStep{name, r, {f}});
      steps.push_back(RFactorStep{name, r + ".1"});
      std::vector<std::string> order = names_of(axes);
      order.push_back(r + ".0");
      for (size_t q = 1; q < reduce_axes.size(); ++q) order.push_back(reduce_axes[q].name);
      order.push_back("rf");
      steps.push_back(ReorderStep{name + ".rf", order});
      if (f >= 2) steps.push_back(AnnotateStep{name + ".rf", "rf", "vectorize"});
    });
  };
  return rule;
}

// Vectorize the innermost spatial axis (moved inside any reduction), parallelize the
// outermost, unroll small nests.
StageRule simple_rule(const TensorNode& op) {
  const std::string name = op.name;
  const std::vector<Axis> axes = op.axes, reduce_axes = op.reduce_axes;
  StageRule rule;
  rule.tag = name + ":simple";
  rule.description = "vectorize, parallelize and unroll " + name;
  rule.apply = [=](SketchBuilder& b) {
    const Axis& last = axes.back();
    size_t vec = b.add(tile_knob(name + ".vector", last.extent, 2, 64));
    size_t parallel = b.add(choice_knob(name + ".parallel", KnobKind::kParallel, {0, 1}));
    size_t unroll = b.add(choice_knob(name + ".unroll", KnobKind::kUnroll, kUnrollSteps));
    b.emitters.push_back([=](const KnobSpace& ks, const KnobValues& v, std::vector<Step>& steps) {
      int64_t lanes = ks.value(v, vec)[1];
      steps.push_back(SplitStep{name, last.name, {lanes}});
      std::vector<std::string> order;
      for (size_t a = 0; a + 1 < axes.size(); ++a) order.push_back(axes[a].name);
      order.push_back(last.name + ".0");
      for (const Axis& r : reduce_axes) order.push_back(r.name);
      order.push_back(last.name + ".1");
      steps.push_back(ReorderStep{name, order});
      if (lanes >= 2) steps.push_back(AnnotateStep{name, last.name + ".1", "vectorize"});
      if (ks.choice(v, parallel)) steps.push_back(AnnotateStep{name, order.front(), "parallel"});
      if (ks.choice(v, unroll) > 0) steps.push_back(AutoUnrollStep{name, ks.choice(v, unroll)});
    });
  };
  return rule;
}

// The elementwise consumer `t`'s reduction could be fused into: the one stage every path of
// its readers leads to. Readers that are inlined (graph fusion's bias_add between a conv and its
// relu) are looked through, each in turn to all of its own readers, and the inlined stages
// become part of the consumer's body. So a diamond that closes again is fused too: erf-GELU
// reads its input twice, x * (erf(x / sqrt 2) + 1) * 0.5, through two inlined chains that meet
// at the first multiply; its reader, the second, is the consumer. Every stage on the way is
// elementwise and of `t`'s shape.
std::string fusable_consumer(const State& state, const TensorNode& t, const std::vector<bool>& inlined) {
  std::string consumer;
  std::vector<const TensorNode*> open{&t};
  std::vector<int> seen;
  while (!open.empty()) {
    const TensorNode* read = open.back();
    open.pop_back();
    const std::vector<int> readers = state.consumers(read->name);
    if (readers.empty()) return "";  // an inlined stage nobody reads: no single consumer
    for (int r : readers) {
      if (std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
      seen.push_back(r);
      const TensorNode& c = *state.stage(r).op;
      if (!is_elementwise(c) || c.axes.size() != t.axes.size()) return "";
      for (size_t a = 0; a < c.axes.size(); ++a) {
        if (c.axes[a].extent != t.axes[a].extent) return "";
      }
      if (inlined[static_cast<size_t>(r)]) {
        open.push_back(&c);
      } else if (consumer.empty()) {  // each reader is seen once
        consumer = c.name;
      } else {
        return "";  // two stages read it: computing it at one tile would leave the other
      }
    }
  }
  return consumer;
}

}  // namespace

std::vector<Sketch> generate_sketches(const ComputeDAG& dag) {
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
  // Per stage, from the output back: the ways to schedule it.
  std::vector<std::vector<StageRule>> choices;
  for (size_t i = n; i-- > 0;) {
    const TensorNode& t = *state.stage(static_cast<int>(i)).op;
    if (t.is_placeholder || inlined[i]) continue;
    std::vector<StageRule> options;
    if (has_data_reuse(t)) {
      std::string consumer = fusable_consumer(state, t, inlined);
      int c = consumer.empty() ? -1 : state.stage_index(consumer);
      if (c >= 0) {
        options.push_back(tile_rule(t, consumer, false));
      } else {
        options.push_back(tile_rule(t, "", true));
      }
      options.push_back(tile_rule(t, "", false));
      for (StageRule& packed : packed_tile_rules(t, state, consumer)) options.push_back(std::move(packed));
    } else if (t.reduce != ReduceKind::kNone && product(t.shape) <= 64 &&
               t.reduce_axes[0].extent >= 16) {
      options.push_back(rfactor_rule(t));
      options.push_back(simple_rule(t));
    } else {
      options.push_back(simple_rule(t));
    }
    choices.push_back(std::move(options));
  }
  // A fused consumer is scheduled by its producer's tile rule: the sketches that fuse it skip
  // its own rule.
  std::vector<Sketch> sketches;
  std::vector<size_t> pick(choices.size(), 0);
  while (true) {
    SketchBuilder builder;
    std::vector<std::string> fused;
    for (size_t s = 0; s < choices.size(); ++s) {
      const StageRule& rule = choices[s][pick[s]];
      size_t open = rule.tag.find(":tile_fuse(");
      if (open != std::string::npos) fused.push_back(rule.tag.substr(open + 11, rule.tag.size() - open - 12));
    }
    for (size_t s = 0; s < choices.size(); ++s) {
      const StageRule& rule = choices[s][pick[s]];
      std::string stage = rule.tag.substr(0, rule.tag.find(':'));
      if (std::find(fused.begin(), fused.end(), stage) != fused.end()) continue;
      rule.apply(builder);
      builder.tags.push_back(rule.tag);
      builder.descriptions.push_back(rule.description);
    }
    Sketch sketch;
    for (const auto& tag : builder.tags) sketch.id += (sketch.id.empty() ? "" : ";") + tag;
    if (!prelude.empty()) sketch.description = "inline elementwise producers; ";
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
    if (std::none_of(sketches.begin(), sketches.end(), [&](const Sketch& s) { return s.id == sketch.id; })) {
      sketches.push_back(std::move(sketch));
    }
    size_t s = 0;
    while (s < choices.size() && ++pick[s] == choices[s].size()) pick[s++] = 0;
    if (s == choices.size()) break;
  }
  // Row-wise memory-bound DAGs also get the row sketch (sketch_rows.h), after the others.
  if (auto rows = row_sketch(dag)) sketches.push_back(std::move(*rows));
  return sketches;
}

Result<State> apply_candidate(const ComputeDAG& dag, const Sketch& sketch, const KnobValues& values) {
  if (values.size() != sketch.knobs.size()) {
    return make_error("sketch " + sketch.id + " has " + std::to_string(sketch.knobs.size()) +
                      " knobs, the candidate gives " + std::to_string(values.size()));
  }
  State state(dag);
  if (auto r = state.apply_all(sketch.steps(values)); !r) {
    return make_error("candidate rejected by sketch " + sketch.id + ": " + r.error().message);
  }
  return state;
}

}  // namespace tessera::schedule

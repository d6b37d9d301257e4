// Steps that relate stages to each other or add stages: compute_at, compute_root, cache_write,
// cache_read and rfactor (see steps.h for their contracts).
#include <algorithm>
#include <limits>

#include "schedule/region.h"
#include "schedule/step_helpers.h"

namespace tessera::schedule::detail {
namespace {

Tensor make_tensor(TensorNode node) { return Tensor(std::make_shared<const TensorNode>(std::move(node))); }

Axis fresh_axis(const std::string& name, int64_t extent) { return Axis{name, extent, var(name)}; }

std::vector<Expr> vars_of(const std::vector<Axis>& axes) {
  std::vector<Expr> v;
  for (const Axis& a : axes) v.push_back(a.var);
  return v;
}

Result<StorageScope> parse_scope(const std::string& text) {
  if (text == "local") return StorageScope::kLocal;
  if (text == "global") return StorageScope::kGlobal;
  if (text == "shared") return StorageScope::kShared;
  return make_error("unknown storage scope '" + text + "' (expected local, shared or global)");
}

std::string unique_stage_name(const State& state, const std::string& wanted) {
  std::string name = wanted;
  for (int suffix = 1; state.stage_index(name) >= 0; ++suffix) name = wanted + "_" + std::to_string(suffix);
  return name;
}

// A stage that gets a new role (the copy left by cache_write, the combiner left by rfactor)
// must still be untouched: at root, no loops changed, nothing attached to it.
Result<int> find_fresh_stage(const State& state, const std::string& name, const std::string& step) {
  auto stage = find_stage(state, name);
  if (!stage) return stage.error();
  const StageState& s = state.stage(*stage);
  if (s.location != ComputeLocation::kRoot) {
    return make_error("cannot " + step + " stage '" + name + "': it is computed at " +
                      s.attach_stage + "." + s.attach_loop + " (compute_root it first)");
  }
  if (auto r = require_no_attachments(state, *stage, step); !r) return r.error();
  return *stage;
}

// Stages that `stage` reads, seeing through inlined stages.
void producers_of(const State& state, const TensorNode& op, std::vector<int>* out) {
  for (const auto& in : op.inputs) {
    int p = state.stage_index(in->name);
    if (p < 0) continue;
    if (state.stage(p).location == ComputeLocation::kInlined) {
      producers_of(state, *state.stage(p).op, out);
    } else {
      out->push_back(p);
    }
  }
}

// After `stage` moved: every attached stage it reads must still enclose it, since an attached
// stage only exists inside its attach loop (its region was inferred from readers there).
Result<void> check_reads_stay_inside(const State& state, int stage, const std::string& step) {
  std::vector<int> producers;
  producers_of(state, *state.stage(stage).op, &producers);
  for (int p : producers) {
    const StageState& producer = state.stage(p);
    if (producer.location != ComputeLocation::kAttached) continue;
    int target = state.stage_index(producer.attach_stage);
    const auto& loops = state.stage(target).loops;
    int position = 0;
    while (loops[position].name != producer.attach_loop) ++position;
    if (stage != target && !nested_inside(state, stage, target, position)) {
      return make_error("cannot " + step + " stage '" + state.stage(stage).op->name +
                        "': it reads '" + producer.op->name + "', which is computed at " +
                        producer.attach_stage + "." + producer.attach_loop +
                        " and exists only inside that loop");
    }
  }
  return {};
}

}  // namespace

Result<void> apply_compute_at(const ComputeAtStep& step, State& state) {
  auto producer = find_stage(state, step.stage);
  if (!producer) return producer.error();
  const std::string what = "cannot compute_at stage '" + step.stage + "'";
  if (state.dag().is_output(step.stage)) return make_error(what + ": it is an output of the DAG");
  const StageState& p = state.stage(*producer);
  if (p.location == ComputeLocation::kAttached) {
    return make_error(what + ": it is already computed at " + p.attach_stage + "." + p.attach_loop);
  }
  if (p.packed) return make_error(what + ": it is packed at load, once, at root");
  if (auto r = require_untransformed(p, what); !r) return r;
  if (auto r = require_no_attachments(state, *producer, "compute_at"); !r) return r;
  auto target = find_stage(state, step.target);
  if (!target) return target.error();
  auto position = find_loop(state, *target, step.loop);
  if (!position) return position.error();
  if (stages_reading(state, step.stage).empty()) {
    return make_error(what + ": no stage reads it");
  }
  auto region = infer_region(state, *producer, *target, *position);
  if (!region) return region.error();

  StageState next = initial_stage_state(p.op);
  next.scope = p.scope;
  next.layout = p.layout;
  next.auto_unroll_max_step = p.auto_unroll_max_step;
  next.location = ComputeLocation::kAttached;
  next.attach_stage = step.target;
  next.attach_loop = step.loop;
  next.buffer_offset = region->offset;
  next.buffer_shape = region->extent;
  for (size_t d = 0; d < p.op->axes.size(); ++d) {
    Loop& loop = next.loops[d];
    loop.extent = region->extent[d];
    loop.var = var(loop.name);
    next.axis_value[d] = region->offset[d] + loop.var;
    if (region->limit[d].defined()) next.guards.push_back(next.axis_value[d] <= region->limit[d]);
  }
  state.mutable_stage(*producer) = std::move(next);
  return check_reads_stay_inside(state, *producer, "compute_at");
}

Result<void> apply_compute_root(const ComputeRootStep& step, State& state) {
  int index = state.stage_index(step.stage);
  if (index < 0 || state.stage(index).op->is_placeholder) {
    auto r = find_stage(state, step.stage);  // for its message
    if (!r) return r.error();
  }
  const StageState& s = state.stage(index);
  if (s.location == ComputeLocation::kRoot) {
    return make_error("stage '" + step.stage + "' is already computed at root");
  }
  if (auto r = require_no_attachments(state, index, "compute_root"); !r) return r;
  StageState next = initial_stage_state(s.op);
  next.scope = s.scope;
  next.layout = s.layout;
  state.mutable_stage(index) = std::move(next);
  return check_reads_stay_inside(state, index, "compute_root");
}

Result<void> apply_cache_write(const CacheWriteStep& step, State& state) {
  auto scope = parse_scope(step.scope);
  if (!scope) return scope.error();
  auto stage = find_fresh_stage(state, step.stage, "cache_write");
  if (!stage) return stage.error();
  const StageState& s = state.stage(*stage);
  if (auto r = require_untransformed(s, "cannot cache_write"); !r) return r;

  TensorNode cache = *s.op;
  cache.name = unique_stage_name(state, step.stage + ".local");
  Tensor cached = make_tensor(cache);

  TensorNode copy;
  copy.name = s.op->name;
  copy.shape = s.op->shape;
  copy.dtype = s.op->dtype;
  copy.is_placeholder = false;
  for (const Axis& a : s.op->axes) copy.axes.push_back(fresh_axis(a.name, a.extent));
  copy.body = load(cached->name, vars_of(copy.axes), cached->dtype);
  copy.inputs = {cached.node()};

  StageState cache_state = initial_stage_state(cached);
  cache_state.scope = *scope;
  state.mutable_stage(*stage) = initial_stage_state(make_tensor(std::move(copy)));
  state.insert_stage(*stage, std::move(cache_state));
  return {};
}

Result<void> apply_cache_read(const CacheReadStep& step, State& state) {
  auto scope = parse_scope(step.scope);
  if (!scope) return scope.error();
  int source = state.stage_index(step.stage);
  if (source < 0) return find_stage(state, step.stage).error();
  const StageState& src = state.stage(source);
  if (src.location == ComputeLocation::kInlined) {
    return make_error("cannot cache_read stage '" + step.stage + "': it is inlined");
  }
  if (src.location == ComputeLocation::kAttached) {
    return make_error("cannot cache_read stage '" + step.stage + "': it is computed at " +
                      src.attach_stage + "." + src.attach_loop + "; cache_read before compute_at");
  }
  auto consumer = find_stage(state, step.consumer);
  if (!consumer) return consumer.error();
  const Tensor& read = state.stage(source).op;
  const StageState& c = state.stage(*consumer);
  bool reads = std::any_of(c.op->inputs.begin(), c.op->inputs.end(),
                           [&](const auto& in) { return in->name == step.stage; });
  if (!reads) {
    return make_error("cannot cache_read stage '" + step.stage + "' for '" + step.consumer +
                      "': '" + step.consumer + "' does not read it");
  }

  TensorNode copy;
  copy.name = unique_stage_name(state, step.stage + (*scope == StorageScope::kShared ? ".shared" : ".local"));
  copy.shape = read->shape;
  copy.dtype = read->dtype;
  copy.is_placeholder = false;
  for (size_t d = 0; d < read->shape.size(); ++d) {
    copy.axes.push_back(fresh_axis(spatial_axis_name(d, read->shape.size()), read->shape[d]));
  }
  copy.body = load(read->name, vars_of(copy.axes), read->dtype);
  copy.inputs = {read.node()};
  Tensor cached = make_tensor(std::move(copy));

  // The consumer reads the copy; its axes (and so its loops) are unchanged.
  TensorNode redirected = *c.op;
  redirected.body = rewrite_loads(c.op->body, [&](const Expr& load) {
    if (load->name != step.stage) return load;
    auto node = std::make_shared<ExprNode>(*load);
    node->name = cached->name;
    return Expr(std::move(node));
  });
  for (auto& in : redirected.inputs) {
    if (in->name == step.stage) in = cached.node();
  }
  state.mutable_stage(*consumer).op = make_tensor(std::move(redirected));
  StageState cache_state = initial_stage_state(cached);
  cache_state.scope = *scope;
  state.insert_stage(*consumer, std::move(cache_state));
  return {};
}

Result<void> apply_rfactor(const RFactorStep& step, State& state) {
  auto stage = find_fresh_stage(state, step.stage, "rfactor");
  if (!stage) return stage.error();
  auto position = find_loop(state, *stage, step.loop);
  if (!position) return position.error();
  const StageState& s = state.stage(*stage);
  const TensorNode& op = *s.op;
  if (op.reduce == ReduceKind::kNone) return make_error("cannot rfactor stage '" + step.stage + "': it is not a reduction");
  const Loop& factor = s.loops[*position];
  if (factor.kind != IterKind::kReduce) {
    return make_error("cannot rfactor stage '" + step.stage + "' at '" + step.loop +
                      "': it is not a reduction loop");
  }
  for (size_t a = 0; a < op.axes.size(); ++a) {
    bool kept = std::any_of(s.loops.begin(), s.loops.end(), [&](const Loop& l) {
      return l.var.same_as(s.axis_value[a]) && l.annotation == Annotation::kNone;
    });
    if (!kept) {
      return make_error("cannot rfactor stage '" + step.stage + "': its spatial loop '" +
                        op.axes[a].name + "' was already transformed");
    }
  }
  for (const Loop& l : s.loops) {
    if (l.annotation != Annotation::kNone) {
      return make_error("cannot rfactor stage '" + step.stage + "': loop '" + l.name +
                        "' is annotated; rfactor before annotating");
    }
  }

  // The partial stage: spatial axes (rf, original axes...), reduction over the other loops.
  TensorNode partial;
  partial.name = unique_stage_name(state, step.stage + ".rf");
  partial.dtype = op.dtype;
  partial.is_placeholder = false;
  partial.inputs = op.inputs;
  partial.axes.push_back(fresh_axis("rf", factor.extent));
  for (const Axis& a : op.axes) partial.axes.push_back(fresh_axis(a.name, a.extent));
  for (const Axis& a : partial.axes) partial.shape.push_back(a.extent);
  VarMap loop_map{{factor.var.get(), partial.axes[0].var}};
  for (const Loop& l : s.loops) {
    if (l.kind != IterKind::kReduce || l.var.same_as(factor.var)) continue;
    partial.reduce_axes.push_back(fresh_axis(l.name, l.extent));
    loop_map.emplace_back(l.var.get(), partial.reduce_axes.back().var);
  }
  VarMap axis_map;
  for (size_t a = 0; a < op.axes.size(); ++a) {
    axis_map.emplace_back(op.axes[a].var.get(), partial.axes[a + 1].var);
  }
  for (size_t r = 0; r < op.reduce_axes.size(); ++r) {
    axis_map.emplace_back(op.reduce_axes[r].var.get(),
                          substitute(s.axis_value[op.axes.size() + r], loop_map));
  }
  Expr identity = op.reduce == ReduceKind::kSum
                      ? float_imm(0.0)
                      : float_imm(-std::numeric_limits<double>::infinity());
  Expr term = substitute(op.body, axis_map);
  for (const Expr& g : s.guards) term = select(substitute(g, loop_map), term, identity);
  partial.body = term;
  if (partial.reduce_axes.empty()) {
    partial.reduce = ReduceKind::kNone;
  } else {
    partial.reduce = op.reduce;
    partial.init = cast(op.dtype, identity);
  }
  Tensor partial_tensor = make_tensor(std::move(partial));

  // The stage itself now reduces the partial results over rf.
  TensorNode combine;
  combine.name = op.name;
  combine.shape = op.shape;
  combine.dtype = op.dtype;
  combine.is_placeholder = false;
  for (const Axis& a : op.axes) combine.axes.push_back(fresh_axis(a.name, a.extent));
  combine.reduce_axes.push_back(fresh_axis("rf", factor.extent));
  std::vector<Expr> index{combine.reduce_axes[0].var};
  for (const Axis& a : combine.axes) index.push_back(a.var);
  combine.body = load(partial_tensor->name, index, op.dtype);
  combine.reduce = op.reduce;
  combine.init = op.init;
  combine.inputs = {partial_tensor.node()};

  state.mutable_stage(*stage) = initial_stage_state(make_tensor(std::move(combine)));
  state.insert_stage(*stage, initial_stage_state(partial_tensor));
  return {};
}

}  // namespace tessera::schedule::detail

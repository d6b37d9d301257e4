// Steps that decide where a stage's values live rather than how they are computed: layout
// (the order and blocking of its buffer) and pack (computed once at load from constants).
// See steps.h for their contracts.
#include "schedule/step_helpers.h"

namespace tessera::schedule::detail {
namespace {

// The first non-constant input `op` reads, seeing through inlined stages; empty if none.
std::string first_variable_input(const State& state, const TensorNode& op) {
  for (const auto& in : op.inputs) {
    int p = state.stage_index(in->name);
    if (p < 0) return in->name;
    const StageState& producer = state.stage(p);
    if (producer.op->is_placeholder) {
      if (!producer.op->is_constant) return in->name;
    } else if (producer.location == ComputeLocation::kInlined) {
      std::string inner = first_variable_input(state, *producer.op);
      if (!inner.empty()) return inner;
    } else {
      return in->name;
    }
  }
  return "";
}

}  // namespace

Result<void> apply_layout(const LayoutStep& step, State& state) {
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  const std::string what = "cannot change the layout of stage '" + step.stage + "'";
  if (state.dag().is_output(step.stage)) {
    return make_error(what + ": it is an output of the DAG, whose layout the caller fixes");
  }
  StageState& s = state.mutable_stage(*stage);
  auto layout = parse_layout(step.dims, s.op->axes.size());
  if (!layout) return make_error(what + ": " + layout.error().message);
  s.layout = std::move(*layout);
  return {};
}

Result<void> apply_pack(const PackStep& step, State& state) {
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  const std::string what = "cannot pack stage '" + step.stage + "'";
  const StageState& s = state.stage(*stage);
  if (state.dag().is_output(step.stage)) return make_error(what + ": it is an output of the DAG");
  if (s.location != ComputeLocation::kRoot) {
    return make_error(what + ": it is computed at " + s.attach_stage + "." + s.attach_loop +
                      "; only a stage at root can be computed once at load");
  }
  if (s.packed) return make_error(what + ": it is already packed");
  std::string variable = first_variable_input(state, *s.op);
  if (!variable.empty()) {
    return make_error(what + ": it reads '" + variable +
                      "', which is not a constant input, so it changes from call to call");
  }
  state.mutable_stage(*stage).packed = true;
  return {};
}

Result<void> check_packed_reads(const State& state, const std::string& step) {
  for (const StageState& s : state.stages()) {
    if (!s.packed) continue;
    std::string variable = first_variable_input(state, *s.op);
    if (!variable.empty()) {
      return make_error("cannot " + step + ": stage '" + s.op->name +
                        "' is packed at load and would then read '" + variable +
                        "', which is computed in every call");
    }
  }
  return {};
}

}  // namespace tessera::schedule::detail

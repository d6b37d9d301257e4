// The row sketch (see sketch_rows.h): recognizes row-wise DAGs and emits their steps.
#include "schedule/sketch_rows.h"

#include <algorithm>

namespace tessera::schedule {
namespace {

const std::vector<int64_t> kRowUnrollSteps = {0, 16, 64, 512};

// One non-output stage of a row DAG and what the sketch does with it.
struct RowStage {
  enum Role { kInline, kRowBuffer, kReduction } role;
  std::string name;
  std::vector<std::string> axes;  // spatial axis names
  std::string reduce_axis;        // kReduction: its one reduction axis
};

std::string joined(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

// Vector widths up to the row length (powers of two from 4 to kMaxVectorLanes).
std::vector<int64_t> lane_choices(int64_t row) {
  std::vector<int64_t> lanes;
  for (int64_t w = 4; w <= std::min<int64_t>(row, kMaxVectorLanes); w *= 2) lanes.push_back(w);
  return lanes;
}

// The stages of `dag` with their roles, or nullopt when it is not a row DAG.
std::optional<std::vector<RowStage>> classify(const ComputeDAG& dag) {
  if (dag.outputs().size() != 1) return std::nullopt;
  const TensorNode& out = *dag.outputs()[0];
  if (out.reduce != ReduceKind::kNone || out.shape.size() < 2) return std::nullopt;
  const std::vector<int64_t> rows(out.shape.begin(), out.shape.end() - 1);
  const int64_t row_length = out.shape.back();
  std::vector<RowStage> stages;
  bool worth_it = false;  // a reduction, or a stage read twice
  for (const Tensor& t : dag.stages()) {
    if (t->is_placeholder || t->name == out.name) continue;
    std::vector<std::string> axes;
    for (const Axis& a : t->axes) axes.push_back(a.name);
    if (t->reduce == ReduceKind::kNone) {
      if (t->shape != out.shape) return std::nullopt;
      bool shared = dag.consumers(t->name).size() > 1;
      worth_it |= shared;
      stages.push_back({shared ? RowStage::kRowBuffer : RowStage::kInline, t->name, axes, ""});
      continue;
    }
    if (t->shape != rows || t->reduce_axes.size() != 1 || t->reduce_axes[0].extent != row_length) {
      return std::nullopt;
    }
    worth_it = true;
    stages.push_back({RowStage::kReduction, t->name, axes, t->reduce_axes[0].name});
  }
  if (!worth_it || lane_choices(row_length).empty()) return std::nullopt;
  return stages;
}

}  // namespace

std::optional<Sketch> row_sketch(const ComputeDAG& dag) {
  auto classified = classify(dag);
  if (!classified) return std::nullopt;
  const std::vector<RowStage> stages = *classified;
  const TensorNode& out = *dag.outputs()[0];
  const std::string name = out.name;
  std::vector<std::string> row_axes;
  for (size_t a = 0; a + 1 < out.axes.size(); ++a) row_axes.push_back(out.axes[a].name);
  const std::string column = out.axes.back().name;
  int64_t row_count = 1;
  for (size_t a = 0; a + 1 < out.shape.size(); ++a) row_count *= out.shape[a];

  Sketch sketch;
  sketch.id = name + ":rows";
  sketch.description = "rows of " + name + " in parallel, each row's intermediates computed "
                       "once into row buffers, reductions as vector partial sums reduced at "
                       "the end, elementwise stages vectorized along the row";
  const std::vector<int64_t> lanes = lane_choices(out.shape.back());
  sketch.knobs = KnobSpace({tile_knob(name + ".rows", row_count, 2, 64),
                            choice_knob(name + ".vector", KnobKind::kChoice, lanes),
                            choice_knob(name + ".accumulate", KnobKind::kChoice, lanes),
                            choice_knob(name + ".parallel", KnobKind::kParallel, {0, 1}),
                            choice_knob(name + ".unroll", KnobKind::kUnroll, kRowUnrollSteps)});
  enum { kRows, kVector, kAccumulate, kParallel, kUnroll };
  sketch.materialize = [=](const KnobSpace& ks, const KnobValues& v) {
    const int64_t width = ks.choice(v, kVector), accumulate = ks.choice(v, kAccumulate);
    const int64_t row_tile = ks.value(v, kRows)[1], unroll = ks.choice(v, kUnroll);
    std::vector<Step> steps;
    // Stages read once are inlined into their reader; reductions split into partial lanes.
    std::vector<std::string> attached;  // topological order
    for (const RowStage& s : stages) {
      if (s.role == RowStage::kInline) steps.push_back(ComputeInlineStep{s.name});
      if (s.role == RowStage::kRowBuffer) attached.push_back(s.name);
      if (s.role != RowStage::kReduction) continue;
      steps.push_back(SplitStep{s.name, s.reduce_axis, {accumulate}});
      steps.push_back(RFactorStep{s.name, s.reduce_axis + ".1"});
      attached.push_back(s.name + ".rf");
      attached.push_back(s.name);
    }
    // The output: rows (fused) split by the row tile, the row split by the vector width.
    std::string row = joined(row_axes, "@");
    if (row_axes.size() > 1) steps.push_back(FuseStep{name, row_axes});
    steps.push_back(SplitStep{name, row, {row_tile}});
    steps.push_back(SplitStep{name, column, {width}});
    // Consumers attach before their producers.
    for (auto it = attached.rbegin(); it != attached.rend(); ++it) {
      steps.push_back(ComputeAtStep{*it, name, row + ".1"});
    }
    for (const RowStage& s : stages) {
      if (s.role == RowStage::kRowBuffer) {
        steps.push_back(SplitStep{s.name, s.axes.back(), {width}});
        steps.push_back(AnnotateStep{s.name, s.axes.back() + ".1", "vectorize"});
      } else if (s.role == RowStage::kReduction) {
        std::vector<std::string> order = s.axes;  // the row (extent 1), the chunks, the lanes
        order.push_back(s.reduce_axis + ".0");
        order.push_back("rf");
        steps.push_back(ReorderStep{s.name + ".rf", order});
        steps.push_back(AnnotateStep{s.name + ".rf", "rf", "vectorize"});
      }
      if (s.role != RowStage::kInline && unroll > 0) {
        steps.push_back(AutoUnrollStep{s.role == RowStage::kReduction ? s.name + ".rf" : s.name, unroll});
      }
    }
    steps.push_back(AnnotateStep{name, column + ".1", "vectorize"});
    if (ks.choice(v, kParallel)) steps.push_back(AnnotateStep{name, row + ".0", "parallel"});
    if (unroll > 0) steps.push_back(AutoUnrollStep{name, unroll});
    return steps;
  };
  return sketch;
}

}  // namespace tessera::schedule

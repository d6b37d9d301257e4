// Schedule state construction and description (see state.h).
#include "schedule/state.h"

#include <sstream>

namespace tessera::schedule {

const char* to_string(Annotation a) {
  switch (a) {
    case Annotation::kNone: return "none";
    case Annotation::kParallel: return "parallel";
    case Annotation::kVectorize: return "vectorize";
    case Annotation::kUnroll: return "unroll";
    case Annotation::kBlockX: return "blockIdx.x";
    case Annotation::kBlockY: return "blockIdx.y";
    case Annotation::kBlockZ: return "blockIdx.z";
    case Annotation::kThreadX: return "threadIdx.x";
    case Annotation::kThreadY: return "threadIdx.y";
    case Annotation::kThreadZ: return "threadIdx.z";
  }
  return "?";
}

StageState initial_stage_state(const Tensor& t) {
  StageState s;
  s.op = t;
  if (t->is_placeholder) return s;
  for (const Axis& a : t->axes) {
    s.loops.push_back(Loop{a.name, a.extent, IterKind::kSpatial, Annotation::kNone, a.var});
    s.axis_value.push_back(a.var);
    s.buffer_offset.push_back(Expr(int64_t{0}));
  }
  for (const Axis& a : t->reduce_axes) {
    s.loops.push_back(Loop{a.name, a.extent, IterKind::kReduce, Annotation::kNone, a.var});
    s.axis_value.push_back(a.var);
  }
  s.buffer_shape = t->shape;
  return s;
}

State::State(ComputeDAG dag) : dag_(std::move(dag)) {
  for (const Tensor& t : dag_.stages()) stages_.push_back(initial_stage_state(t));
}

int State::stage_index(const std::string& name) const {
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (stages_[i].op->name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> State::consumers(const std::string& name) const {
  std::vector<int> result;
  for (size_t i = 0; i < stages_.size(); ++i) {
    for (const auto& in : stages_[i].op->inputs) {
      if (in->name == name) {
        result.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return result;
}

std::vector<int> State::attached_to(const std::string& name) const {
  std::vector<int> result;
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (stages_[i].location == ComputeLocation::kAttached && stages_[i].attach_stage == name) {
      result.push_back(static_cast<int>(i));
    }
  }
  return result;
}

void State::insert_stage(int position, StageState stage) {
  stages_.insert(stages_.begin() + position, std::move(stage));
}

Result<void> State::apply(const Step& step) {
  State next = *this;
  if (auto r = apply_step(step, next); !r) return r;
  next.history_.push_back(step);
  *this = std::move(next);
  return {};
}

Result<void> State::apply_all(const std::vector<Step>& steps) {
  State next = *this;  // one copy for all the steps: a failing step discards it whole
  for (size_t i = 0; i < steps.size(); ++i) {
    if (auto r = apply_step(steps[i], next); !r) {
      return make_error("step " + std::to_string(i) + " (" + describe_step(steps[i]) +
                        "): " + r.error().message);
    }
    next.history_.push_back(steps[i]);
  }
  *this = std::move(next);
  return {};
}

std::string State::describe() const {
  std::ostringstream os;
  for (const StageState& s : stages_) {
    if (s.op->is_placeholder) continue;
    os << s.op->name << ":";
    if (s.location == ComputeLocation::kInlined) {
      os << " inlined\n";
      continue;
    }
    if (s.location == ComputeLocation::kAttached) {
      os << " at " << s.attach_stage << "." << s.attach_loop << ",";
    }
    for (const Loop& l : s.loops) {
      os << " " << l.name << "(" << l.extent;
      if (l.kind == IterKind::kReduce) os << ", reduce";
      if (l.annotation != Annotation::kNone) os << ", " << to_string(l.annotation);
      os << ")";
    }
    if (s.auto_unroll_max_step) os << " auto_unroll<=" << s.auto_unroll_max_step;
    if (!s.layout.empty()) os << " layout " << to_string(s.layout);
    if (s.packed) os << " packed at load";
    os << "\n";
  }
  return os.str();
}

}  // namespace tessera::schedule

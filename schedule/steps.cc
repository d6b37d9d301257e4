// Checks and effects of the schedule steps (see steps.h).
#include "schedule/steps.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>

#include "schedule/step_helpers.h"

namespace tessera::schedule {
namespace detail {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

namespace {
std::vector<std::string> loop_names(const StageState& s) {
  std::vector<std::string> names;
  for (const Loop& l : s.loops) names.push_back(l.name);
  return names;
}

}  // namespace

Result<int> find_stage(const State& state, const std::string& name) {
  int index = state.stage_index(name);
  if (index < 0) {
    std::vector<std::string> names;
    for (const StageState& s : state.stages()) {
      if (!s.op->is_placeholder) names.push_back(s.op->name);
    }
    return make_error("no stage named '" + name + "' (stages: " + join(names) + ")");
  }
  const StageState& s = state.stage(index);
  if (s.op->is_placeholder) return make_error("stage '" + name + "' is an input; it has no loops");
  if (s.location == ComputeLocation::kInlined) {
    return make_error("stage '" + name + "' is inlined into its consumers; it has no loops");
  }
  return index;
}

Result<int> find_loop(const State& state, int stage, const std::string& loop) {
  const StageState& s = state.stage(stage);
  for (size_t i = 0; i < s.loops.size(); ++i) {
    if (s.loops[i].name == loop) return static_cast<int>(i);
  }
  for (const StageState& other : state.stages()) {
    if (&other == &s) continue;
    for (const Loop& l : other.loops) {
      if (l.name == loop) {
        return make_error("loop '" + loop + "' belongs to stage '" + other.op->name +
                          "', not '" + s.op->name + "'");
      }
    }
  }
  return make_error("stage '" + s.op->name + "' has no loop '" + loop + "' (loops: " +
                    join(loop_names(s)) + ")");
}

std::string unique_loop_name(const StageState& s, const std::string& wanted) {
  auto taken = [&](const std::string& n) {
    return std::any_of(s.loops.begin(), s.loops.end(), [&](const Loop& l) { return l.name == n; });
  };
  std::string name = wanted;
  for (int suffix = 1; taken(name); ++suffix) name = wanted + "_" + std::to_string(suffix);
  return name;
}

// Rewrites every axis value and guard after `old_var` is replaced by `value`.
void rewrite_loop_var(StageState& s, const ExprNode* old_var, const Expr& value) {
  VarMap map{{old_var, value}};
  for (Expr& v : s.axis_value) v = substitute(v, map);
  for (Expr& g : s.guards) g = substitute(g, map);
}

Result<void> require_untransformed(const StageState& s, const std::string& why) {
  bool untouched = s.loops.size() == s.op->axes.size() + s.op->reduce_axes.size();
  for (size_t i = 0; untouched && i < s.loops.size(); ++i) {
    untouched = s.loops[i].var.same_as(s.axis_value[i]) && s.loops[i].annotation == Annotation::kNone;
  }
  if (!untouched) return make_error(why + ": the loops of stage '" + s.op->name + "' were already transformed");
  return {};
}

Result<void> require_no_attachments(const State& state, int stage, const std::string& step) {
  const std::string& name = state.stage(stage).op->name;
  for (int a : state.attached_to(name)) {
    const StageState& at = state.stage(a);
    return make_error("cannot " + step + " stage '" + name + "': stage '" + at.op->name +
                      "' is computed at its loop '" + at.attach_loop + "'; " + step +
                      " before compute_at");
  }
  return {};
}

}  // namespace detail

namespace {

using namespace detail;

Result<void> apply(const SplitStep& step, State& state) {
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  auto index = find_loop(state, *stage, step.loop);
  if (!index) return index.error();
  if (auto r = require_no_attachments(state, *stage, "split"); !r) return r;
  StageState& s = state.mutable_stage(*stage);
  const Loop loop = s.loops[*index];
  if (step.factors.empty()) return make_error("split of '" + loop.name + "' needs at least one factor");
  if (loop.annotation != Annotation::kNone) {
    return make_error("loop '" + loop.name + "' is already marked " + to_string(loop.annotation) +
                      "; split it before annotating");
  }
  int64_t product = 1;
  for (int64_t f : step.factors) {
    if (f < 1) return make_error("split factor " + std::to_string(f) + " of loop '" + loop.name + "' is not positive");
    if (f > loop.extent / product) {  // product * f > extent, without overflow
      return make_error("split factors of loop '" + loop.name + "' multiply past its extent " +
                        std::to_string(loop.extent));
    }
    product *= f;
  }
  int64_t outer = (loop.extent + product - 1) / product;
  std::vector<Loop> parts;
  std::vector<int64_t> extents{outer};
  extents.insert(extents.end(), step.factors.begin(), step.factors.end());
  Expr value;
  for (size_t i = 0; i < extents.size(); ++i) {
    Loop part = loop;
    part.name = unique_loop_name(s, loop.name + "." + std::to_string(i));
    part.extent = extents[i];
    part.var = var(part.name);
    value = i == 0 ? part.var : value * Expr(extents[i]) + part.var;
    parts.push_back(std::move(part));
  }
  rewrite_loop_var(s, loop.var.get(), value);
  if (loop.extent % product != 0) s.guards.push_back(value < Expr(loop.extent));
  s.loops.erase(s.loops.begin() + *index);
  s.loops.insert(s.loops.begin() + *index, parts.begin(), parts.end());
  return {};
}

Result<void> apply(const ReorderStep& step, State& state) {
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  if (auto r = require_no_attachments(state, *stage, "reorder"); !r) return r;
  const StageState& s = state.stage(*stage);
  std::vector<Loop> ordered;
  std::set<std::string> seen;
  for (const std::string& name : step.order) {
    auto index = find_loop(state, *stage, name);
    if (!index) return index.error();
    if (!seen.insert(name).second) return make_error("reorder names loop '" + name + "' twice");
    ordered.push_back(s.loops[*index]);
  }
  if (ordered.size() != s.loops.size()) {
    std::vector<std::string> missing;
    for (const Loop& l : s.loops) {
      if (!seen.count(l.name)) missing.push_back(l.name);
    }
    return make_error("reorder of stage '" + s.op->name + "' leaves out loops: " + join(missing));
  }
  state.mutable_stage(*stage).loops = std::move(ordered);
  return {};
}

Result<void> apply(const FuseStep& step, State& state) {
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  if (step.loops.size() < 2) return make_error("fuse needs at least two loops");
  if (auto r = require_no_attachments(state, *stage, "fuse"); !r) return r;
  std::vector<int> indices;
  for (const std::string& name : step.loops) {
    auto index = find_loop(state, *stage, name);
    if (!index) return index.error();
    indices.push_back(*index);
  }
  for (size_t i = 1; i < indices.size(); ++i) {
    if (indices[i] != indices[i - 1] + 1) {
      return make_error("fuse needs adjacent loops, outer to inner; '" + step.loops[i - 1] +
                        "' is not directly outside '" + step.loops[i] + "'");
    }
  }
  StageState& s = state.mutable_stage(*stage);
  const std::vector<Loop> fused(s.loops.begin() + indices.front(),
                                s.loops.begin() + indices.back() + 1);
  std::string name;
  int64_t extent = 1;
  for (const Loop& l : fused) {
    if (l.kind != fused.front().kind) {
      return make_error("cannot fuse spatial and reduction loops ('" + fused.front().name +
                        "' with '" + l.name + "')");
    }
    if (l.annotation != Annotation::kNone) {
      return make_error("loop '" + l.name + "' is already marked " + to_string(l.annotation) +
                        "; fuse before annotating");
    }
    name += (name.empty() ? "" : "@") + l.name;
    extent *= l.extent;
  }
  Loop result{unique_loop_name(s, name), extent, fused.front().kind, Annotation::kNone, Expr()};
  result.var = var(result.name);
  int64_t inner = 1;  // product of the extents inside the loop being recovered
  for (size_t i = fused.size(); i-- > 0;) {
    Expr value = inner == 1 ? result.var : result.var / Expr(inner);
    if (i != 0) value = value % Expr(fused[i].extent);
    rewrite_loop_var(s, fused[i].var.get(), value);
    inner *= fused[i].extent;
  }
  s.loops.erase(s.loops.begin() + indices.front(), s.loops.begin() + indices.back() + 1);
  s.loops.insert(s.loops.begin() + indices.front(), result);
  return {};
}

Result<Annotation> parse_annotation(const std::string& text) {
  if (text == "parallel") return Annotation::kParallel;
  if (text == "vectorize") return Annotation::kVectorize;
  if (text == "unroll") return Annotation::kUnroll;
  return make_error("unknown annotation '" + text + "' (expected parallel, vectorize or unroll)");
}

Result<void> apply(const AnnotateStep& step, State& state) {
  auto annotation = parse_annotation(step.annotation);
  if (!annotation) return annotation.error();
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  auto index = find_loop(state, *stage, step.loop);
  if (!index) return index.error();
  Loop& loop = state.mutable_stage(*stage).loops[*index];
  const std::string what = "loop '" + loop.name + "' of stage '" + step.stage + "'";
  if (loop.annotation != Annotation::kNone) {
    return make_error(what + " is already marked " + to_string(loop.annotation));
  }
  switch (*annotation) {
    case Annotation::kParallel:
      if (loop.kind == IterKind::kReduce) {
        return make_error("cannot parallelize reduction " + what +
                          ": its iterations accumulate into the same output");
      }
      break;
    case Annotation::kVectorize:
      if (loop.kind == IterKind::kReduce) {
        return make_error("cannot vectorize reduction " + what +
                          ": its lanes would accumulate into the same output");
      }
      if (loop.extent > kMaxVectorLanes) {
        return make_error("cannot vectorize " + what + " of extent " + std::to_string(loop.extent) +
                          " (at most " + std::to_string(kMaxVectorLanes) + " lanes; split it first)");
      }
      break;
    case Annotation::kUnroll:
      if (loop.extent > kMaxUnrollExtent) {
        return make_error("cannot unroll " + what + " of extent " + std::to_string(loop.extent) +
                          " (at most " + std::to_string(kMaxUnrollExtent) + "; split it first)");
      }
      break;
    default: break;
  }
  loop.annotation = *annotation;
  return {};
}

Result<Annotation> parse_binding(const std::string& text) {
  static const char* names[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z",
                                "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  for (int i = 0; i < 6; ++i) {
    if (text == names[i]) return static_cast<Annotation>(static_cast<int>(Annotation::kBlockX) + i);
  }
  return make_error("unknown GPU binding '" + text +
                    "' (expected blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y or threadIdx.z)");
}

Result<void> apply(const BindStep& step, State& state) {
  auto binding = parse_binding(step.thread);
  if (!binding) return binding.error();
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  auto index = find_loop(state, *stage, step.loop);
  if (!index) return index.error();
  StageState& s = state.mutable_stage(*stage);
  Loop& loop = s.loops[*index];
  const std::string what = "cannot bind loop '" + loop.name + "' of stage '" + step.stage + "' to " + step.thread;
  if (loop.annotation != Annotation::kNone) {
    return make_error(what + ": it is already marked " + to_string(loop.annotation));
  }
  if (loop.kind == IterKind::kReduce) {
    return make_error(what + ": it is a reduction loop, and its " +
                      (is_gpu_thread(*binding) ? "threads" : "blocks") +
                      " would accumulate into the same output without a cross-thread reduction");
  }
  int64_t threads = is_gpu_thread(*binding) ? loop.extent : 1;
  for (const Loop& l : s.loops) {
    if (l.annotation == *binding) {
      return make_error(what + ": loop '" + l.name + "' is already bound to it");
    }
    if (is_gpu_thread(l.annotation)) threads *= l.extent;
  }
  if (threads > kMaxGpuThreads) {
    return make_error(what + ": the stage would run " + std::to_string(threads) +
                      " threads per block, more than " + std::to_string(kMaxGpuThreads) + " (split it first)");
  }
  const int64_t limit = *binding == Annotation::kThreadZ ? kMaxGpuThreadsZ
                        : *binding == Annotation::kBlockX ? kMaxGpuGridX
                        : is_gpu_block(*binding)          ? kMaxGpuGridYZ
                                                          : kMaxGpuThreads;
  if (loop.extent > limit) {
    return make_error(what + ": its extent " + std::to_string(loop.extent) + " is more than " +
                      step.thread + " allows (" + std::to_string(limit) + ")");
  }
  loop.annotation = *binding;
  return {};
}

Result<void> apply(const ComputeInlineStep& step, State& state) {
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  StageState& s = state.mutable_stage(*stage);
  if (s.op->reduce != ReduceKind::kNone) {
    return make_error("cannot inline stage '" + step.stage + "': it is a reduction");
  }
  if (s.packed) return make_error("cannot inline stage '" + step.stage + "': it is packed at load");
  if (auto r = require_no_attachments(state, *stage, "inline"); !r) return r;
  if (s.location == ComputeLocation::kAttached) {
    return make_error("cannot inline stage '" + step.stage + "': it is computed at " +
                      s.attach_stage + "." + s.attach_loop + " (compute_root it first)");
  }
  if (state.dag().is_output(step.stage)) {
    return make_error("cannot inline stage '" + step.stage + "': it is an output of the DAG");
  }
  for (const Loop& l : s.loops) {
    if (l.annotation != Annotation::kNone || s.loops.size() != s.op->axes.size()) {
      return make_error("cannot inline stage '" + step.stage +
                        "': its loops were already transformed");
    }
  }
  s.location = ComputeLocation::kInlined;
  return {};
}

Result<void> apply(const AutoUnrollStep& step, State& state) {
  auto stage = find_stage(state, step.stage);
  if (!stage) return stage.error();
  if (step.max_step < 0 || step.max_step > 4096) {
    return make_error("auto_unroll_max_step " + std::to_string(step.max_step) +
                      " is out of range [0, 4096]");
  }
  state.mutable_stage(*stage).auto_unroll_max_step = step.max_step;
  return {};
}

Result<void> apply(const ComputeAtStep& step, State& state) { return apply_compute_at(step, state); }
Result<void> apply(const ComputeRootStep& step, State& state) { return apply_compute_root(step, state); }
Result<void> apply(const CacheWriteStep& step, State& state) { return apply_cache_write(step, state); }
Result<void> apply(const CacheReadStep& step, State& state) { return apply_cache_read(step, state); }
Result<void> apply(const RFactorStep& step, State& state) { return apply_rfactor(step, state); }
Result<void> apply(const LayoutStep& step, State& state) { return apply_layout(step, state); }
Result<void> apply(const PackStep& step, State& state) { return apply_pack(step, state); }

}  // namespace

Result<void> apply_step(const Step& step, State& state) {
  auto r = std::visit([&state](const auto& s) { return apply(s, state); }, step);
  if (!r) return r;
  // No step may leave a stage packed at load reading what changes from call to call.
  return check_packed_reads(state, describe_step(step));
}

std::string describe_layouts(const std::vector<Step>& steps) {
  std::string text;
  for (const Step& step : steps) {
    const auto* layout = std::get_if<LayoutStep>(&step);
    if (!layout) continue;
    std::string dims;
    for (const std::string& d : layout->dims) dims += (dims.empty() ? "" : ", ") + d;
    const bool packed = std::any_of(steps.begin(), steps.end(), [&](const Step& s) {
      const auto* pack = std::get_if<PackStep>(&s);
      return pack && pack->stage == layout->stage;
    });
    text += (text.empty() ? "" : "; ") + layout->stage + " [" + dims + "]" + (packed ? " packed at load" : "");
  }
  return text.empty() ? "as given" : text;
}

std::string describe_step(const Step& step) {
  std::ostringstream os;
  std::visit(
      [&os](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, SplitStep>) {
          os << "split " << s.stage << "." << s.loop << " by [";
          for (size_t i = 0; i < s.factors.size(); ++i) os << (i ? ", " : "") << s.factors[i];
          os << "]";
        } else if constexpr (std::is_same_v<T, ReorderStep>) {
          os << "reorder " << s.stage << " to (" << join(s.order) << ")";
        } else if constexpr (std::is_same_v<T, FuseStep>) {
          os << "fuse " << s.stage << " (" << join(s.loops) << ")";
        } else if constexpr (std::is_same_v<T, AnnotateStep>) {
          os << s.annotation << " " << s.stage << "." << s.loop;
        } else if constexpr (std::is_same_v<T, ComputeInlineStep>) {
          os << "compute_inline " << s.stage;
        } else if constexpr (std::is_same_v<T, AutoUnrollStep>) {
          os << "auto_unroll " << s.stage << " max_step=" << s.max_step;
        } else if constexpr (std::is_same_v<T, ComputeAtStep>) {
          os << "compute_at " << s.stage << " at " << s.target << "." << s.loop;
        } else if constexpr (std::is_same_v<T, ComputeRootStep>) {
          os << "compute_root " << s.stage;
        } else if constexpr (std::is_same_v<T, CacheWriteStep>) {
          os << "cache_write " << s.stage << " (" << s.scope << ")";
        } else if constexpr (std::is_same_v<T, CacheReadStep>) {
          os << "cache_read " << s.stage << " for " << s.consumer << " (" << s.scope << ")";
        } else if constexpr (std::is_same_v<T, RFactorStep>) {
          os << "rfactor " << s.stage << " at " << s.loop;
        } else if constexpr (std::is_same_v<T, LayoutStep>) {
          os << "layout " << s.stage << " as [" << join(s.dims) << "]";
        } else if constexpr (std::is_same_v<T, PackStep>) {
          os << "pack " << s.stage << " at load";
        } else {
          os << "bind " << s.stage << "." << s.loop << " to " << s.thread;
        }
      },
      step);
  return os.str();
}

}  // namespace tessera::schedule

// Per-store program features pooled into a fixed vector (see features.h).
#include "schedule/features.h"

#include <algorithm>
#include <cmath>

#include "schedule/simplify.h"

namespace tessera::schedule {
namespace {

// One store's raw features, before pooling.
enum Feature : int {
  kFloatAdd, kFloatMul, kFloatDiv, kFloatMinMax, kFloatMath, kIntOps,
  kTripCount, kVectorLanes, kUnrolled, kParallel, kInnermostExtent, kLoopDepth,
  kLoads, kContiguous, kBroadcast, kStrided, kGathered,
  kBytesTouched, kReuse, kLocalBytes, kIsReduction,
  kPerStoreCount
};

const char* kPerStoreNames[kPerStoreCount] = {
    "float_add", "float_mul", "float_div", "float_minmax", "float_math", "int_ops",
    "trip_count", "vector_lanes", "unrolled", "parallel", "innermost_extent", "loop_depth",
    "loads", "contiguous", "broadcast", "strided", "gathered",
    "bytes_touched", "reuse", "local_bytes", "is_reduction"};

struct LoopContext {
  const StmtNode* loop;
};

class Extractor {
 public:
  std::vector<float> run(const LoweredFunc& func) {
    pooled_.assign(2 * kPerStoreCount + 1, 0.0f);
    walk(func.body);
    pooled_[2 * kPerStoreCount] = static_cast<float>(stores_);
    for (float& v : pooled_) v = std::log1p(std::max(0.0f, v));
    return pooled_;
  }

 private:
  void count_ops(const Expr& e, double* f) {
    switch (e->kind) {
      case ExprKind::kAdd:
      case ExprKind::kSub:
        (is_float(e->dtype) ? f[kFloatAdd] : f[kIntOps]) += 1;
        break;
      case ExprKind::kMul: (is_float(e->dtype) ? f[kFloatMul] : f[kIntOps]) += 1; break;
      case ExprKind::kDiv:
      case ExprKind::kMod: (is_float(e->dtype) ? f[kFloatDiv] : f[kIntOps]) += 1; break;
      case ExprKind::kMin:
      case ExprKind::kMax: (is_float(e->dtype) ? f[kFloatMinMax] : f[kIntOps]) += 1; break;
      case ExprKind::kCall: f[kFloatMath] += 1; break;
      case ExprKind::kLoad:
        f[kLoads] += 1;
        classify_access(e->operands[0], f);
        return;  // index arithmetic counts through classify_access
      default: break;
    }
    for (const Expr& op : e->operands) count_ops(op, f);
  }

  // Stride along the innermost loop, and the bytes one access pattern touches over the nest.
  void classify_access(const Expr& index, double* f) {
    if (!loops_.empty()) {
      const ExprNode* inner = loops_.back().loop->loop_var.get();
      int64_t stride;
      if (!linear_coefficient(index, inner, &stride)) f[kGathered] += 1;
      else if (stride == 0) f[kBroadcast] += 1;
      else if (stride == 1) f[kContiguous] += 1;
      else f[kStrided] += 1;
    }
    double touched = 4;
    for (const LoopContext& l : loops_) {
      if (uses_var(index, l.loop->loop_var.get())) touched *= static_cast<double>(l.loop->extent);
    }
    f[kBytesTouched] += touched;
  }

  void store(const StmtNode& s) {
    double f[kPerStoreCount] = {};
    count_ops(s.value, f);
    classify_access(s.index, f);
    double trips = 1;
    for (const LoopContext& l : loops_) {
      trips *= static_cast<double>(l.loop->extent);
      switch (l.loop->for_kind) {
        case ForKind::kVectorized: f[kVectorLanes] = static_cast<double>(l.loop->extent); break;
        case ForKind::kUnrolled: f[kUnrolled] = std::max(1.0, f[kUnrolled]) * static_cast<double>(l.loop->extent); break;
        case ForKind::kParallel: f[kParallel] = std::max(1.0, f[kParallel]) * static_cast<double>(l.loop->extent); break;
        default: break;
      }
    }
    f[kTripCount] = trips;
    f[kInnermostExtent] = loops_.empty() ? 1 : static_cast<double>(loops_.back().loop->extent);
    f[kLoopDepth] = static_cast<double>(loops_.size());
    f[kReuse] = f[kBytesTouched] > 0 ? trips * (f[kLoads] + 1) * 4 / f[kBytesTouched] : 0;
    f[kLocalBytes] = local_bytes_;
    f[kIsReduction] = s.value->kind == ExprKind::kAdd && contains_load_of(s.value, s.buffer) ? 1 : 0;
    // Pool: arithmetic and accesses scale with the trip count (sum); shape features take the max.
    for (int k = 0; k < kPerStoreCount; ++k) {
      bool per_execution = k <= kIntOps || (k >= kLoads && k <= kGathered);
      double v = per_execution ? f[k] * trips : f[k];
      pooled_[k] += static_cast<float>(v);
      pooled_[kPerStoreCount + k] = std::max(pooled_[kPerStoreCount + k], static_cast<float>(f[k]));
    }
    ++stores_;
  }

  static bool contains_load_of(const Expr& e, const std::string& buffer) {
    if (e->kind == ExprKind::kLoad && e->name == buffer) return true;
    return std::any_of(e->operands.begin(), e->operands.end(),
                       [&](const Expr& o) { return contains_load_of(o, buffer); });
  }

  void walk(const Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::kFor:
        loops_.push_back({s.get()});
        walk(s->body);
        loops_.pop_back();
        return;
      case StmtKind::kStore: store(*s); return;
      case StmtKind::kAllocate: {
        double bytes = s->scope == StorageScope::kGlobal ? 0 : static_cast<double>(s->size) * 4;
        local_bytes_ += bytes;
        walk(s->body);
        local_bytes_ -= bytes;
        return;
      }
      case StmtKind::kIfThenElse:
        walk(s->then_case);
        walk(s->else_case);
        return;
      case StmtKind::kSeq:
        for (const Stmt& c : s->children) walk(c);
        return;
    }
  }

  std::vector<LoopContext> loops_;
  std::vector<float> pooled_;
  double local_bytes_ = 0;
  int stores_ = 0;
};

}  // namespace

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const char* f : kPerStoreNames) n.push_back(std::string("sum_") + f);
    for (const char* f : kPerStoreNames) n.push_back(std::string("max_") + f);
    n.push_back("stores");
    return n;
  }();
  return names;
}

std::vector<float> extract_features(const LoweredFunc& func) { return Extractor().run(func); }

}  // namespace tessera::schedule

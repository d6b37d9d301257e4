// Per-store program features pooled into a fixed vector (see features.h).
#include "schedule/features.h"

#include <algorithm>
#include <cmath>

#include "schedule/floor_div.h"
#include "schedule/simplify.h"

namespace tessera::schedule {
namespace {

// One store's raw features, before pooling.
enum Feature : int {
  kFloatAdd, kFloatMul, kFloatDiv, kFloatMinMax, kFloatMath, kIntOps,
  kTripCount, kVectorLanes, kUnrolled, kParallel, kInnermostExtent, kLoopDepth,
  kLoads, kContiguous, kBroadcast, kStrided, kGathered,
  kBytesTouched, kReuse, kLocalBytes, kIsReduction,
  kL1Traffic, kL2Traffic, kRegisterTile, kBodyIntensity, kBodyOps, kRegisterSpill,
  kPerStoreCount
};

const char* kPerStoreNames[kPerStoreCount] = {
    "float_add", "float_mul", "float_div", "float_minmax", "float_math", "int_ops",
    "trip_count", "vector_lanes", "unrolled", "parallel", "innermost_extent", "loop_depth",
    "loads", "contiguous", "broadcast", "strided", "gathered",
    "bytes_touched", "reuse", "local_bytes", "is_reduction",
    "l1_traffic", "l2_traffic", "register_tile", "body_intensity", "body_ops", "register_spill"};

// Per-core data cache sizes the traffic estimates assume (this project's AVX-512 machines).
constexpr double kL1Bytes = 32.0 * 1024;
constexpr double kL2Bytes = 1024.0 * 1024;
// The vector register file the register body's accumulators live in (AVX-512: 32 of 16
// floats), less a few kept for the loaded operands.
constexpr double kVectorFloats = 16;
constexpr double kAccumulatorRegisters = 28;

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
        accumulator_.push_back(e->name == *store_buffer_);
        return;  // index arithmetic counts through classify_access
      default: break;
    }
    for (const Expr& op : e->operands) count_ops(op, f);
  }

  // Stride along the innermost loop; the access's loop variables are kept for cache_traffic.
  void classify_access(const Expr& index, double* f) {
    if (!loops_.empty()) {
      const ExprNode* inner = loops_.back().loop->loop_var.get();
      int64_t stride;
      if (!linear_coefficient(index, inner, &stride)) f[kGathered] += 1;
      else if (stride == 0) f[kBroadcast] += 1;
      else if (stride == 1) f[kContiguous] += 1;
      else f[kStrided] += 1;
    }
    accesses_.emplace_back();
    collect_vars(index, &accesses_.back());
  }

  static bool uses(const std::vector<const ExprNode*>& vars, const LoopContext& l) {
    return std::find(vars.begin(), vars.end(), l.loop->loop_var.get()) != vars.end();
  }

  // Traffic into the caches for one store and its loads (accesses_, store last), in the spirit
  // of Ansor's reuse features. footprint[d] is the bytes the accesses touch over one execution
  // of loop d (d = depth: one body execution). Traffic into a cache of size C is estimated as
  // (executions of the outermost loop whose footprint fits) x (that footprint): everything
  // below it is reused from the cache, everything above it reloads it.
  void cache_traffic(double* f) const {
    const size_t depth = loops_.size();
    std::vector<double> footprint(depth + 1, 0.0);
    for (const auto& vars : accesses_) {
      double bytes = 4;
      footprint[depth] += bytes;
      for (size_t d = depth; d-- > 0;) {
        if (uses(vars, loops_[d])) bytes *= static_cast<double>(loops_[d].loop->extent);
        footprint[d] += bytes;
      }
    }
    auto traffic = [&](double cache_bytes) {
      double outer = 1;
      for (size_t d = 0; d < depth; ++d) {
        if (footprint[d] <= cache_bytes) return outer * footprint[d];
        outer *= static_cast<double>(loops_[d].loop->extent);
      }
      return outer * footprint[depth];
    };
    f[kBytesTouched] = footprint[0];  // over the whole nest
    f[kL1Traffic] = traffic(kL1Bytes);
    f[kL2Traffic] = traffic(kL2Bytes);
  }

  // The register body: the loops inside the innermost serial or parallel loop, which the
  // backend fully unrolls or vectorizes. Its stored elements are the accumulator tile; its
  // flops per loaded element (accumulator reads excluded) are what keeps the FMA units fed.
  void register_body(double* f) const {
    const size_t depth = loops_.size();
    size_t body = depth;
    while (body > 0 && (loops_[body - 1].loop->for_kind == ForKind::kUnrolled ||
                        loops_[body - 1].loop->for_kind == ForKind::kVectorized)) {
      --body;
    }
    auto body_elements = [&](const std::vector<const ExprNode*>& vars) {
      double elements = 1;
      for (size_t d = body; d < depth; ++d) {
        if (uses(vars, loops_[d])) elements *= static_cast<double>(loops_[d].loop->extent);
      }
      return elements;
    };
    double body_trips = 1, loaded = 0;
    for (size_t d = body; d < depth; ++d) body_trips *= static_cast<double>(loops_[d].loop->extent);
    for (size_t a = 0; a + 1 < accesses_.size(); ++a) {
      if (!accumulator_[a]) loaded += body_elements(accesses_[a]);
    }
    const double flops = f[kFloatAdd] + f[kFloatMul] + f[kFloatDiv] + f[kFloatMinMax] + f[kFloatMath];
    f[kRegisterTile] = body_elements(accesses_.back());
    // Accumulator registers: a vectorized loop of L lanes takes ceil(L / 16) registers per
    // vector (24 lanes take two, not one and a half). Past the file, the backend spills the
    // tile to the stack on every update: a cliff of about 10x that a smooth model of the tile
    // size alone cannot see (measured on BERT dense: 16 x 24 tiles ran at 1/12 of 16 x 16).
    double lanes = 1;
    for (size_t d = body; d < depth; ++d) {
      if (loops_[d].loop->for_kind == ForKind::kVectorized && uses(accesses_.back(), loops_[d])) {
        lanes = static_cast<double>(loops_[d].loop->extent);
      }
    }
    const double registers = f[kRegisterTile] / lanes * std::ceil(lanes / kVectorFloats);
    f[kRegisterSpill] = std::max(0.0, registers - kAccumulatorRegisters);
    f[kBodyIntensity] = flops * body_trips / std::max(1.0, loaded);
    f[kBodyOps] = flops * body_trips;
  }

  void store(const StmtNode& s) {
    double f[kPerStoreCount] = {};
    accesses_.clear();
    accumulator_.clear();
    store_buffer_ = &s.buffer;
    count_ops(s.value, f);
    classify_access(s.index, f);  // the store's own access comes last
    cache_traffic(f);
    register_body(f);
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
      double v = per_execution ? f[k] * trips * weight_ : f[k];
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
        if (s->unswitches_padding && s->then_case && s->else_case) {
          // Blocks reading no padding, then blocks reading some (padding_unswitch): each
          // branch's work in the share of the iterations that run it. At stride 1 a third of
          // a 3x3 conv's blocks can take the slower else.
          const double plain = share_holding(s->condition);
          const double outer = weight_;
          weight_ = outer * plain;
          walk(s->then_case);
          weight_ = outer * (1 - plain);
          walk(s->else_case);
          weight_ = outer;
          return;
        }
        // An else branch is a second version of a nest (partition.h's unswitching: full tiles
        // then, edge tiles else); the first is the one that runs on nearly every tile.
        walk(s->then_case);
        if (!s->then_case || !s->else_case) walk(s->else_case);
        return;
      case StmtKind::kSeq:
        for (const Stmt& c : s->children) walk(c);
        return;
    }
  }

  // The share of the enclosing loops' iterations where `condition` (a conjunction of linear
  // comparisons, as padding_unswitch builds) holds, counted over the loops it reads up to
  // kMaxCountedPoints points; 1 (the plain branch always) where it cannot be counted.
  double share_holding(const Expr& condition) const {
    constexpr int64_t kMaxCountedPoints = 1 << 16;
    struct Linear {
      bool strict;
      int64_t constant;
      std::vector<int64_t> coefficient;  // per variable of `box`
    };
    std::vector<Expr> parts;
    split_conjuncts(condition, &parts);
    std::vector<std::pair<const ExprNode*, int64_t>> box;  // variable, extent
    std::vector<Expr> diffs;
    int64_t points = 1;
    for (const Expr& part : parts) {
      if (part->kind != ExprKind::kLT && part->kind != ExprKind::kLE) return 1;
      diffs.push_back(simplify(part->operands[0] - part->operands[1]));
      std::vector<const ExprNode*> vars;
      collect_vars(diffs.back(), &vars);
      for (const ExprNode* v : vars) {
        if (std::any_of(box.begin(), box.end(), [&](const auto& b) { return b.first == v; })) continue;
        auto loop = std::find_if(loops_.begin(), loops_.end(),
                                 [&](const LoopContext& l) { return l.loop->loop_var.get() == v; });
        if (loop == loops_.end()) return 1;
        box.emplace_back(v, loop->loop->extent);
        points *= loop->loop->extent;
        if (points > kMaxCountedPoints) return 1;
      }
    }
    std::vector<Linear> linear;
    VarMap zero;
    for (const auto& b : box) zero.emplace_back(b.first, Expr(int64_t{0}));
    for (size_t p = 0; p < parts.size(); ++p) {
      Linear l{parts[p]->kind == ExprKind::kLT, 0, {}};
      if (!is_const_int(simplify(substitute(diffs[p], zero)), &l.constant)) return 1;
      for (const auto& b : box) {
        int64_t c = 0;
        if (!linear_coefficient(diffs[p], b.first, &c)) return 1;
        l.coefficient.push_back(c);
      }
      linear.push_back(std::move(l));
    }
    // Counted a row at a time: along the box's first variable each comparison holds on one
    // run of values, found by a division, so only the other variables' points are visited.
    int64_t holding = 0;
    const int64_t row = box.empty() ? 1 : box[0].second;
    std::vector<int64_t> at(box.size(), 0), base(linear.size());
    for (size_t l = 0; l < linear.size(); ++l) base[l] = linear[l].constant;
    for (int64_t done = 0; done < points; done += row) {
      int64_t lo = 0, hi = row - 1;  // the run of the first variable's values where all hold
      for (size_t l = 0; l < linear.size() && lo <= hi; ++l) {
        const int64_t limit = (linear[l].strict ? -1 : 0) - base[l];  // c * x <= limit
        const int64_t c = box.empty() ? 0 : linear[l].coefficient[0];
        if (c > 0) hi = std::min(hi, floor_div(limit, c));
        else if (c < 0) lo = std::max(lo, -floor_div(limit, -c));  // x >= ceil(-limit / -c)
        else if (limit < 0) hi = lo - 1;
      }
      if (hi >= lo) holding += hi - lo + 1;
      for (size_t b = 1; b < box.size(); ++b) {  // the next row: the other variables as an odometer
        for (size_t l = 0; l < linear.size(); ++l) base[l] += linear[l].coefficient[b];
        if (++at[b] < box[b].second) break;
        for (size_t l = 0; l < linear.size(); ++l) base[l] -= linear[l].coefficient[b] * box[b].second;
        at[b] = 0;
      }
    }
    return static_cast<double>(holding) / static_cast<double>(points);
  }

  std::vector<LoopContext> loops_;
  double weight_ = 1;  // the share of its loops' iterations the statement being walked runs in
  std::vector<std::vector<const ExprNode*>> accesses_;  // variables of each access of a store
  std::vector<bool> accumulator_;                        // per load: reads the stored buffer
  const std::string* store_buffer_ = nullptr;
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

// State -> LoopNest IR (see lower.h).
#include "schedule/lower.h"

#include <algorithm>

#include "schedule/pad_local.h"
#include "schedule/padding_skip.h"
#include "schedule/partition.h"
#include "schedule/region.h"
#include "schedule/simplify.h"

namespace tessera::schedule {
namespace {

using VarList = std::vector<const ExprNode*>;

class Lowerer {
 public:
  explicit Lowerer(const State& state) : state_(state), ranges_(loop_ranges(state)) {}

  Result<LoweredFunc> run(const std::string& name) {
    LoweredFunc func;
    func.name = name;
    for (const Tensor& t : state_.dag().arguments()) {
      func.arguments.push_back(KernelArgument{t->name, t.num_elements(), t->dtype,
                                              state_.dag().is_output(t->name)});
    }
    std::vector<Stmt> nests, pack_nests;
    for (size_t i = 0; i < state_.stages().size(); ++i) {
      const StageState& s = state_.stage(static_cast<int>(i));
      if (s.op->is_placeholder || s.location != ComputeLocation::kRoot) continue;
      (s.packed ? pack_nests : nests).push_back(lower_stage(static_cast<int>(i), {}));
      // Packed stages live in buffers the kernel keeps from load to unload.
      if (s.packed) {
        func.packed.push_back(KernelArgument{s.op->name, storage_elements(s), s.op->dtype, false});
      }
    }
    Stmt body = make_seq(std::move(nests));
    // Intermediate stages at root live for the whole kernel.
    const auto& stages = state_.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      if (it->op->is_placeholder || it->location != ComputeLocation::kRoot || it->packed ||
          state_.dag().is_output(it->op->name)) {
        continue;
      }
      body = make_allocate(it->op->name, storage_elements(*it), it->op->dtype,
                           StorageScope::kGlobal, body);
    }
    // A guard-free main body for vector loops whose split does not divide (partition.h); GPU
    // programs are left as they are (their loops are threads, not iterations to split).
    bool gpu = false;
    visit(body, [&](const StmtNode& n) {
      gpu |= n.kind == StmtKind::kFor && (n.for_kind == ForKind::kGpuBlock || n.for_kind == ForKind::kGpuThread);
    });
    // Edge tiles then compute their whole local accumulator tile, reads guarded (pad_local.h).
    func.body = gpu ? body : pad_local_guards(partition_vector_guards(body, ranges_), ranges_);
    if (!pack_nests.empty()) func.pack_body = partition_vector_guards(make_seq(std::move(pack_nests)), ranges_);
    if (!error_.empty()) return make_error(error_);
    return func;
  }

 private:
  // The buffer's dimensions in storage order: its shape (its region, if attached) under its
  // layout.
  static std::vector<int64_t> storage_extents(const StageState& s) {
    if (s.op->is_placeholder) return s.op->shape;
    return layout_extents(s.layout, s.buffer_shape);
  }
  static int64_t storage_elements(const StageState& s) {
    int64_t size = 1;
    for (int64_t d : storage_extents(s)) size *= d;
    return size;
  }

  Stmt allocate(const StageState& s, Stmt body) const {
    return make_allocate(s.op->name, storage_elements(s), s.op->dtype, s.scope, std::move(body));
  }

  // Index of element `indices` of stage `name` in its buffer: relative to its region if
  // attached, through its layout, row-major over the storage dimensions.
  Expr flatten(const std::string& name, const std::vector<Expr>& indices) const {
    const StageState& s = state_.stage(state_.stage_index(name));
    std::vector<Expr> local = indices;
    if (!s.op->is_placeholder) {
      for (size_t d = 0; d < local.size(); ++d) local[d] = local[d] - s.buffer_offset[d];
      local = layout_indices(s.layout, local);
    }
    const std::vector<int64_t> shape = storage_extents(s);
    Expr flat;
    for (size_t d = 0; d < local.size(); ++d) {
      flat = d == 0 ? local[d] : flat * Expr(shape[d]) + local[d];
    }
    return flat.defined() ? flat : Expr(int64_t{0});
  }

  Expr flatten_loads(const Expr& e) const {
    return rewrite_loads(e, [this](const Expr& read) {
      return load(read->name, {flatten(read->name, read->operands)}, read->dtype);
    });
  }

  // Wraps `leaf` in `loops` (outermost first). A guard goes inside the innermost of `loops`
  // that binds one of its variables, once all the stage's loops it reads are bound; guards
  // that none of `loops` binds are placed at the top only when `place_free_guards`. With `attach`, stages computed at a loop of `stage` are
  // lowered into the start of that loop's body. `bound` lists the variables bound outside.
  // `skips_at[i]` are padding skips (padding_skip.h) to place inside loops[i - 1].
  Stmt build_nest(int stage, const std::vector<Loop>& loops, Stmt leaf,
                  const std::vector<Expr>& guards, bool place_free_guards, bool attach,
                  const VarList& bound, int64_t steps_below = 1,
                  const std::vector<std::vector<Expr>>& skips_at = {}) const {
    const StageState& s = state_.stage(stage);
    std::vector<std::vector<Expr>> guards_at(loops.size() + 1);
    for (const Expr& g : guards) {
      // Placeable only where every loop of this stage that the guard reads is bound.
      bool placeable = std::all_of(s.loops.begin(), s.loops.end(), [&](const Loop& l) {
        const ExprNode* v = l.var.get();
        return !uses_var(g, v) || std::find(bound.begin(), bound.end(), v) != bound.end() ||
               std::any_of(loops.begin(), loops.end(), [v](const Loop& m) { return m.var.get() == v; });
      });
      int level = -1;
      for (size_t i = 0; i < loops.size(); ++i) {
        if (uses_var(g, loops[i].var.get())) level = static_cast<int>(i);
      }
      if (placeable && (level >= 0 || place_free_guards)) guards_at[level + 1].push_back(g);
    }
    Stmt nest = std::move(leaf);
    int64_t steps_inside = steps_below;
    for (size_t i = loops.size() + 1; i-- > 0;) {
      for (const Expr& g : guards_at[i]) nest = make_if(g, nest);
      if (i < skips_at.size()) {
        for (const Expr& g : skips_at[i]) nest = make_padding_skip(g, nest);
      }
      if (i == 0) break;
      const Loop& l = loops[i - 1];
      if (attach) {
        VarList inside = bound;
        for (size_t j = 0; j < i; ++j) inside.push_back(loops[j].var.get());
        std::vector<int> attached = state_.attached_to(s.op->name);
        for (auto it = attached.rbegin(); it != attached.rend(); ++it) {
          const StageState& a = state_.stage(*it);
          if (a.attach_loop != l.name) continue;
          nest = allocate(a, make_seq({lower_stage(*it, inside), nest}));
        }
      }
      steps_inside *= l.extent;
      ForKind kind = for_kind(l.annotation);
      if (kind == ForKind::kSerial && s.auto_unroll_max_step > 0 &&
          steps_inside <= s.auto_unroll_max_step) {
        kind = ForKind::kUnrolled;
      }
      nest = make_for(l.var, l.extent, kind, nest, gpu_dim(l.annotation));
    }
    return nest;
  }

  static ForKind for_kind(Annotation a) {
    switch (a) {
      case Annotation::kParallel: return ForKind::kParallel;
      case Annotation::kVectorize: return ForKind::kVectorized;
      case Annotation::kUnroll: return ForKind::kUnrolled;
      case Annotation::kNone: break;
      default:
        if (is_gpu_block(a)) return ForKind::kGpuBlock;
        if (is_gpu_thread(a)) return ForKind::kGpuThread;
    }
    return ForKind::kSerial;
  }

  Stmt lower_stage(int index, const VarList& bound) const {
    const StageState& s = state_.stage(index);
    const TensorNode& op = *s.op;
    Expr value = simplify(flatten_loads(stage_body_in_loops(state_, index)), ranges_);
    Expr out_index = simplify(flatten(op.name, {s.axis_value.begin(),
                                                s.axis_value.begin() + op.axes.size()}),
                              ranges_);
    std::vector<Expr> guards;
    for (const Expr& g : s.guards) {
      Expr simple = simplify(g, ranges_);
      int64_t truth;
      if (!is_const_int(simple, &truth) || !truth) guards.push_back(simple);
    }

    if (op.reduce == ReduceKind::kNone) {
      return build_nest(index, s.loops, make_store(op.name, out_index, value), guards, true, true,
                        bound);
    }
    Expr current = load(op.name, {out_index}, op.dtype);
    Expr update = op.reduce == ReduceKind::kSum ? current + value : max(current, value);
    auto first_reduce = std::find_if(s.loops.begin(), s.loops.end(),
                                     [](const Loop& l) { return l.kind == IterKind::kReduce; });
    std::vector<Loop> outer(s.loops.begin(), first_reduce);
    std::vector<Loop> inner(first_reduce, s.loops.end());
    std::vector<Loop> init_loops;
    for (const Loop& l : inner) {
      if (l.kind == IterKind::kSpatial) init_loops.push_back(l);
    }
    // Guards on reduction loops do not concern the init nest (guards never mix the two kinds).
    std::vector<Expr> init_guards;
    for (const Expr& g : guards) {
      bool on_reduce = std::any_of(inner.begin(), inner.end(), [&](const Loop& l) {
        return l.kind == IterKind::kReduce && uses_var(g, l.var.get());
      });
      if (!on_reduce) init_guards.push_back(g);
    }
    VarList inside = bound;
    for (const Loop& l : outer) inside.push_back(l.var.get());
    Stmt init = build_nest(index, init_loops, make_store(op.name, out_index, op.init), init_guards,
                           false, false, inside);
    const auto skips = padding_skip_guards(state_, index, inner, ranges_);
    Stmt main;
    if (auto unswitch = padding_unswitch(state_, index, inner, ranges_)) {
      // Below the test, the nest twice: reading the input plainly (no padding there, so no
      // skips either) and with the select; above it, the loops and skips as usual.
      const size_t split = static_cast<size_t>(unswitch->level + 1);
      std::vector<Loop> above(inner.begin(), inner.begin() + split), below(inner.begin() + split, inner.end());
      VarList inside_below = inside;
      int64_t below_steps = 1;
      for (const Loop& l : above) inside_below.push_back(l.var.get());
      for (const Loop& l : below) below_steps *= l.extent;
      std::vector<std::vector<Expr>> skips_above(skips.begin(), skips.begin() + split + 1);
      std::vector<std::vector<Expr>> skips_below(1);
      skips_below.insert(skips_below.end(), skips.begin() + split + 1, skips.end());
      Expr plain = simplify(flatten_loads(unswitch->plain_body), ranges_);
      Expr plain_update = op.reduce == ReduceKind::kSum ? current + plain : max(current, plain);
      Stmt fast = build_nest(index, below, make_store(op.name, out_index, plain_update), guards, false, true,
                             inside_below);
      Stmt leaf = fast;
      if (unswitch->all_inside.defined()) {
        Stmt general = build_nest(index, below, make_store(op.name, out_index, update), guards, false, true,
                                  inside_below, 1, skips_below);
        leaf = make_padding_unswitch(unswitch->all_inside, fast, general);
      }
      main = build_nest(index, above, leaf, guards, false, true, inside, below_steps, skips_above);
    } else {
      main = build_nest(index, inner, make_store(op.name, out_index, update), guards, false, true, inside, 1, skips);
    }
    int64_t inner_steps = 1;
    for (const Loop& l : inner) inner_steps *= l.extent;
    return build_nest(index, outer, make_seq({init, main}), guards, true, true, bound, inner_steps);
  }

  const State& state_;
  RangeMap ranges_;
  std::string error_;
};

}  // namespace

Result<LoweredFunc> lower(const State& state, const std::string& name) {
  return Lowerer(state).run(name);
}

}  // namespace tessera::schedule

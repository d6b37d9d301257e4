// Schedule state: how each stage of a ComputeDAG is computed, as a loop structure.
//
// A State is a value: copying it is cheap (expressions are shared) and steps edit a copy, so a
// search can branch freely. Each stage keeps its loops (outermost first) and, for every original
// axis, the expression that recovers the axis from the current loop variables; splits and
// fuses rewrite those expressions, and a split that does not divide its extent adds a guard.
// A stage is computed at root, inlined into its consumers, or attached at a loop of a consumer
// (compute_at), where it computes only the region that one iteration of that loop reads, into a
// buffer of the region's shape. Steps that add stages (cache_write, cache_read, rfactor) change
// the stage list; the ComputeDAG keeps the task's identity (workload key, inputs, outputs).
// Lowering (lower.h) reads a State directly, with no replay. The steps that produced it are kept
// (steps.h) so a schedule serializes and replays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/compute_dag.h"
#include "schedule/expr.h"
#include "schedule/layout.h"
#include "schedule/loop_nest.h"
#include "schedule/steps.h"

namespace tessera::schedule {

enum class IterKind : uint8_t { kSpatial, kReduce };

// Loop annotations: CPU kinds, then GPU bindings (BindStep) to blockIdx / threadIdx x, y, z.
enum class Annotation : uint8_t {
  kNone, kParallel, kVectorize, kUnroll,
  kBlockX, kBlockY, kBlockZ, kThreadX, kThreadY, kThreadZ,
};
const char* to_string(Annotation a);  // "parallel", ..., "blockIdx.x", "threadIdx.z"
inline bool is_gpu_block(Annotation a) { return a >= Annotation::kBlockX && a <= Annotation::kBlockZ; }
inline bool is_gpu_thread(Annotation a) { return a >= Annotation::kThreadX && a <= Annotation::kThreadZ; }
// 0, 1, 2 for the x, y, z of a GPU binding.
inline int gpu_dim(Annotation a) {
  return is_gpu_block(a) ? static_cast<int>(a) - static_cast<int>(Annotation::kBlockX)
                         : static_cast<int>(a) - static_cast<int>(Annotation::kThreadX);
}

struct Loop {
  std::string name;
  int64_t extent = 1;
  IterKind kind = IterKind::kSpatial;
  Annotation annotation = Annotation::kNone;
  Expr var;
};

enum class ComputeLocation : uint8_t { kRoot, kInlined, kAttached };

struct StageState {
  Tensor op;
  std::vector<Loop> loops;       // outermost first; empty for placeholders
  std::vector<Expr> axis_value;  // per original axis (spatial, then reduce): in loop variables
  std::vector<Expr> guards;      // conditions a point must meet (non-dividing splits, regions)
  ComputeLocation location = ComputeLocation::kRoot;
  int64_t auto_unroll_max_step = 0;  // 0: off; else unroll loop nests of at most this many steps
  // kAttached: computed inside loop `attach_loop` of stage `attach_stage`.
  std::string attach_stage, attach_loop;
  // The stage's buffer: the whole tensor at root (offset 0); the region at an attach point,
  // element d of the tensor living at buffer index d - buffer_offset[d].
  std::vector<Expr> buffer_offset;
  std::vector<int64_t> buffer_shape;
  // Storage of the buffer at an attach point: local (private to the attach point: registers or
  // stack, the heap when large) unless cache_write asked for global. Root buffers are global.
  StorageScope scope = StorageScope::kLocal;
  // How the buffer orders its dimensions (LayoutStep); empty: row-major over buffer_shape.
  StorageLayout layout;
  // Computed once when the kernel is loaded, from constant inputs only (PackStep).
  bool packed = false;
};

// The state of a stage before any step: at root, one loop per axis, spatial then reduce.
StageState initial_stage_state(const Tensor& op);

class State {
 public:
  // The initial state: every stage at root with one loop per axis, spatial then reduce.
  explicit State(ComputeDAG dag);

  const ComputeDAG& dag() const { return dag_; }
  const std::vector<StageState>& stages() const { return stages_; }
  const StageState& stage(int index) const { return stages_[index]; }
  const std::vector<Step>& history() const { return history_; }
  int stage_index(const std::string& name) const;  // -1 when absent
  // Stages whose definitions read stage `name`.
  std::vector<int> consumers(const std::string& name) const;
  // Stages attached (compute_at) to a loop of stage `name`.
  std::vector<int> attached_to(const std::string& name) const;

  // Applies one step: on success it is appended to the history; on error nothing changes.
  Result<void> apply(const Step& step);
  // Applies steps in order, stopping at the first error (which names the step's position).
  Result<void> apply_all(const std::vector<Step>& steps);

  // Readable summary of the loop structure, e.g. "C: i.0(16, parallel) j(64) r0(64, reduce)".
  std::string describe() const;

  // Mutable access for the step implementations (steps.cc).
  StageState& mutable_stage(int index) { return stages_[index]; }
  void insert_stage(int position, StageState stage);

 private:
  ComputeDAG dag_;
  std::vector<StageState> stages_;
  std::vector<Step> history_;
};

}  // namespace tessera::schedule

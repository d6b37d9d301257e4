// Schedule steps: the primitive edits of a State.
//
// Steps name stages and loops by their printed names ("C", "i.0"), so a schedule reads well
// as JSON and is independent of internal indices. Every step validates itself against the
// state and fails as a value with a message that says what is wrong and why.
//
// Adding a step: define its struct here (data only) and add it to `Step`; implement its check
// and effect in steps.cc (`apply_step`), its JSON form in step_json.cc, its description in
// `describe_step`; if it changes the loop structure beyond State's loop list, teach lower.cc;
// add refused cases to tests/reject/steps_reject_test.cc and a round trip to
// tests/unit/schedule/step_json_test.cc.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "schedule/result.h"

namespace tessera::schedule {

class State;

// Splits `loop` into len(factors)+1 loops: the outermost has extent ceil(extent / prod(factors))
// and the others have the given factors, outer to inner. A product that does not divide the
// extent adds a guard.
struct SplitStep {
  std::string stage, loop;
  std::vector<int64_t> factors;
};
// Puts the named loops in this order; every loop of the stage must appear once.
struct ReorderStep {
  std::string stage;
  std::vector<std::string> order;
};
// Fuses adjacent loops (outer to inner) into one whose extent is their product.
struct FuseStep {
  std::string stage;
  std::vector<std::string> loops;
};
// Marks a loop parallel, vectorized or unrolled ("parallel" | "vectorize" | "unroll").
struct AnnotateStep {
  std::string stage, loop;
  std::string annotation;
};
// Computes an elementwise stage inside each of its consumers instead of storing it.
struct ComputeInlineStep {
  std::string stage;
};
// Unrolls every loop nest of the stage whose total number of steps is at most `max_step`.
struct AutoUnrollStep {
  std::string stage;
  int64_t max_step;
};

// Computes `stage` inside loop `loop` of its consumer `target`: each iteration of that loop
// computes just the region of `stage` it reads (region inference), into a buffer of that shape.
// The stage must be untransformed (its loops are rebuilt over the region; transform it after)
// and `target` must be its only consumer; `target` cannot split, fuse or reorder afterwards.
struct ComputeAtStep {
  std::string stage, target, loop;
};
// Computes an attached or inlined stage at root again, over its whole shape.
struct ComputeRootStep {
  std::string stage;
};
// Adds stage "<stage>.local" that computes `stage` into a buffer of storage `scope` ("local" or
// "global"); `stage` becomes a copy of it. With compute_at, the classic register/cache tile.
struct CacheWriteStep {
  std::string stage;
  std::string scope = "local";
};
// Adds stage "<stage>.local" ("<stage>.shared" for scope shared) holding a copy of `stage` that
// `consumer` reads instead; with compute_at, a packed tile of an input. Scope "shared" (GPU):
// the copy is shared by the threads of a block, filled by them together (bind its loops to
// threadIdx) between two barriers, at a loop outside the consumer's thread loops.
struct CacheReadStep {
  std::string stage, consumer;
  std::string scope = "local";
};
// Splits the reduction of `stage` at its reduction loop `loop`: stage "<stage>.rf" reduces over
// the other reduction loops with `loop` as a new outer spatial axis "rf", and `stage` sums (or
// maxes) over it. The spatial loops of `stage` must be untransformed.
struct RFactorStep {
  std::string stage, loop;
};

// Stores the buffer of `stage` in another layout (it computes the same values). Each entry of
// `dims` is one dimension of the new layout, outermost first: "d" is dimension d of the stage
// (of its region when attached), "d/b" and "d%b" split dimension d into blocks of b (the block
// index and the position in the block; both must appear, with the same b). Every dimension is
// used once, e.g. ["0/16", "1", "2", "3", "0%16"] stores weights [K,C,R,S] as [K/16][C][R][S][16]
// (OIHW16o) and ["0", "1/16", "2", "3", "1%16"] activations as NCHW16c. A block that does not
// divide its extent pads the buffer. Inputs and outputs of the DAG keep their layout.
struct LayoutStep {
  std::string stage;
  std::vector<std::string> dims;
};
// Computes `stage` once, when the kernel is loaded, instead of in every call: it must be at root
// and read only constant inputs (weights, biases; TensorNode::is_constant), through stages that
// are inlined. With cache_read and layout, a weight packed ahead of time (Ansor's layout rewrite).
struct PackStep {
  std::string stage;
};

// Binds a spatial loop to a GPU grid or block dimension: `thread` is "blockIdx.x|y|z" or
// "threadIdx.x|y|z". Each iteration runs on its own block (thread); a kernel's grid and block
// sizes are the extents of its bound loops. Refused: a reduction loop (its threads would
// accumulate into one output with no cross-thread reduction), a dimension the stage already
// binds, more than kMaxGpuThreads threads per block over the stage's thread loops, more than
// the dimension allows (threadIdx.z: 64; blockIdx.y, z: 65535).
struct BindStep {
  std::string stage, loop;
  std::string thread;
};

using Step = std::variant<SplitStep, ReorderStep, FuseStep, AnnotateStep, ComputeInlineStep,
                          AutoUnrollStep, ComputeAtStep, ComputeRootStep, CacheWriteStep,
                          CacheReadStep, RFactorStep, LayoutStep, PackStep, BindStep>;

// Checks `step` against `state` and applies it (State::apply is the public entry point).
Result<void> apply_step(const Step& step, State& state);

// One line, e.g. `split C.i by [32, 8]`.
std::string describe_step(const Step& step);
// The buffer layouts a schedule chooses, one per layout step, e.g. `B.local [1/16, 0, 1%16];
// W.local [0/16, 1, 2, 3, 0%16] packed at load`; "as given" when it chooses none.
std::string describe_layouts(const std::vector<Step>& steps);

// Limits that keep generated code sane.
inline constexpr int64_t kMaxVectorLanes = 64;
// float32 lanes of one full-width (AVX-512) register: the tile rules' whole vector.
inline constexpr int64_t kFullVectorLanes = 16;
inline constexpr int64_t kMaxUnrollExtent = 512;
// CUDA's limits on every GPU since compute capability 2.0.
inline constexpr int64_t kMaxGpuThreads = 1024;        // per block, all dimensions together
inline constexpr int64_t kMaxGpuThreadsZ = 64;
inline constexpr int64_t kMaxGpuGridYZ = 65535;
inline constexpr int64_t kMaxGpuGridX = 2147483647;

}  // namespace tessera::schedule

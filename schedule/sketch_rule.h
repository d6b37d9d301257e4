// Internal to schedule/: the pieces per-stage sketch rules are made of (sketch.cc assembles
// them into sketches; sketch_packed.cc is a rule of its own file).
//
// A StageRule is one way to schedule one stage: it adds its knobs to a SketchBuilder and an
// emitter that turns knob values into steps.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule/knobs.h"
#include "schedule/state.h"

namespace tessera::schedule::detail {

using Emitter = std::function<void(const KnobSpace&, const KnobValues&, std::vector<Step>&)>;

// Collects knobs and step emitters of the per-stage rules that make one sketch.
struct SketchBuilder {
  std::vector<Knob> knobs;
  std::vector<Emitter> emitters;
  std::vector<std::string> tags, descriptions;

  size_t add(Knob k) {
    knobs.push_back(std::move(k));
    return knobs.size() - 1;
  }
};

// One way to schedule one stage.
struct StageRule {
  std::string tag;
  std::string description;
  std::function<void(SketchBuilder&)> apply;
};

// Auto-unroll depths a rule offers (0: off).
inline const std::vector<int64_t> kUnrollSteps = {0, 16, 64, 512};

// A reduction reuses data when some input is not indexed by every spatial axis.
bool has_data_reuse(const TensorNode& t);
// Fused loop name of `loops` (what FuseStep names it), or the loop itself.
std::string fused_name(const std::vector<std::string>& loops);

// The inside of a multi-level tile, R S R S: splits `stage`'s spatial axes (named in loop
// order, the vector axis last) by `inner` and its reduction axes by `reduce_inner`, orders the
// loops outer reductions, outer spatial, inner reductions, inner spatial, vectorizes the last
// when `vectorize`, and unrolls up to `unroll` steps (0: no auto-unroll).
void emit_inner_tile(std::vector<Step>& steps, const std::string& stage, const std::vector<std::string>& spatial,
                     const std::vector<int64_t>& inner, const std::vector<std::string>& reductions,
                     const std::vector<int64_t>& reduce_inner, bool vectorize, int64_t unroll);

// Multi-level tiling with a vector of one spatial axis innermost and the constant input read
// along that axis packed at load into a layout where the vector is contiguous (sketch_packed.cc),
// computed at the tile of `consumer` if not empty. Without such a constant, an input read along
// the output's last axis (a matmul's B) is packed the same way in every call; no rule when the
// stage reads neither.
std::vector<StageRule> packed_tile_rules(const TensorNode& op, const State& state,
                                         const std::string& consumer);

}  // namespace tessera::schedule::detail

// The schedule a task gets before any tuning: one candidate of the task's own sketches, with
// its knobs set by a fixed rule instead of a search.
//
// The rule (default_schedule.cc) prefers a sketch that packs a constant at load (conv and
// dense: the packed tiling of schedule/sketch_packed.cc) for reductions of 128 steps or more.
// It gives a tiled reduction a register block of at most 8 vector registers of accumulators on
// AVX2 and 28 on AVX-512 (whose FMAs broadcast from memory): its vector axis (the innermost; a
// packed conv's output channels) vectorized by two registers (or its largest divisor up to
// that), then as many rows as fit along the axes the vector operand does not depend on (a
// packed conv's output pixels, a matmul's rows: one vector load, many broadcasts): 14 rows of
// two AVX-512 registers, 4 rows of two AVX2 ones. Where the rows cannot fill the block that way
// (a 7x7 map on AVX2), the vector shrinks to one register and the rows grow, or widens to four
// registers where that fills more (50 rows: 2 by four AVX2 registers); where no divisor of the
// rows fits but 1 (a prime count of rows: ViT's 197 tokens), the rows take a ceil tile (the last
// one padded) where their knob has them (the generic sketch's), also where a batch axis
// (attention's heads, Winograd's transform points) could have taken rows, each with a vector of
// its own; where it has none (the packed sketch's), the vector widens instead, up to every
// accumulator register, and all the rows stream through each 64-step chunk of its panel, which
// stays in L1 (the rows at tile level 2, inside the reduction's outer loop), where the reduction
// splits into such chunks. The
// reduction's innermost axes are unrolled around the block, and the outer tile loops parallel,
// the row tiles outside the panel tiles (the vector axis's) or inside them, whichever order
// moves fewer bytes from beyond the core's L2 (a deep conv's weights re-read per row tile, or
// its input re-read per panel); other stages are vectorized by 16 or 8 where they divide
// the extent (else its largest divisor up to 16) and parallel outside. A packed conv over a
// small output plane (ResNet-50's 7x7) whose weights stream from memory tiles the whole plane
// instead, so each weight vector fetched serves every output pixel; which of the two a machine
// runs faster differs (an Intel Xeon the plane, an AMD EPYC Zen 5 the register block), so the
// register block follows as a second default there, and a tuning run times both. A row-wise op (softmax,
// layer norm) gets its row sketch first (schedule/sketch_rows.cc): a 16-lane vector along the
// row and partial sums of one vector register.
// It is deterministic, so a network without records compiles to the same kernels every time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedule/compute_dag.h"
#include "schedule/steps.h"

namespace tessera::runtime {

struct ScheduleChoice {
  std::string sketch;  // sketch id; empty for the unscheduled lowering
  nlohmann::json knobs = nlohmann::json::object();
  std::vector<schedule::Step> steps;
};

// What the rule sizes a schedule for: one core's vector registers and private L2.
struct CoreShape {
  int register_floats = 16;        // float32 lanes of one vector register: 8 on AVX2, 16 on AVX-512
  int64_t l2_bytes = int64_t{1} << 20;
};

// This machine's core (the fingerprint's ISA flags, runtime/host_cache.h's L2).
CoreShape host_core_shape();

// Where a kernel finds its constant inputs (weights) when it is called: still cached from its
// last call (one operator timed or called in a loop), or in memory (a network's layers: their
// weights together are far past the last-level cache, so each layer's arrive from DRAM, which
// is what network tuning times: measure.cold_constants).
enum class Constants { kCached, kFromMemory };

// Default schedules in order of preference: the rule's candidate of each sketch that applies
// (first sketch first), then the unscheduled lowering (no steps), which always applies.
// The first form sizes them for this machine's core, the second for `core`.
std::vector<ScheduleChoice> default_schedules(const schedule::ComputeDAG& dag,
                                              Constants constants = Constants::kCached);
std::vector<ScheduleChoice> default_schedules(const schedule::ComputeDAG& dag, const CoreShape& core,
                                              Constants constants = Constants::kCached);

}  // namespace tessera::runtime

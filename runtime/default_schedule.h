// The schedule a task gets before any tuning: one candidate of the task's own sketches, with
// its knobs set by a fixed rule instead of a search.
//
// The rule (default_schedule.cc) prefers a sketch that packs a constant at load (conv and
// dense: the packed tiling of schedule/sketch_packed.cc) for reductions of 128 steps or more.
// It gives a tiled reduction a register block of at most 8 vector registers of accumulators:
// its vector axis (the innermost; a packed conv's output channels) vectorized by 16 (or its
// largest divisor up to 16), then as many rows as fit along the axes the vector operand does not
// depend on (a packed conv's output pixels, a matmul's rows: one vector load, many broadcasts):
// 8 rows of one AVX-512 register, 4 rows of two AVX2 ones. Where the rows cannot fill the block
// that way (a 7x7 map on AVX2), the vector shrinks to one register and the rows grow. The
// reduction's innermost axes are unrolled around the block, and the outer tile loops parallel; other stages are vectorized by 16 or 8 where they divide
// the extent (else its largest divisor up to 16) and parallel outside. A row-wise op (softmax,
// layer norm) gets its row sketch first (schedule/sketch_rows.cc): a 16-lane vector along the
// row and partial sums of one vector register.
// It is deterministic, so a network without records compiles to the same kernels every time.
#pragma once

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

// Default schedules in order of preference: the rule's candidate of each sketch that applies
// (first sketch first), then the unscheduled lowering (no steps), which always applies.
// The rule sizes register blocks for this machine's vector registers; the second form for
// registers of `register_floats` float32 lanes (8 on AVX2, 16 on AVX-512).
std::vector<ScheduleChoice> default_schedules(const schedule::ComputeDAG& dag);
std::vector<ScheduleChoice> default_schedules(const schedule::ComputeDAG& dag, int register_floats);

}  // namespace tessera::runtime

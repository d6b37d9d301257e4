// The schedule a task gets before any tuning: one candidate of the task's own sketches, with
// its knobs set by a fixed rule instead of a search.
//
// The rule (default_schedule.cc) prefers a sketch that packs a constant at load (conv and
// dense: the packed tiling of schedule/sketch_packed.cc) for reductions of 128 steps or more.
// It gives a tiled reduction a register block: its vector axis (the innermost; a packed conv's
// output channels) vectorized by 16 (or its largest divisor up to 16), up to 8 rows along the
// axes the vector operand does not depend on (a packed conv's output pixels, a matmul's rows:
// one vector load, many broadcasts), the reduction's innermost axes unrolled around the block,
// and the outer tile loops parallel; other stages are vectorized by 16 or 8 where they divide
// the extent (else its largest divisor up to 16) and parallel outside.
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
std::vector<ScheduleChoice> default_schedules(const schedule::ComputeDAG& dag);

}  // namespace tessera::runtime

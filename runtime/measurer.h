// Measurer: what turns schedules into measurements, so a TuningTask can run on hardware or on
// a simulator without its agents knowing.
//
// The hardware path is the Builder + isolated Runner inside TuningTask (the default); the
// ReplaySimulator (replay_simulator.h) answers from records or from a fixed model, for agent
// tests and studies without hardware. A Measurer must return one result per schedule, in
// order, and never throw: a schedule it cannot answer gets an error result.
#pragma once

#include <vector>

#include "runtime/measure.h"
#include "schedule/compute_dag.h"
#include "schedule/steps.h"

namespace tessera::runtime {

class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual std::vector<MeasureResult> measure(const schedule::ComputeDAG& dag,
                                             const std::vector<std::vector<schedule::Step>>& schedules) = 0;
};

}  // namespace tessera::runtime

// Shrinking a failing schedule into a reproducer, for the fuzzers (against the reference on
// the CPU, through NVRTC for the GPU): drops steps, last first, while the schedule still
// applies and still fails, until no single step can go.
#pragma once

#include <functional>
#include <vector>

#include "schedule/state.h"

namespace tessera::testing {

inline std::vector<schedule::Step> shrink_steps(
    const schedule::ComputeDAG& dag, std::vector<schedule::Step> steps,
    const std::function<bool(const std::vector<schedule::Step>&)>& fails) {
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = steps.size(); i-- > 0;) {
      std::vector<schedule::Step> fewer = steps;
      fewer.erase(fewer.begin() + static_cast<long>(i));
      if (schedule::State(dag).apply_all(fewer).ok() && fails(fewer)) {
        steps = std::move(fewer);
        progress = true;
      }
    }
  }
  return steps;
}

}  // namespace tessera::testing

// Random schedules for the fuzzer: proposes steps of every kind at random (seeded) and keeps
// those the State accepts, so every schedule returned is valid by construction. Refused
// proposals are counted and checked to leave the State unchanged.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "schedule/state.h"

namespace tessera::testing {

struct RandomSchedule {
  std::vector<schedule::Step> steps;
  int refused = 0;             // proposals the State refused
  bool refusal_changed_state = false;  // an invariant violation, if ever true
};

RandomSchedule random_schedule(const schedule::ComputeDAG& dag, std::mt19937_64& rng,
                               int wanted_steps);

}  // namespace tessera::testing

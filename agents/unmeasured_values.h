// Jumps to knob values nothing measured has: each candidate sets one knob of a centre to a
// value that no measured candidate of the centre's sketch holds on that knob.
//
// A proxy knows least about such values, and neither greedy climbs nor mutation reach one that
// lies several moves away when every move in between scores lower (the race that showed it:
// bench/NOTES.md). harl's jump source (agents/rl/jump_source.h) proposes them.
#pragma once

#include <vector>

#include "env/tuning_task.h"

namespace tessera::agents {

// For each centre and each knob, the centre with that knob set to each value no measured
// candidate of the centre's sketch has (distinct, centres' order, then knob order).
std::vector<env::Candidate> unmeasured_values(const env::TuningTask& task, const std::vector<env::Candidate>& centres);

}  // namespace tessera::agents

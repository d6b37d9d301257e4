// Jumps to knob values nothing measured has: each candidate sets one knob of a centre to a
// value that no measured candidate of the centre's sketch holds on that knob.
//
// A proxy knows least about such values, and neither greedy climbs nor mutation reach one that
// lies several moves away when every move in between scores lower. harl on ResNet-50's 1x1
// conv measured no candidate with an innermost w tile of 8 (evolutionary's best basin, three
// prime-factor moves from harl's 14) and stalled 5% short in every race.
#pragma once

#include <vector>

#include "env/tuning_task.h"

namespace tessera::agents {

// For each centre and each knob, the centre with that knob set to each value no measured
// candidate of the centre's sketch has (distinct, centres' order, then knob order).
std::vector<env::Candidate> unmeasured_values(const env::TuningTask& task, const std::vector<env::Candidate>& centres);

}  // namespace tessera::agents

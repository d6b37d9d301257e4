// Greedy ascent on the cost model. From each of the best-scored candidates so far, every
// one-move neighbour (KnobSpace::neighbours) is scored in one batch and the climb moves to the
// best of them while the score still rises. harl uses it to round off its PPO trajectories: the
// agents find promising regions, the climb spends cheap proxy evaluations on the local moves
// around them, as the mutations of Ansor's evolution do, before anything is measured.
#pragma once

#include <map>

#include "agents/model_feeder.h"

namespace tessera::agents {

struct HillClimbOptions {
  int starts = 16;  // climbs, from the best-scored distinct candidates; 0: none
  int steps = 4;    // moves per climb at most
};

struct HillClimbStats {
  int scored = 0;  // neighbours newly scored
  int moves = 0;   // steps that raised a climb's score
};

// `scored` maps candidates to their model scores; the climbs start from its best entries and
// every neighbour they score is added to it (those whose schedule is refused are not).
HillClimbStats hill_climb(const env::TuningTask& task, ModelFeeder& feeder,
                          std::map<env::Candidate, double>& scored, const HillClimbOptions& options);

}  // namespace tessera::agents

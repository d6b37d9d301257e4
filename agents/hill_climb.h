// Greedy ascent on the cost model. From each start, every one-move neighbour
// (KnobSpace::neighbours) is scored in one batch and the climb moves to the best of them while
// the score still rises. harl climbs from the best measured candidates each round: the
// neighbourhoods of what really ran fastest are ranked by the proxy, as the mutations of
// Ansor's evolution rank them, before anything more is measured. `scan_two_moves` scores
// every candidate within two moves of a centre, which reaches the pairs of moves a greedy climb
// cannot take because their first step scores lower.
#pragma once

#include <map>
#include <vector>

#include "env/model_feeder.h"

namespace tessera::agents {

struct HillClimbStats {
  int scored = 0;  // neighbours newly scored
  int moves = 0;   // steps that raised a climb's score
};

// One climb of at most `steps` moves from each of `starts`. `scored` maps candidates to their
// model scores: it is looked up before scoring and every candidate scored is added to it
// (those whose schedule is refused are not, and a refused start is not climbed from).
HillClimbStats hill_climb(const env::TuningTask& task, env::ModelFeeder& feeder, const std::vector<env::Candidate>& starts,
                          int steps, std::map<env::Candidate, double>& scored);

// Scores every candidate one or two moves from each of `centres` that `scored` does not hold
// yet, in one batch, into `scored` (refused schedules left out). Returns how many were scored.
int scan_two_moves(const env::TuningTask& task, env::ModelFeeder& feeder, const std::vector<env::Candidate>& centres,
                   std::map<env::Candidate, double>& scored);

}  // namespace tessera::agents

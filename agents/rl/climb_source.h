// ClimbSource ("climb"): greedy climbs on the proxy (hill_climb.h) of at most `steps` moves,
// from the task's `starts` fastest measured candidates and each sketch's own fastest
// starts / 4 — so a sketch the search has turned from is still ranked against the others. The
// candidates it proposes are every one-move neighbour the climbs scored.
#pragma once

#include "agents/rl/candidate_source.h"

namespace tessera::agents::rl {

// Where the climbs start (see above), without repeats.
std::vector<env::Candidate> climb_starts(const env::TuningTask& task, int starts);

class ClimbSource : public CandidateSource {
 public:
  ClimbSource(int starts, int steps) : starts_(starts), steps_(steps) {}
  std::string name() const override { return "climb"; }
  Scored propose(const SourceInput& input) override;

 private:
  int starts_, steps_;
};

}  // namespace tessera::agents::rl

// EvolvedSource ("evolved"): a population evolved on the proxy as the evolutionary agent
// evolves its own (evolutionary_search.h: the measured bests and random draws, generations of
// score-weighted selection and mutation); every candidate it saw, scored. Its random draws are
// first the screened source's of this round (SourceInput::pool), shuffled: uniform draws whose
// features the feeder already holds, so the first generation costs no lowering. harl's first
// round, with nothing measured, is this source alone, so it starts level with the evolutionary
// agent.
#pragma once

#include "agents/evolutionary_search.h"
#include "agents/rl/candidate_source.h"

namespace tessera::agents::rl {

class EvolvedSource : public CandidateSource {
 public:
  explicit EvolvedSource(EvolutionOptions options) : options_(options) {}
  std::string name() const override { return "evolved"; }
  Scored propose(const SourceInput& input) override;

 private:
  EvolutionOptions options_;
};

}  // namespace tessera::agents::rl

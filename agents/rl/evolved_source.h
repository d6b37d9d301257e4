// EvolvedSource ("evolved"): a population evolved on the proxy as the evolutionary agent
// evolves its own (evolutionary_search.h: the measured bests and random draws, generations of
// score-weighted selection and mutation); every candidate it saw, scored. Its random draws are
// first the screened source's of this round (SourceInput::pool), shuffled: uniform draws whose
// features the feeder already holds, so the first generation costs no lowering. harl's first
// round, with nothing measured, is this source alone at the evolutionary agent's population,
// so it starts level with that agent. Later rounds evolve `later_population`: there the source
// fills a share of the batch beside five others rather than all of it (in stop 90's ResNet-50
// sitting, 17-18% of what was measured), and half of Ansor's 2,048 cut harl's proposing by a
// quarter without cutting what the source found (bench/NOTES.md).
#pragma once

#include "agents/evolutionary_search.h"
#include "agents/rl/candidate_source.h"

namespace tessera::agents::rl {

class EvolvedSource : public CandidateSource {
 public:
  // later_population <= 0: options.population in every round.
  explicit EvolvedSource(EvolutionOptions options, int later_population = 0)
      : options_(options), later_population_(later_population) {}
  std::string name() const override { return "evolved"; }
  Scored propose(const SourceInput& input) override;

 private:
  EvolutionOptions options_;
  int later_population_;
};

}  // namespace tessera::agents::rl

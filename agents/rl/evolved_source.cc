// A population evolved on the proxy (see evolved_source.h).
#include "agents/rl/evolved_source.h"

namespace tessera::agents::rl {

Scored EvolvedSource::propose(const SourceInput& in) {
  EvolutionRound round;
  return tagged(evolve(in.task, in.feeder, seed_population(in.task, options_, in.rng), options_, in.rng, round), name());
}

}  // namespace tessera::agents::rl

// A population evolved on the proxy (see evolved_source.h).
#include "agents/rl/evolved_source.h"

#include <algorithm>

#include "agents/rl/screened_source.h"

namespace tessera::agents::rl {

Scored EvolvedSource::propose(const SourceInput& in) {
  std::vector<env::Candidate> drawn;
  for (const auto& [score, c] : in.pool) {
    if (c.source == ScreenedSource::kName) drawn.push_back(c);
  }
  std::shuffle(drawn.begin(), drawn.end(), in.rng);
  for (env::Candidate& c : drawn) c.source.clear();
  EvolutionOptions options = options_;
  if (later_population_ > 0 && !in.task.measurements().empty()) options.population = later_population_;
  EvolutionRound round;
  return tagged(evolve(in.task, in.feeder, seed_population(in.task, options, in.rng, std::move(drawn)), options, in.rng, round),
                name());
}

}  // namespace tessera::agents::rl

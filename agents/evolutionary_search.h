// Evolutionary search (Ansor's): evolve a large population on the cost model, measure the few
// it ranks best.
//
// Each round: feed the cost model every measurement it has not seen and retrain it; seed a
// population with the measured bests (`init_from_best` of it) and random samples; for
// `generations` rounds select parents with probability proportional to their (shifted) score,
// mutate each with `mutation_probability` (a weighted knob move, see KnobSpace::mutate) or
// copy it; keep the best-scored candidates seen in any generation. The batch is the
// top-scored unmeasured candidates plus an ε share of random ones, so a wrong model cannot
// trap the search. Defaults are Ansor's: population 2048, 4 generations, mutation 0.85,
// ε 0.05, 20% of the initial population from measured bests.
#pragma once

#include <map>
#include <memory>
#include <random>

#include "env/model_feeder.h"
#include "agents/search_agent.h"

namespace tessera::agents {

struct EvolutionOptions {
  int population = 2048;
  int generations = 4;
  double mutation_probability = 0.85;
  double eps_greedy = 0.05;
  double init_from_best = 0.2;
};

// What the last round did, for logs and tests.
struct EvolutionRound {
  int scored = 0;            // feature vectors scored by the cost model
  int invalid = 0;           // candidates whose schedule was refused (ranked last)
  int trained_samples = 0;   // samples the model was trained on this round
  float best_score = 0;      // best predicted score in the population
  double seconds = 0;        // wall time of the round (training + evolution)
};

// The population a round starts from: the task's fastest measured candidates
// (`init_from_best` of it), then random samples: first those of `drawn` (uniform draws someone
// already made this round, e.g. harl's screened source, whose features are cached), then new ones.
std::vector<env::Candidate> seed_population(const env::TuningTask& task, const EvolutionOptions& options,
                                            std::mt19937_64& rng, std::vector<env::Candidate> drawn = {});

// Evolves `population` on the cost model for `options.generations` and returns every
// scorable candidate it saw with its score (measured ones included). Adds to `round.scored`
// and `round.invalid`. harl draws the batch's fresh-basin share from it too.
std::map<env::Candidate, double> evolve(const env::TuningTask& task, env::ModelFeeder& feeder,
                                        std::vector<env::Candidate> population, const EvolutionOptions& options,
                                        std::mt19937_64& rng, EvolutionRound& round);

// One round's batch of `count`: the population seeded and evolved as above, its best-scored
// unmeasured candidates plus an ε share of random ones. Sets `round.best_score` and adds to
// its counts. The evolutionary agent's every round; harl's first, when nothing is measured.
std::vector<env::Candidate> evolved_batch(const env::TuningTask& task, env::ModelFeeder& feeder,
                                          const EvolutionOptions& options, int count, std::mt19937_64& rng,
                                          EvolutionRound& round);

class EvolutionarySearch : public SearchAgent {
 public:
  EvolutionarySearch(std::shared_ptr<env::CostModel> model, uint64_t seed, EvolutionOptions options = {});
  std::string name() const override { return "evolutionary"; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override;
  void observe(const env::TuningTask&, const std::vector<env::Measurement>&) override {}
  const EvolutionRound& last_round() const { return round_; }

 private:
  env::ModelFeeder feeder_;
  std::mt19937_64 rng_;
  EvolutionOptions options_;
  EvolutionRound round_;
};

}  // namespace tessera::agents

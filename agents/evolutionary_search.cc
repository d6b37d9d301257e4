// Evolutionary search on a cost model (see evolutionary_search.h).
#include "agents/evolutionary_search.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "agents/batch.h"

namespace tessera::agents {

std::vector<env::Candidate> seed_population(const env::TuningTask& task, const EvolutionOptions& options,
                                            std::mt19937_64& rng, std::vector<env::Candidate> drawn) {
  std::vector<const env::Measurement*> measured;
  for (const auto& [c, m] : task.measurements()) {
    if (m.ok()) measured.push_back(&m);
  }
  std::sort(measured.begin(), measured.end(), [](auto* a, auto* b) { return a->seconds() < b->seconds(); });
  const size_t from_best = std::min(measured.size(), static_cast<size_t>(options.init_from_best * options.population));
  std::vector<env::Candidate> population;
  for (size_t i = 0; i < from_best; ++i) population.push_back(measured[i]->candidate);
  for (size_t i = 0; i < drawn.size() && population.size() < static_cast<size_t>(options.population); ++i) {
    population.push_back(std::move(drawn[i]));
  }
  while (population.size() < static_cast<size_t>(options.population)) population.push_back(task.sample(rng));
  return population;
}

std::map<env::Candidate, double> evolve(const env::TuningTask& task, env::ModelFeeder& feeder,
                                        std::vector<env::Candidate> population, const EvolutionOptions& options,
                                        std::mt19937_64& rng, EvolutionRound& round) {
  std::map<env::Candidate, double> seen;
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (int generation = 0;; ++generation) {
    const std::vector<float> scores = feeder.score(task, population);
    const int invalid = static_cast<int>(std::count(scores.begin(), scores.end(), env::kUnscorable));
    round.scored += static_cast<int>(scores.size()) - invalid;
    round.invalid += invalid;
    for (size_t i = 0; i < population.size(); ++i) {
      if (scores[i] != env::kUnscorable) seen.emplace(population[i], scores[i]);
    }
    if (generation == options.generations) break;
    // Roulette-wheel selection on scores shifted to be positive; invalid ones never breed.
    float low = std::numeric_limits<float>::infinity(), high = -low;
    for (float s : scores) {
      if (s != env::kUnscorable) low = std::min(low, s), high = std::max(high, s);
    }
    if (low > high) break;  // nothing valid to breed from
    const float floor = (high - low) * 1e-3f + 1e-12f;
    std::vector<double> weights;
    for (float s : scores) weights.push_back(s == env::kUnscorable ? 0.0 : s - low + floor);
    std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
    std::vector<env::Candidate> next;
    next.reserve(population.size());
    for (size_t i = 0; i < population.size(); ++i) {
      env::Candidate child = population[pick(rng)];
      if (coin(rng) < options.mutation_probability) child.knobs = task.sketch(child).knobs.mutate(child.knobs, rng);
      next.push_back(std::move(child));
    }
    population = std::move(next);
  }
  return seen;
}

std::vector<env::Candidate> evolved_batch(const env::TuningTask& task, env::ModelFeeder& feeder,
                                          const EvolutionOptions& options, int count, std::mt19937_64& rng,
                                          EvolutionRound& round) {
  const std::map<env::Candidate, double> seen =
      evolve(task, feeder, seed_population(task, options, rng), options, rng, round);
  std::vector<std::pair<double, env::Candidate>> ranked;
  for (const auto& [candidate, s] : seen) {
    if (!task.measured(candidate)) ranked.emplace_back(s, candidate);
  }
  if (!ranked.empty()) {
    round.best_score = static_cast<float>(
        std::max_element(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first < b.first; })->first);
  }
  return select_batch(task, std::move(ranked), count, options.eps_greedy, rng).candidates;
}

EvolutionarySearch::EvolutionarySearch(std::shared_ptr<env::CostModel> model, uint64_t seed,
                                       EvolutionOptions options)
    : feeder_(std::move(model)), rng_(seed), options_(options) {}

std::vector<env::Candidate> EvolutionarySearch::propose(const env::TuningTask& task, int count) {
  auto start = std::chrono::steady_clock::now();
  round_ = {};
  if (feeder_.update(task) > 0) round_.trained_samples = static_cast<int>(feeder_.fed());

  std::vector<env::Candidate> out = evolved_batch(task, feeder_, options_, count, rng_, round_);
  round_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace tessera::agents

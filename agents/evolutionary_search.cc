// Evolutionary search on a cost model (see evolutionary_search.h).
#include "agents/evolutionary_search.h"

#include <algorithm>
#include <chrono>
#include <limits>


namespace tessera::agents {
namespace {

constexpr float kInvalidScore = kUnscorable;

env::Candidate random_candidate(const env::TuningTask& task, std::mt19937_64& rng) {
  const auto& sketches = task.sketches();
  env::Candidate c;
  c.sketch = static_cast<int>(std::uniform_int_distribution<size_t>(0, sketches.size() - 1)(rng));
  c.knobs = sketches[static_cast<size_t>(c.sketch)].knobs.sample(rng);
  return c;
}

}  // namespace

EvolutionarySearch::EvolutionarySearch(std::shared_ptr<env::CostModel> model, uint64_t seed,
                                       EvolutionOptions options)
    : feeder_(std::move(model)), rng_(seed), options_(options) {}

std::vector<env::Candidate> EvolutionarySearch::initial_population(const env::TuningTask& task) {
  std::vector<const env::Measurement*> measured;
  for (const auto& [c, m] : task.measurements()) {
    if (m.ok()) measured.push_back(&m);
  }
  std::sort(measured.begin(), measured.end(),
            [](auto* a, auto* b) { return a->seconds() < b->seconds(); });
  size_t from_best = std::min(measured.size(),
                              static_cast<size_t>(options_.init_from_best * options_.population));
  std::vector<env::Candidate> population;
  for (size_t i = 0; i < from_best; ++i) population.push_back(measured[i]->candidate);
  while (population.size() < static_cast<size_t>(options_.population)) {
    population.push_back(random_candidate(task, rng_));
  }
  return population;
}

std::vector<float> EvolutionarySearch::score(const env::TuningTask& task,
                                             const std::vector<env::Candidate>& population) {
  auto scores = feeder_.score(task, population);
  int invalid = static_cast<int>(std::count(scores.begin(), scores.end(), kUnscorable));
  round_.scored += static_cast<int>(scores.size()) - invalid;
  round_.invalid += invalid;
  return scores;
}

std::vector<env::Candidate> EvolutionarySearch::propose(const env::TuningTask& task, int count) {
  auto start = std::chrono::steady_clock::now();
  round_ = {};
  if (feeder_.update(task) > 0) round_.trained_samples = static_cast<int>(feeder_.fed());

  std::map<env::Candidate, float> best_seen;
  auto population = initial_population(task);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (int generation = 0;; ++generation) {
    auto scores = score(task, population);
    for (size_t i = 0; i < population.size(); ++i) {
      if (scores[i] != kInvalidScore) best_seen.emplace(population[i], scores[i]);
    }
    if (generation == options_.generations) break;
    // Roulette-wheel selection on scores shifted to be positive; invalid ones never breed.
    float low = std::numeric_limits<float>::infinity(), high = -low;
    for (float s : scores) {
      if (s != kInvalidScore) low = std::min(low, s), high = std::max(high, s);
    }
    if (low > high) break;  // nothing valid to breed from
    float floor = (high - low) * 1e-3f + 1e-12f;
    std::vector<double> weights;
    for (float s : scores) weights.push_back(s == kInvalidScore ? 0.0 : s - low + floor);
    std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
    std::vector<env::Candidate> next;
    next.reserve(population.size());
    for (size_t i = 0; i < population.size(); ++i) {
      env::Candidate child = population[pick(rng_)];
      if (coin(rng_) < options_.mutation_probability) {
        child.knobs = task.sketch(child).knobs.mutate(child.knobs, rng_);
      }
      next.push_back(std::move(child));
    }
    population = std::move(next);
  }

  std::vector<std::pair<float, env::Candidate>> ranked;
  for (auto& [c, s] : best_seen) {
    if (!task.measured(c)) ranked.emplace_back(s, c);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (!ranked.empty()) round_.best_score = ranked.front().first;

  int random_share = static_cast<int>(count * options_.eps_greedy + 0.5);
  std::vector<env::Candidate> out;
  std::set<env::Candidate> chosen;
  for (const auto& [s, c] : ranked) {
    if (static_cast<int>(out.size()) >= count - random_share) break;
    if (chosen.insert(c).second) out.push_back(c);
  }
  for (int attempt = 0; static_cast<int>(out.size()) < count && attempt < count * 50; ++attempt) {
    env::Candidate c = random_candidate(task, rng_);
    if (!task.measured(c) && chosen.insert(c).second) out.push_back(std::move(c));
  }
  round_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace tessera::agents

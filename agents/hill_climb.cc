// Greedy ascent on the cost model (see hill_climb.h).
#include "agents/hill_climb.h"

#include <set>

namespace tessera::agents {
namespace {

// Scores, in one batch, those of `candidates` that `scored` lacks, and adds the scorable ones
// to it. Returns how many were scored.
int score_missing(const env::TuningTask& task, env::ModelFeeder& feeder, const std::vector<env::Candidate>& candidates,
                  std::map<env::Candidate, double>& scored) {
  std::vector<env::Candidate> missing;
  for (const env::Candidate& c : candidates) {
    if (!scored.count(c)) missing.push_back(c);
  }
  const std::vector<float> scores = feeder.score(task, missing);
  for (size_t i = 0; i < missing.size(); ++i) {
    if (scores[i] != env::kUnscorable) scored.emplace(missing[i], scores[i]);
  }
  return static_cast<int>(missing.size());
}

}  // namespace

HillClimbStats hill_climb(const env::TuningTask& task, env::ModelFeeder& feeder, const std::vector<env::Candidate>& starts,
                          int steps, std::map<env::Candidate, double>& scored) {
  HillClimbStats stats;
  score_missing(task, feeder, starts, scored);
  for (const env::Candidate& start : starts) {
    auto known = scored.find(start);
    if (known == scored.end()) continue;
    env::Candidate at = start;
    double score = known->second;
    for (int step = 0; step < steps; ++step) {
      std::vector<env::Candidate> neighbours;
      for (schedule::KnobValues& values : task.sketch(at).knobs.neighbours(at.knobs)) {
        neighbours.push_back({at.sketch, std::move(values)});
      }
      stats.scored += score_missing(task, feeder, neighbours, scored);
      const env::Candidate* best = nullptr;
      double best_score = score;
      for (const env::Candidate& n : neighbours) {
        auto seen = scored.find(n);
        if (seen != scored.end() && seen->second > best_score) best_score = seen->second, best = &n;
      }
      if (!best) break;  // a local optimum of the model
      at = *best, score = best_score;
      ++stats.moves;
    }
  }
  return stats;
}

int scan_two_moves(const env::TuningTask& task, env::ModelFeeder& feeder, const std::vector<env::Candidate>& centres,
                   std::map<env::Candidate, double>& scored) {
  std::set<env::Candidate> ring;
  for (const env::Candidate& centre : centres) {
    const schedule::KnobSpace& space = task.sketch(centre).knobs;
    for (schedule::KnobValues& one : space.neighbours(centre.knobs)) {
      for (schedule::KnobValues& two : space.neighbours(one)) ring.insert({centre.sketch, std::move(two)});
      ring.insert({centre.sketch, std::move(one)});
    }
  }
  return score_missing(task, feeder, {ring.begin(), ring.end()}, scored);
}

}  // namespace tessera::agents

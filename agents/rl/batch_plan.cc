// Composing a batch by plan, and the source bandit's plans (see batch_plan.h).
#include "agents/rl/batch_plan.h"

#include <algorithm>
#include <cmath>

namespace tessera::agents::rl {

Batch compose_batch(const env::TuningTask& task, const Scored& pool, const BatchPlan& plan, std::mt19937_64& rng) {
  Batch batch;
  std::set<env::Candidate> taken;
  auto take = [&](std::vector<env::Candidate> chosen) {
    for (env::Candidate& c : chosen) {
      taken.insert(c);
      batch.candidates.push_back(std::move(c));
    }
  };
  for (const auto& [source, quota] : plan.source_quotas) {
    Scored own;
    std::set<env::Candidate> distinct;
    for (const auto& [score, c] : pool) {
      if (c.source == source && !taken.count(c) && !task.measured(c) && distinct.insert(c).second) {
        own.emplace_back(score, c);
      }
    }
    const int left = plan.count - static_cast<int>(batch.candidates.size());
    const int n = std::min({quota, left, static_cast<int>(own.size())});
    if (n > 0) take(select_batch(task, std::move(own), n, 0.0, rng, {}, plan.spread).candidates);
  }
  const int rest = plan.count - static_cast<int>(batch.candidates.size());
  if (rest <= 0) return batch;
  Scored open;
  for (const auto& [score, c] : pool) {
    if (!taken.count(c)) open.emplace_back(score, c);
  }
  // ε is a share of the whole batch, all of it drawn in this last pass.
  const double epsilon = std::min(1.0, plan.epsilon * plan.count / rest);
  Batch last = select_batch(task, std::move(open), rest, epsilon, rng, plan.sketch_quotas, plan.spread);
  for (env::Candidate& c : last.candidates) {
    if (last.random.count(c)) {
      c.source = kRandomSource;
      batch.random.insert(c);
    }
  }
  take(std::move(last.candidates));
  return batch;
}

std::vector<int> contending_sketches(const env::TuningTask& task, int min_trials, double margin) {
  const size_t sketches = task.sketches().size();
  std::vector<int> trials(sketches, 0);
  std::vector<double> fastest(sketches, 0.0);
  double task_fastest = 0;
  for (const auto& [candidate, m] : task.measurements()) {
    if (m.candidate.sketch < 0 || static_cast<size_t>(m.candidate.sketch) >= sketches) continue;
    const auto s = static_cast<size_t>(m.candidate.sketch);
    ++trials[s];  // failures count: a sketch whose candidates all fail must leave too
    fastest[s] = std::max(fastest[s], m.throughput());
    task_fastest = std::max(task_fastest, m.throughput());
  }
  std::vector<int> out;
  for (size_t s = 0; s < sketches; ++s) {
    if (trials[s] < min_trials || fastest[s] >= margin * task_fastest) out.push_back(static_cast<int>(s));
  }
  return out;
}

std::map<int, int> split_evenly(const std::vector<int>& sketches, int slots) {
  std::map<int, int> out;
  const int n = static_cast<int>(sketches.size());
  for (int i = 0; i < n && slots > 0; ++i) out[sketches[static_cast<size_t>(i)]] = slots / n + (i < slots % n ? 1 : 0);
  return out;
}

std::vector<std::pair<std::string, int>> plan_quotas(const SlidingWindowUcb& bandit,
                                                     const std::vector<std::string>& sources, int slots) {
  const int arms = static_cast<int>(sources.size());
  std::vector<int> quota(sources.size(), 0);
  for (int a = 0; a < arms && slots > 0; ++a, --slots) quota[static_cast<size_t>(a)] = 1;
  std::vector<double> weight(sources.size(), 0);
  double best_played = 0;
  bool any_played = false;
  for (int a = 0; a < arms; ++a) {
    if (bandit.plays(a) == 0) continue;
    weight[static_cast<size_t>(a)] = bandit.upper_bound(a);
    best_played = any_played ? std::max(best_played, weight[static_cast<size_t>(a)]) : weight[static_cast<size_t>(a)];
    any_played = true;
  }
  double total = 0;
  for (int a = 0; a < arms; ++a) {
    double& w = weight[static_cast<size_t>(a)];
    if (bandit.plays(a) == 0) w = any_played ? best_played : 1.0;
    w = std::max(w, 1e-9);
    total += w;
  }
  // Largest remainders: whole parts first, then one more to the largest fractions.
  std::vector<std::pair<double, int>> remainders;
  int given = 0;
  for (int a = 0; a < arms; ++a) {
    const double exact = slots * weight[static_cast<size_t>(a)] / total;
    const int whole = static_cast<int>(std::floor(exact));
    quota[static_cast<size_t>(a)] += whole;
    given += whole;
    remainders.emplace_back(exact - whole, a);
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](auto& x, auto& y) { return x.first > y.first; });
  for (size_t i = 0; given < slots && i < remainders.size(); ++i, ++given) ++quota[static_cast<size_t>(remainders[i].second)];
  std::vector<std::pair<std::string, int>> out;
  for (int a = 0; a < arms; ++a) out.emplace_back(sources[static_cast<size_t>(a)], quota[static_cast<size_t>(a)]);
  return out;
}

void SourcePlanner::reward(const std::vector<env::Measurement>& measured, double best_before) {
  std::map<std::string, double> gain, best;
  double total_gain = 0;
  for (const env::Measurement& m : measured) {
    const std::string& source = m.candidate.source;
    best[source] = std::max(best[source], m.throughput());
    const double g = best_before > 0 ? std::max(0.0, m.throughput() / best_before - 1) : 0.0;
    gain[source] += g;
    total_gain += g;
  }
  for (int a = 0; a < static_cast<int>(sources_.size()); ++a) {
    auto it = best.find(sources_[static_cast<size_t>(a)]);
    if (it == best.end()) continue;  // no candidate of it in this batch: no play
    const double r = total_gain > 0 ? gain[it->first] / total_gain
                                    : (best_before > 0 ? 0.5 * std::min(1.0, it->second / best_before) : 0.0);
    bandit_.reward(a, r);
  }
}

}  // namespace tessera::agents::rl

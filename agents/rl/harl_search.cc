// The harl policy (see harl_search.h).
#include "agents/rl/harl_search.h"

#include <algorithm>
#include <filesystem>

#include "agents/batch.h"
#include "agents/evolutionary_search.h"
#include "agents/unmeasured_values.h"
#include "env/task_env.h"

namespace tessera::agents::rl {
namespace {

constexpr int kTopStarts = 8;
constexpr int kJumpCentres = 2;  // fastest measured whose unmeasured knob values are tried

double best_throughput(const env::TuningTask& task) {
  return task.best() ? task.best()->throughput() : 0.0;
}

// The `n` fastest correctly measured candidates, fastest first: of one sketch, or of all when
// `sketch` is negative.
std::vector<env::Candidate> fastest_measured(const env::TuningTask& task, size_t n, int sketch = -1) {
  std::vector<const env::Measurement*> ok;
  for (const auto& [c, m] : task.measurements()) {
    if (m.ok() && (sketch < 0 || c.sketch == sketch)) ok.push_back(&m);
  }
  n = std::min(n, ok.size());
  std::partial_sort(ok.begin(), ok.begin() + static_cast<long>(n), ok.end(),
                    [](auto* a, auto* b) { return a->seconds() < b->seconds(); });
  std::vector<env::Candidate> out;
  for (size_t i = 0; i < n; ++i) out.push_back(ok[i]->candidate);
  return out;
}

// Where the proxy climbs start: the task's `starts` fastest measured candidates, and each
// sketch's own fastest few, so a sketch the bandit has turned from is still ranked by the
// proxy against the others. Without them, harl on ResNet-50's 7x7 conv settled on the slower
// sketch and stalled at 3/4 of evolutionary's best.
std::vector<env::Candidate> climb_starts(const env::TuningTask& task, int starts) {
  if (starts <= 0) return {};
  std::vector<env::Candidate> out = fastest_measured(task, static_cast<size_t>(starts));
  std::set<env::Candidate> chosen(out.begin(), out.end());
  const size_t per_sketch = static_cast<size_t>(std::max(1, starts / 4));
  for (int sketch = 0; sketch < static_cast<int>(task.sketches().size()); ++sketch) {
    for (env::Candidate& c : fastest_measured(task, per_sketch, sketch)) {
      if (chosen.insert(c).second) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

HarlSearch::HarlSearch(std::shared_ptr<env::CostModel> model, uint64_t seed, HarlOptions options)
    : feeder_(std::move(model)), rng_(seed), options_(std::move(options)),
      exploration_(options_.exploration, options_.adaptive) {}

HarlSearch::Pools HarlSearch::screen_random(const env::TuningTask& task, std::map<env::Candidate, double>& visited) {
  Pools pools;
  for (int sketch = 0; sketch < static_cast<int>(task.sketches().size()); ++sketch) {
    std::vector<env::Candidate> drawn;
    for (int i = 0; i < options_.start_pool; ++i) drawn.push_back(task.sample(rng_, sketch));
    std::vector<float> scores = feeder_.score(task, drawn);
    auto& pool = pools[sketch];
    for (size_t i = 0; i < drawn.size(); ++i) {
      if (scores[i] == kUnscorable) continue;
      pool.emplace_back(scores[i], drawn[i]);
      visited.emplace(drawn[i], scores[i]);
    }
    std::sort(pool.begin(), pool.end());
  }
  return pools;
}

env::Candidate HarlSearch::start_for(const env::TuningTask& task, int sketch, Pools& pools) {
  std::uniform_real_distribution<double> coin(0, 1);
  if (coin(rng_) < options_.start_from_best) {
    std::vector<env::Candidate> bests = fastest_measured(task, kTopStarts, sketch);
    if (!bests.empty()) return bests[std::uniform_int_distribution<size_t>(0, bests.size() - 1)(rng_)];
  }
  auto& pool = pools[sketch];
  if (pool.empty()) return task.sample(rng_, sketch);
  env::Candidate start = pool.back().second;
  pool.pop_back();
  return start;
}

std::string HarlSearch::state_path(int sketch) const {
  return (std::filesystem::path(options_.state_dir) / ("ppo_sketch" + std::to_string(sketch) + ".pt")).string();
}

PpoAgent& HarlSearch::agent_for(int sketch, int observation_size, int actions) {
  auto it = agents_.find(sketch);
  if (it == agents_.end()) {
    PpoOptions o = options_.ppo;
    o.seed = rng_();
    it = agents_.emplace(sketch, PpoAgent(observation_size, actions, o)).first;
    if (!options_.state_dir.empty() && std::filesystem::exists(state_path(sketch))) {
      if (auto loaded = it->second.load(state_path(sketch)); loaded) ++restored_agents_;
      else state_errors_.push_back(loaded.error().message);
    }
  }
  return it->second;
}

void HarlSearch::save_agents() {
  if (options_.state_dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(options_.state_dir, ec);
  for (const auto& [sketch, agent] : agents_) {
    // Written beside and renamed, so a run killed mid-write keeps the previous file.
    const std::string path = state_path(sketch), partial = path + ".partial";
    if (auto saved = agent.save(partial); !saved) {
      state_errors_.push_back(saved.error().message);
      continue;
    }
    std::filesystem::rename(partial, path, ec);
    if (ec) state_errors_.push_back(path + ": " + ec.message());
  }
}

std::vector<env::Candidate> HarlSearch::propose(const env::TuningTask& task, int count) {
  feeder_.update(task);
  if (!bandit_) {
    bandit_ = std::make_unique<SlidingWindowUcb>(static_cast<int>(task.sketches().size()), options_.bandit_window,
                                                 options_.bandit_c);
  }
  round_ = {};
  round_.settings = exploration_.settings();
  if (task.measurements().empty()) {
    // Nothing to learn from or climb from yet: the proxy is untrained, so trajectories on it
    // would teach the agents noise. The first batch is the evolutionary agent's, a population
    // of random draws evolved on the untrained proxy; at the same seed it is the very batch
    // the evolutionary agent measures first, so a comparison of the two starts level.
    EvolutionRound evolution;
    std::vector<env::Candidate> batch = evolved_batch(task, feeder_, options_.evolution, count, rng_, evolution);
    round_.fresh = static_cast<int>(batch.size());
    random_picks_.clear();
    best_before_ = 0;
    return batch;
  }
  const ExplorationSettings& s = round_.settings;
  env::EnvOptions env_options;
  env_options.max_steps = s.trajectory_length;
  env::TaskEnv env(task, feeder_.model(), env_options);

  std::map<env::Candidate, double> visited;
  Pools pools = screen_random(task, visited);
  double gain_sum = 0;
  int improving = 0;
  for (int t = 0; t < s.trajectories; ++t) {
    const int sketch = bandit_->select(rng_);
    auto [observation, info] = env.reset(rng_(), start_for(task, sketch, pools));
    if (!info.valid) std::tie(observation, info) = env.reset(rng_(), sketch);
    if (!info.valid) continue;
    visited.emplace(info.candidate, info.score);
    PpoAgent& agent = agent_for(sketch, env.observation_size(sketch), env.action_count(sketch));
    const double start_score = info.score;
    double best = start_score;
    int last_gain = 0, steps = 0;
    bool terminated = false;
    std::vector<bool> mask = std::move(info.action_mask);
    while (steps < s.trajectory_length && steps - last_gain < s.patience) {
      PpoDecision d = agent.act(observation.flat(), mask);
      if (d.action < 0) {
        terminated = true;
        break;
      }
      env::StepResult r = env.step(d.action);
      agent.record(d, r.reward);
      ++steps;
      observation = std::move(r.observation);
      mask = std::move(r.info.action_mask);
      if (r.info.valid) visited.emplace(r.info.candidate, r.info.score);
      if (r.info.valid && r.info.score > best + 1e-6) best = r.info.score, last_gain = steps;
      if (r.terminated) {
        terminated = true;
        break;
      }
      if (r.truncated) break;
    }
    agent.end_trajectory(terminated ? 0.0 : agent.value(observation.flat()));
    ++round_.trajectories;
    round_.steps += steps;
    gain_sum += best - start_score;
    improving += steps > 0 && last_gain == steps && steps >= s.trajectory_length;
  }
  for (auto& [sketch, agent] : agents_) agent.update();
  save_agents();
  round_.climbed = hill_climb(task, feeder_, climb_starts(task, options_.climb_starts), options_.climb_steps,
                              visited).scored;
  round_.climbed += scan_two_moves(task, feeder_, fastest_measured(task, static_cast<size_t>(options_.wide_starts)),
                                   visited);
  // Once the search stalls: a population evolved as the evolutionary agent does, from the
  // measured bests and random draws, for the batch's fresh share.
  std::map<env::Candidate, double> fresh;
  if (s.fresh_share > 0) {
    EvolutionRound evolution;
    fresh = evolve(task, feeder_, seed_population(task, options_.evolution, rng_), options_.evolution, rng_, evolution);
  }
  round_.visited = static_cast<int>(visited.size());
  round_.gain_per_step = round_.steps ? gain_sum / round_.steps : 0.0;
  round_.share_still_improving = round_.trajectories ? static_cast<double>(improving) / round_.trajectories : 0.0;
  exploration_.after_trajectories(round_.gain_per_step, round_.share_still_improving);

  // The jumps to unmeasured knob values first, then the fresh part, then the rest by score.
  Batch batch;
  if (options_.jump_slots > 0) {
    const std::vector<env::Candidate> jumps =
        unmeasured_values(task, fastest_measured(task, static_cast<size_t>(kJumpCentres)));
    const std::vector<float> scores = feeder_.score(task, jumps);
    std::vector<std::pair<double, env::Candidate>> ranked_jumps;
    for (size_t i = 0; i < jumps.size(); ++i) {
      if (scores[i] != kUnscorable) ranked_jumps.emplace_back(scores[i], jumps[i]);
    }
    batch = select_batch(task, std::move(ranked_jumps), std::min(options_.jump_slots, count), 0.0, rng_, {}, true);
  }
  round_.jumps = static_cast<int>(batch.candidates.size());
  std::set<env::Candidate> taken(batch.candidates.begin(), batch.candidates.end());
  const int fresh_count = std::min(static_cast<int>(count * s.fresh_share + 0.5), count - round_.jumps);
  if (fresh_count > 0) {
    std::vector<std::pair<double, env::Candidate>> fresh_ranked;
    for (const auto& [c, score] : fresh) {
      if (!taken.count(c)) fresh_ranked.emplace_back(score, c);
    }
    Batch evolved = select_batch(task, std::move(fresh_ranked), fresh_count, 0.0, rng_, {}, options_.spread);
    for (env::Candidate& c : evolved.candidates) {
      taken.insert(c);
      batch.candidates.push_back(std::move(c));
    }
  }
  round_.fresh = static_cast<int>(batch.candidates.size()) - round_.jumps;
  std::vector<std::pair<double, env::Candidate>> ranked;
  for (const auto& [c, score] : visited) {
    if (!taken.count(c)) ranked.emplace_back(score, c);
  }
  std::map<int, int> reserved;
  const int sketches = static_cast<int>(task.sketches().size());
  for (int sketch = 0; sketches > 1 && sketch < sketches; ++sketch) {
    reserved[sketch] = static_cast<int>(count * options_.sketch_share / sketches);
  }
  const int rest_count = count - static_cast<int>(batch.candidates.size());
  Batch rest = select_batch(task, std::move(ranked), rest_count, s.epsilon, rng_, reserved, options_.spread);
  batch.candidates.insert(batch.candidates.end(), rest.candidates.begin(), rest.candidates.end());
  random_picks_ = std::move(rest.random);
  best_before_ = best_throughput(task);
  return batch.candidates;
}

void HarlSearch::observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) {
  if (!bandit_) return;
  std::map<int, double> best_by_sketch;
  double random_best = 0, model_best = 0;
  for (const env::Measurement& m : measured) {
    double& b = best_by_sketch[m.candidate.sketch];
    b = std::max(b, m.throughput());
    double& side = random_picks_.count(m.candidate) ? random_best : model_best;
    side = std::max(side, m.throughput());
  }
  // The bandit's reward: how close the sketch's best new candidate came to (or beat) the
  // task's best before this batch, in [0, 1.5].
  const double before = best_before_ > 0 ? best_before_ : std::max(random_best, model_best);
  for (const auto& [sketch, best] : best_by_sketch) {
    bandit_->reward(sketch, before > 0 ? std::min(1.5, best / before) : 0.0);
  }
  if (!random_picks_.empty()) exploration_.after_measurement(random_best, model_best);
  exploration_.after_round(best_before_, best_throughput(task));
}

}  // namespace tessera::agents::rl

// PPO trajectories on the proxy under a sketch bandit (see ppo_source.h).
#include "agents/rl/ppo_source.h"

#include <algorithm>
#include <filesystem>

#include "env/task_env.h"

namespace tessera::agents::rl {
namespace {

constexpr size_t kTopStarts = 8;  // measured bests of a sketch a trajectory may start from

}  // namespace

env::Candidate PpoSource::start_for(const SourceInput& in, int sketch, Starts& starts) {
  std::uniform_real_distribution<double> coin(0, 1);
  if (coin(in.rng) < options_.start_from_best) {
    std::vector<env::Candidate> bests = fastest_measured(in.task, kTopStarts, sketch);
    if (!bests.empty()) return bests[std::uniform_int_distribution<size_t>(0, bests.size() - 1)(in.rng)];
  }
  Scored& pool = starts[sketch];
  if (pool.empty()) return in.task.sample(in.rng, sketch);
  env::Candidate start = pool.back().second;
  pool.pop_back();
  return start;
}

std::string PpoSource::state_path(int sketch) const {
  return (std::filesystem::path(options_.state_dir) / ("ppo_sketch" + std::to_string(sketch) + ".pt")).string();
}

PpoAgent& PpoSource::agent_for(int sketch, int observation_size, int actions, std::mt19937_64& rng) {
  auto it = agents_.find(sketch);
  if (it == agents_.end()) {
    PpoOptions o = options_.ppo;
    o.seed = rng();
    it = agents_.emplace(sketch, PpoAgent(observation_size, actions, o)).first;
    if (!options_.state_dir.empty() && std::filesystem::exists(state_path(sketch))) {
      if (auto loaded = it->second.load(state_path(sketch)); loaded) ++restored_agents_;
      else state_errors_.push_back(loaded.error().message);
    }
  }
  return it->second;
}

void PpoSource::save_agents() {
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

Scored PpoSource::propose(const SourceInput& in) {
  const int sketches = static_cast<int>(in.task.sketches().size());
  if (!bandit_) bandit_ = std::make_unique<SlidingWindowUcb>(sketches, options_.bandit_window, options_.bandit_c);
  Starts starts;
  for (const auto& [score, c] : in.pool) starts[c.sketch].emplace_back(score, c);
  for (auto& [sketch, pool] : starts) std::sort(pool.begin(), pool.end());
  const ExplorationSettings& s = in.settings;
  env::EnvOptions env_options;
  env_options.max_steps = s.trajectory_length;
  env::TaskEnv env(in.task, in.feeder, env_options);
  std::map<env::Candidate, double> visited;
  stats_ = {};
  double gain_sum = 0;
  int improving = 0;
  for (int t = 0; t < s.trajectories; ++t) {
    const int sketch = bandit_->select(in.rng);
    auto [observation, info] = env.reset(in.rng(), start_for(in, sketch, starts));
    if (!info.valid) std::tie(observation, info) = env.reset(in.rng(), sketch);
    if (!info.valid) continue;
    visited.emplace(info.candidate, info.score);
    PpoAgent& agent = agent_for(sketch, env.observation_size(sketch), env.action_count(sketch), in.rng);
    double best = info.score;
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
      terminated = r.terminated;
      if (r.terminated || r.truncated) break;
    }
    agent.end_trajectory(terminated ? 0.0 : agent.value(observation.flat()));
    ++stats_.trajectories;
    stats_.steps += steps;
    gain_sum += best - info.score;
    improving += steps > 0 && last_gain == steps && steps >= s.trajectory_length;
  }
  for (auto& [sketch, agent] : agents_) agent.update();
  save_agents();
  stats_.gain_per_step = stats_.steps ? gain_sum / stats_.steps : 0.0;
  stats_.share_still_improving = stats_.trajectories ? static_cast<double>(improving) / stats_.trajectories : 0.0;
  return tagged(visited, name());
}

void PpoSource::observe(const env::TuningTask&, const std::vector<env::Measurement>& measured, double best_before) {
  if (!bandit_) return;
  std::map<int, double> best_by_sketch;
  double best_new = 0;
  for (const env::Measurement& m : measured) {
    best_new = std::max(best_new, m.throughput());
    if (m.candidate.source != name()) continue;
    double& b = best_by_sketch[m.candidate.sketch];
    b = std::max(b, m.throughput());
  }
  // How close the sketch's best new candidate came to (or beat) the best before, in [0, 1.5].
  const double before = best_before > 0 ? best_before : best_new;
  for (const auto& [sketch, best] : best_by_sketch) {
    bandit_->reward(sketch, before > 0 ? std::min(1.5, best / before) : 0.0);
  }
}

}  // namespace tessera::agents::rl

// The harl policy: its sources, the round's plan and the rewards (see harl_search.h).
#include "agents/rl/harl_search.h"

#include <cmath>
#include <iterator>

#include "agents/rl/climb_source.h"
#include "agents/rl/evolved_source.h"
#include "agents/rl/jump_source.h"
#include "agents/rl/scan_source.h"
#include "agents/rl/screened_source.h"

namespace tessera::agents::rl {
namespace {

double best_throughput(const env::TuningTask& task) { return task.best() ? task.best()->throughput() : 0.0; }

// The sources `options` enable, in the order they propose.
std::vector<std::unique_ptr<CandidateSource>> make_sources(const HarlOptions& o) {
  std::vector<std::unique_ptr<CandidateSource>> out;
  if (o.start_pool > 0) out.push_back(std::make_unique<ScreenedSource>(o.start_pool));
  out.push_back(std::make_unique<PpoSource>(PpoSourceOptions{o.start_from_best, o.bandit_window, o.bandit_c, o.ppo, o.state_dir}));
  if (o.climb_starts > 0) out.push_back(std::make_unique<ClimbSource>(o.climb_starts, o.climb_steps));
  if (o.wide_starts > 0) out.push_back(std::make_unique<ScanSource>(o.wide_starts));
  out.push_back(std::make_unique<EvolvedSource>(o.evolution, o.evolved_population));
  if (o.jump_centres > 0) out.push_back(std::make_unique<JumpSource>(o.jump_centres));
  return out;
}

std::vector<std::string> names_of(const std::vector<std::unique_ptr<CandidateSource>>& sources) {
  std::vector<std::string> out;
  for (const auto& s : sources) out.push_back(s->name());
  return out;
}

int share_of(int count, double share) { return static_cast<int>(std::lround(count * share)); }

}  // namespace

HarlSearch::HarlSearch(std::shared_ptr<env::CostModel> model, uint64_t seed, HarlOptions options)
    : feeder_(std::move(model)), rng_(seed), options_(std::move(options)),
      exploration_(options_.exploration, options_.adaptive), sources_(make_sources(options_)),
      planner_(names_of(sources_), options_.source_window, options_.source_c) {
  for (const auto& s : sources_) {
    if (s->name() == "ppo") ppo_ = static_cast<PpoSource*>(s.get());
    if (s->name() == "evolved") evolved_ = s.get();
  }
}

BatchPlan HarlSearch::plan(const env::TuningTask& task, int count) const {
  BatchPlan p;
  p.count = count;
  if (task.measurements().empty()) {  // the first round: the evolutionary agent's batch
    p.epsilon = options_.evolution.eps_greedy;
    return p;
  }
  const ExplorationSettings& s = round_.settings;
  p.epsilon = s.epsilon;
  p.spread = options_.spread;
  p.source_quotas = planner_.quotas(share_of(count, options_.plan_share));
  for (auto& [source, quota] : p.source_quotas) {
    if (source == evolved_->name()) quota += share_of(count, s.fresh_share);
  }
  if (task.sketches().size() > 1) {
    p.sketch_quotas = split_evenly(contending_sketches(task, options_.sketch_trials, options_.sketch_margin),
                                   share_of(count, options_.sketch_share));
  }
  return p;
}

std::vector<env::Candidate> HarlSearch::propose(const env::TuningTask& task, int count) {
  feeder_.update(task);
  round_ = {};
  round_.settings = exploration_.settings();
  round_.plan = plan(task, count);
  const bool first = task.measurements().empty();
  Scored pool;
  for (const auto& source : sources_) {
    if (first && source.get() != evolved_) continue;  // the first round's plan has evolved alone
    Scored found = source->propose({task, feeder_, rng_, round_.settings, pool});
    round_.proposed[source->name()] = static_cast<int>(found.size());
    pool.insert(pool.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }
  if (!first) {
    round_.trajectories = ppo_->last_round();
    exploration_.after_trajectories(round_.trajectories.gain_per_step, round_.trajectories.share_still_improving);
  }
  Batch batch = compose_batch(task, pool, round_.plan, rng_);
  for (const env::Candidate& c : batch.candidates) ++round_.batch[c.source];
  random_picks_ = first ? std::set<env::Candidate>{} : std::move(batch.random);
  best_before_ = best_throughput(task);
  proposed_ = true;
  planned_ = !first;
  return batch.candidates;
}

void HarlSearch::observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) {
  if (!proposed_) return;
  if (planned_) planner_.reward(measured, best_before_);
  for (const auto& source : sources_) source->observe(task, measured, best_before_);
  double random_best = 0, model_best = 0;
  for (const env::Measurement& m : measured) {
    double& side = random_picks_.count(m.candidate) ? random_best : model_best;
    side = std::max(side, m.throughput());
  }
  if (!random_picks_.empty()) exploration_.after_measurement(random_best, model_best);
  exploration_.after_round(best_before_, best_throughput(task));
}

}  // namespace tessera::agents::rl

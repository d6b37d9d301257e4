// HarlSearch: the `harl` policy — candidate sources under a learned batch plan.
//
// Each round (one `propose`) the shared cost model first learns from the measurements it has
// not seen. Then the candidate sources (candidate_source.h) propose scored, tagged candidates
// in turn, each seeing what the ones before it proposed:
//   screened  random draws of every sketch screened by the proxy   (screened_source.h)
//   ppo       PPO trajectories on bandit-chosen sketches          (ppo_source.h)
//   climb     greedy proxy climbs from the fastest measured        (climb_source.h)
//   scan      two-move neighbourhoods of the fastest measured      (scan_source.h)
//   evolved   a population evolved on the proxy                    (evolved_source.h)
//   jump      the fastest measured moved to unmeasured knob values (jump_source.h)
// and compose_batch (batch_plan.h) fills the batch by the round's plan: quotas per source
// (`plan_share` of the batch, split by a sliding-window UCB bandit over the sources, rewarded
// by each source's share of the measured improvement), the evolved source's extra
// `fresh_share` (AdaptiveExploration: it grows while the best stalls), `sketch_share` of the
// batch split among the sketches still in contention (contending_sketches), the rest by score,
// and ε at random. The exploration settings
// adapt to the trajectories' gains and to whether the random picks beat the model's.
//
// The first round, with nothing measured, is simply a plan: the evolved source alone, its
// best-scored with the evolutionary agent's ε — the evolutionary agent's first batch at the
// same seed, so the two start level (the untrained proxy gives nothing to climb on).
//
// Every candidate carries its source's tag (env::Candidate::source) into its record, so runs
// credit each source for what it found (TuningTask::credit). Benchmark history: bench/NOTES.md.
#pragma once

#include <memory>
#include <random>
#include <set>

#include "agents/adaptive_exploration.h"
#include "agents/evolutionary_search.h"
#include "env/model_feeder.h"
#include "agents/rl/batch_plan.h"
#include "agents/rl/ppo_source.h"
#include "agents/search_agent.h"

namespace tessera::agents::rl {

struct HarlOptions {
  ExplorationSettings exploration;
  bool adaptive = true;
  int start_pool = 1024;   // random candidates the proxy screens per sketch and round (0: none)
  int climb_starts = 16;   // proxy climbs from the fastest measured, plus a quarter per sketch (0: none)
  int climb_steps = 4;
  int wide_starts = 2;     // fastest measured whose two-move neighbourhood is scored (0: none)
  int jump_centres = 2;    // fastest measured moved to unmeasured knob values (0: none)
  bool spread = true;      // batches skip candidates one knob from one they hold while others are left
  EvolutionOptions evolution;  // the evolved source's, and the first round's ε
  int evolved_population = 1024;  // the evolved source's population once anything is measured
  double plan_share = 0.5;     // of each batch, given to sources by the source bandit
  double sketch_share = 0.25;  // of each batch, split evenly among the sketches in contention:
  int sketch_trials = 16;      // those with fewer measurements than this,
  double sketch_margin = 0.8;  // and those whose fastest is at least this share of the task's
  int source_window = 32;      // batches' rewards the source bandit remembers (per source)
  double source_c = 0.3;       // the source bandit's exploration constant
  double start_from_best = 0.7;
  int bandit_window = 64;      // of the PPO source's sketch bandit
  double bandit_c = 0.5;
  PpoOptions ppo;
  std::string state_dir;  // empty: PPO agents are not kept
};

struct HarlRound {
  std::map<std::string, int> proposed;  // scored candidates each source proposed
  std::map<std::string, int> batch;     // of the batch, per source ("random": the ε picks)
  BatchPlan plan;                       // the plan the batch was composed by
  TrajectoryStats trajectories;         // the PPO source's (none in the first round)
  ExplorationSettings settings;         // those the round ran with
};

class HarlSearch : public SearchAgent {
 public:
  HarlSearch(std::shared_ptr<env::CostModel> model, uint64_t seed, HarlOptions options = {});
  std::string name() const override { return options_.adaptive ? "harl" : "harl_fixed"; }  // as registered
  bool tags_sources() const override { return true; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override;
  void observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) override;

  const HarlRound& last_round() const { return round_; }
  const SourcePlanner& planner() const { return planner_; }
  const SlidingWindowUcb* bandit() const { return ppo_->bandit(); }  // the PPO source's, over sketches
  const AdaptiveExploration& exploration() const { return exploration_; }
  int restored_agents() const { return ppo_->restored_agents(); }
  const std::vector<std::string>& state_errors() const { return ppo_->state_errors(); }

 private:
  BatchPlan plan(const env::TuningTask& task, int count) const;

  env::ModelFeeder feeder_;
  std::mt19937_64 rng_;
  HarlOptions options_;
  AdaptiveExploration exploration_;
  std::vector<std::unique_ptr<CandidateSource>> sources_;
  PpoSource* ppo_ = nullptr;             // of sources_
  CandidateSource* evolved_ = nullptr;   // of sources_
  SourcePlanner planner_;
  HarlRound round_;
  std::set<env::Candidate> random_picks_;  // of the last batch
  double best_before_ = 0;                 // the task's best throughput before the last batch
  bool proposed_ = false, planned_ = false;
};

}  // namespace tessera::agents::rl

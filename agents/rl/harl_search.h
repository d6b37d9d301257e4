// HarlSearch: the `harl` policy — learned decisions at every level of one task's search.
//
// The first round, with nothing measured, proposes the evolutionary agent's batch
// (evolved_batch): the proxy is untrained, so there is nothing to learn from or climb on yet.
// Each later round (one `propose`):
//   1. the shared cost model learns from the measurements it has not seen, and scores a pool
//      of `start_pool` random candidates of every sketch (as Ansor seeds its population);
//   2. for each trajectory, a sliding-window UCB bandit picks a sketch; the trajectory starts
//      from one of that sketch's measured bests (with probability `start_from_best`) or from
//      the best-scored unused candidate of its pool, and the sketch's PPO agent edits one
//      knob per step in the TaskEnv, rewarded by the change in the proxy's score; it stops
//      after `patience` steps without a gain or at the length limit;
//   3. the PPO agents update on their trajectories; the exploration settings adapt to the
//      observed gain (AdaptiveExploration);
//   4. greedy climbs on the proxy (hill_climb.h) from the task's fastest measured candidates,
//      and from each sketch's own fastest few, score their one-move neighbourhoods; the
//      `wide_starts` fastest have their whole two-move neighbourhood scored;
//   5. `jump_slots` of the batch (none by default) go to the best-scored jumps of the two
//      fastest measured to knob values no measured candidate has (unmeasured_values.h), which
//      no chain of lower-scoring moves reaches; a `fresh_share` (AdaptiveExploration: it grows
//      while the task's best stalls) goes to the best-scored of a population evolved as the
//      evolutionary agent evolves its own (evolve(): the measured bests and random draws, four
//      generations of score-weighted selection and mutation);
//   6. the rest is the best-scored distinct unmeasured candidates the trajectories and climbs
//      visited (the screened pools included), plus an ε share of random ones. A `sketch_share`
//      of it is split evenly among the sketches, each filling its part with its own
//      best-scored: the proxy compares candidates of one sketch better than across sketches,
//      and without the share a sketch it underrates goes unmeasured (harl on BERT's attention
//      output put 56-64 of every 64 trials into the sketch that evolutionary beat).
// `observe` rewards the bandit per sketch with the best measured throughput of its candidates
// relative to the task's best before the round, and tells the exploration whether random
// picks beat the model's.
//
// With a `state_dir`, each sketch's PPO agent is saved there after every update and restored
// from there when first needed, so a resumed tuning run keeps what its agents learned (the
// proxy retrains from the records; the bandit and exploration settings adapt afresh).
#pragma once

#include <map>
#include <memory>
#include <random>
#include <set>

#include "agents/adaptive_exploration.h"
#include "agents/evolutionary_search.h"
#include "agents/hill_climb.h"
#include "agents/model_feeder.h"
#include "agents/rl/ppo.h"
#include "agents/search_agent.h"
#include "agents/sliding_window_ucb.h"

namespace tessera::agents::rl {

struct HarlOptions {
  ExplorationSettings exploration;
  bool adaptive = true;
  int bandit_window = 64;
  double bandit_c = 0.5;
  double start_from_best = 0.7;
  int start_pool = 1024;  // random candidates the proxy screens per sketch and round: they seed
                          // fresh trajectories and compete for the batch, as Ansor's population
  int climb_starts = 16;  // proxy climbs per round from the fastest measured candidates (plus
                          // each sketch's fastest climb_starts / 4); 0: none
  int climb_steps = 4;
  int wide_starts = 2;    // of the fastest measured, whose whole two-move neighbourhood the
                          // proxy scores each round (scan_two_moves); 0: none
  int jump_slots = 0;     // of each batch, for the best-scored jumps of the two fastest measured
                          // to knob values nothing measured has (unmeasured_values.h)
  bool spread = true;     // batches skip candidates one knob from one they hold while others
                          // are left (select_batch)
  EvolutionOptions evolution;  // of the population the fresh share is drawn from
  double sketch_share = 0.25;  // of each batch, split evenly among the sketches for each one's
                               // best-scored candidates, whatever the proxy thinks across them
  PpoOptions ppo;
  std::string state_dir;  // empty: agents are not kept
};

struct HarlRound {
  int trajectories = 0, steps = 0, visited = 0;
  int climbed = 0;  // candidates the climbs and two-move scans scored
  int jumps = 0;    // of the batch, jumps to unmeasured knob values
  int fresh = 0;    // of the batch, from the evolved population (ExplorationSettings::fresh_share)
  double gain_per_step = 0, share_still_improving = 0;
  ExplorationSettings settings;  // those the round ran with
};

class HarlSearch : public SearchAgent {
 public:
  HarlSearch(std::shared_ptr<env::CostModel> model, uint64_t seed, HarlOptions options = {});
  std::string name() const override { return options_.adaptive ? "harl" : "harl_fixed"; }  // as registered
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override;
  void observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) override;

  const HarlRound& last_round() const { return round_; }
  const SlidingWindowUcb* bandit() const { return bandit_.get(); }
  const AdaptiveExploration& exploration() const { return exploration_; }
  int restored_agents() const { return restored_agents_; }
  // Agent files that could not be read or written (the agent then starts afresh / goes unsaved).
  const std::vector<std::string>& state_errors() const { return state_errors_; }

 private:
  // Scored candidates of one round: the screened start pools, per sketch, best last.
  using Pools = std::map<int, std::vector<std::pair<double, env::Candidate>>>;
  // Draws `start_pool` random candidates of every sketch, scores them (into `visited` too) and
  // sorts each sketch's pool, best last.
  Pools screen_random(const env::TuningTask& task, std::map<env::Candidate, double>& visited);
  // A trajectory's start: one of the sketch's fastest measured, or its pool's best unused.
  env::Candidate start_for(const env::TuningTask& task, int sketch, Pools& pools);
  PpoAgent& agent_for(int sketch, int observation_size, int actions);
  std::string state_path(int sketch) const;
  void save_agents();

  ModelFeeder feeder_;
  std::mt19937_64 rng_;
  HarlOptions options_;
  AdaptiveExploration exploration_;
  std::unique_ptr<SlidingWindowUcb> bandit_;
  std::map<int, PpoAgent> agents_;          // per sketch
  std::set<env::Candidate> random_picks_;   // of the last batch
  double best_before_ = 0;                  // task's best throughput before the last batch
  HarlRound round_;
  int restored_agents_ = 0;
  std::vector<std::string> state_errors_;
};

}  // namespace tessera::agents::rl

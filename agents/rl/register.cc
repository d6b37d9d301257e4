// Registry entries of the learned agents (see register.h). harl's parameters are declared
// once here (option_params.h): name, kind, bound, help and the HarlOptions member each fills;
// defaults are HarlOptions' own initializers.
#include "agents/rl/register.h"

#include <mutex>

#include "agents/option_params.h"
#include "agents/registry.h"
#include "agents/rl/harl_search.h"

namespace tessera::agents::rl {
namespace {

using Kind = AgentParam::Kind;
using O = HarlOptions;

const OptionParams<O>& harl_params() {
  static const OptionParams<O> params{{
      param<O>("trajectories", Kind::kInteger, 1, "PPO trajectories on the proxy per round (start value)",
               [](O& o) -> int& { return o.exploration.trajectories; }),
      param<O>("trajectory_length", Kind::kInteger, 1, "steps per trajectory (start value)",
               [](O& o) -> int& { return o.exploration.trajectory_length; }),
      param<O>("patience", Kind::kInteger, 1, "steps without a predicted gain before a trajectory stops",
               [](O& o) -> int& { return o.exploration.patience; }),
      param<O>("eps_greedy", Kind::kProbability, 0, "share of each batch drawn at random (start value)",
               [](O& o) -> double& { return o.exploration.epsilon; }),
      param<O>("start_from_best", Kind::kProbability, 0, "chance a trajectory starts at a measured best",
               [](O& o) -> double& { return o.start_from_best; }),
      param<O>("start_pool", Kind::kInteger, 0,
               "random candidates the proxy screens per sketch and round (the screened source; 0: none)",
               [](O& o) -> int& { return o.start_pool; }),
      param<O>("climb_starts", Kind::kInteger, 0,
               "greedy proxy climbs per round from the fastest measured, plus a quarter as many per sketch (0: none)",
               [](O& o) -> int& { return o.climb_starts; }),
      param<O>("climb_steps", Kind::kInteger, 0, "moves per climb at most", [](O& o) -> int& { return o.climb_steps; }),
      param<O>("wide_starts", Kind::kInteger, 0,
               "fastest measured whose two-move neighbourhood the proxy scores each round (the scan source; 0: none)",
               [](O& o) -> int& { return o.wide_starts; }),
      param<O>("jump_centres", Kind::kInteger, 0,
               "fastest measured moved to knob values nothing measured has (the jump source; 0: none)",
               [](O& o) -> int& { return o.jump_centres; }),
      param<O>("population", Kind::kInteger, 1,
               "the evolved source's population once anything is measured (the first round's is the evolutionary agent's, 2048)",
               [](O& o) -> int& { return o.evolved_population; }),
      param<O>("generations", Kind::kInteger, 0, "generations the evolved source breeds on the proxy per round",
               [](O& o) -> int& { return o.evolution.generations; }),
      param<O>("plan_share", Kind::kProbability, 0, "share of each batch the source bandit splits among the sources",
               [](O& o) -> double& { return o.plan_share; }),
      param<O>("sketch_share", Kind::kProbability, 0,
               "share of each batch split evenly among the sketches in contention, for each one's best-scored candidates",
               [](O& o) -> double& { return o.sketch_share; }),
      param<O>("sketch_trials", Kind::kInteger, 1,
               "measurements (failed ones included) a sketch keeps its share for before it must be within sketch_margin",
               [](O& o) -> int& { return o.sketch_trials; }),
      param<O>("sketch_margin", Kind::kProbability, 0,
               "a sketch keeps its share while its fastest is at least this share of the task's fastest",
               [](O& o) -> double& { return o.sketch_margin; }),
      param<O>("spread", Kind::kBoolean, 0, "true: a batch takes a candidate one knob from one it holds only when no other is left",
               [](O& o) -> bool& { return o.spread; }),
      param<O>("source_window", Kind::kInteger, 1, "plays the source bandit remembers",
               [](O& o) -> int& { return o.source_window; }),
      param<O>("source_c", Kind::kNumber, 0, "the source bandit's exploration constant",
               [](O& o) -> double& { return o.source_c; }),
      param<O>("bandit_window", Kind::kInteger, 1, "plays the PPO source's sketch bandit remembers",
               [](O& o) -> int& { return o.bandit_window; }),
      param<O>("bandit_c", Kind::kNumber, 0, "the sketch bandit's exploration constant",
               [](O& o) -> double& { return o.bandit_c; }),
  }};
  return params;
}

std::unique_ptr<SearchAgent> make_harl(const AgentParams& p, const AgentContext& c, bool adaptive) {
  O start;
  start.state_dir = c.state_dir;
  start.adaptive = adaptive;
  return std::make_unique<HarlSearch>(c.cost_model, c.seed, harl_params().fill(p, start));
}

}  // namespace

void register_rl_agents() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_agent({"harl",
                    "hierarchical RL: candidate sources (screened, PPO, climbs, scans, evolved, jumps) under a "
                    "bandit-learned batch plan, adaptive exploration",
                    harl_params().declared(), true,
                    [](const AgentParams& p, const AgentContext& c) { return make_harl(p, c, true); }});
    register_agent({"harl_fixed", "harl with fixed exploration settings (ablation baseline)",
                    harl_params().declared(), true,
                    [](const AgentParams& p, const AgentContext& c) { return make_harl(p, c, false); }});
  });
}

}  // namespace tessera::agents::rl

// Registry entries of the learned agents (see register.h).
#include "agents/rl/register.h"

#include <mutex>

#include "agents/registry.h"
#include "agents/rl/harl_search.h"

namespace tessera::agents::rl {
namespace {

using Kind = AgentParam::Kind;

std::vector<AgentParam> harl_params() {
  return {{"trajectories", Kind::kInteger, 1, 32, "PPO trajectories on the proxy per round (start value)"},
          {"trajectory_length", Kind::kInteger, 1, 16, "steps per trajectory (start value)"},
          {"patience", Kind::kInteger, 1, 4, "steps without a predicted gain before a trajectory stops"},
          {"eps_greedy", Kind::kProbability, 0, 0.05, "share of each batch drawn at random (start value)"},
          {"start_from_best", Kind::kProbability, 0, 0.7, "chance a trajectory starts at a measured best"},
          {"start_pool", Kind::kInteger, 1, 1024, "random candidates the proxy screens per sketch and round (fresh starts, batch candidates)"},
          {"climb_starts", Kind::kInteger, 0, 16, "greedy proxy climbs per round from the fastest measured candidates, plus a quarter as many per sketch (0: none)"},
          {"climb_steps", Kind::kInteger, 0, 4, "moves per climb at most"},
          {"wide_starts", Kind::kInteger, 0, 2, "fastest measured candidates whose two-move neighbourhood the proxy scores each round"},
          {"sketch_share", Kind::kProbability, 0, 0.25, "share of each batch split evenly among the sketches, for each one's best-scored candidates"},
          {"jump_slots", Kind::kInteger, 0, 0, "of each batch, for jumps of the fastest measured to knob values nothing measured has (0: none)"},
          {"spread", Kind::kInteger, 0, 1, "1: a batch takes a candidate one knob from one it holds only when no other is left (0: off)"},
          {"bandit_window", Kind::kInteger, 1, 64, "plays the sketch bandit remembers"},
          {"bandit_c", Kind::kNumber, 0, 0.5, "the bandit's exploration constant"}};
}

HarlOptions harl_options(const AgentParams& p, const AgentContext& c, bool adaptive) {
  HarlOptions o;
  o.state_dir = c.state_dir;
  o.exploration.trajectories = static_cast<int>(p.at("trajectories"));
  o.exploration.trajectory_length = static_cast<int>(p.at("trajectory_length"));
  o.exploration.patience = static_cast<int>(p.at("patience"));
  o.exploration.epsilon = p.at("eps_greedy");
  o.start_from_best = p.at("start_from_best");
  o.start_pool = static_cast<int>(p.at("start_pool"));
  o.climb_starts = static_cast<int>(p.at("climb_starts"));
  o.climb_steps = static_cast<int>(p.at("climb_steps"));
  o.wide_starts = static_cast<int>(p.at("wide_starts"));
  o.sketch_share = p.at("sketch_share");
  o.spread = p.at("spread") > 0;
  o.jump_slots = static_cast<int>(p.at("jump_slots"));
  o.bandit_window = static_cast<int>(p.at("bandit_window"));
  o.bandit_c = p.at("bandit_c");
  o.adaptive = adaptive;
  return o;
}

}  // namespace

void register_rl_agents() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_agent({"harl",
                    "hierarchical RL: UCB sketch bandit, PPO knob agents on the proxy, adaptive exploration",
                    harl_params(), true, [](const AgentParams& p, const AgentContext& c) {
                      return std::make_unique<HarlSearch>(c.cost_model, c.seed, harl_options(p, c, true));
                    }});
    register_agent({"harl_fixed",
                    "harl with fixed exploration settings (ablation baseline)", harl_params(), true,
                    [](const AgentParams& p, const AgentContext& c) {
                      return std::make_unique<HarlSearch>(c.cost_model, c.seed, harl_options(p, c, false));
                    }});
  });
}

}  // namespace tessera::agents::rl

// Registers the learned agents of agents/rl/ (LibTorch) in the agent registry: `harl`, and
// `harl_fixed` (the same with fixed exploration settings: the ablation baseline). Idempotent; experiments/ calls it before reading configs.
#pragma once

namespace tessera::agents::rl {

void register_rl_agents();

}  // namespace tessera::agents::rl

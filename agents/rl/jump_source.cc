// Jumps to unmeasured knob values (see jump_source.h).
#include "agents/rl/jump_source.h"

#include "agents/unmeasured_values.h"

namespace tessera::agents::rl {

Scored JumpSource::propose(const SourceInput& in) {
  std::vector<env::Candidate> jumps =
      unmeasured_values(in.task, fastest_measured(in.task, static_cast<size_t>(centres_)));
  const std::vector<float> scores = in.feeder.score(in.task, jumps);
  Scored out;
  for (size_t i = 0; i < jumps.size(); ++i) {
    if (scores[i] == env::kUnscorable) continue;
    jumps[i].source = name();
    out.emplace_back(scores[i], std::move(jumps[i]));
  }
  return out;
}

}  // namespace tessera::agents::rl

// Proxy-screened random candidates (see screened_source.h).
#include "agents/rl/screened_source.h"

namespace tessera::agents::rl {

Scored ScreenedSource::propose(const SourceInput& in) {
  Scored out;
  for (int sketch = 0; sketch < static_cast<int>(in.task.sketches().size()); ++sketch) {
    std::vector<env::Candidate> drawn;
    for (int i = 0; i < per_sketch_; ++i) drawn.push_back(in.task.sample(in.rng, sketch));
    const std::vector<float> scores = in.feeder.score(in.task, drawn);
    for (size_t i = 0; i < drawn.size(); ++i) {
      if (scores[i] == env::kUnscorable) continue;
      drawn[i].source = name();
      out.emplace_back(scores[i], std::move(drawn[i]));
    }
  }
  return out;
}

}  // namespace tessera::agents::rl

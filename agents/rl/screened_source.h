// ScreenedSource ("screened"): uniform random candidates of every sketch, `per_sketch` of each,
// screened by the proxy — as Ansor seeds its population. Its best-scored also compete for the
// batch, and the PPO source starts fresh trajectories from them (SourceInput::pool).
#pragma once

#include "agents/rl/candidate_source.h"

namespace tessera::agents::rl {

class ScreenedSource : public CandidateSource {
 public:
  explicit ScreenedSource(int per_sketch) : per_sketch_(per_sketch) {}
  static constexpr const char* kName = "screened";
  std::string name() const override { return kName; }
  Scored propose(const SourceInput& input) override;

 private:
  int per_sketch_;
};

}  // namespace tessera::agents::rl

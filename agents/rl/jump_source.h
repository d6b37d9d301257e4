// JumpSource ("jump"): the task's `centres` fastest measured with one knob set to a value no
// measured candidate of their sketch holds (unmeasured_values.h), scored by the proxy: values
// several moves away that no chain of lower-scoring moves reaches.
#pragma once

#include "agents/rl/candidate_source.h"

namespace tessera::agents::rl {

class JumpSource : public CandidateSource {
 public:
  explicit JumpSource(int centres) : centres_(centres) {}
  std::string name() const override { return "jump"; }
  Scored propose(const SourceInput& input) override;

 private:
  int centres_;
};

}  // namespace tessera::agents::rl

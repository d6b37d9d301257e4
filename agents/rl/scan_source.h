// ScanSource ("scan"): the proxy scores every candidate within two moves of the task's
// `centres` fastest measured (scan_two_moves, hill_climb.h) — the pairs of moves a greedy
// climb cannot take because their first step scores lower.
#pragma once

#include "agents/rl/candidate_source.h"

namespace tessera::agents::rl {

class ScanSource : public CandidateSource {
 public:
  explicit ScanSource(int centres) : centres_(centres) {}
  std::string name() const override { return "scan"; }
  Scored propose(const SourceInput& input) override;

 private:
  int centres_;
};

}  // namespace tessera::agents::rl

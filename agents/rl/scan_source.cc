// Two-move neighbourhoods of the fastest measured (see scan_source.h).
#include "agents/rl/scan_source.h"

#include "agents/hill_climb.h"

namespace tessera::agents::rl {

Scored ScanSource::propose(const SourceInput& in) {
  if (centres_ <= 0) return {};
  std::map<env::Candidate, double> scored;
  scan_two_moves(in.task, in.feeder, fastest_measured(in.task, static_cast<size_t>(centres_)), scored);
  return tagged(scored, name());
}

}  // namespace tessera::agents::rl

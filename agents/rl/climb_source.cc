// Greedy proxy climbs from the fastest measured (see climb_source.h).
#include "agents/rl/climb_source.h"

#include <algorithm>
#include <set>

#include "agents/hill_climb.h"

namespace tessera::agents::rl {

std::vector<env::Candidate> climb_starts(const env::TuningTask& task, int starts) {
  if (starts <= 0) return {};
  std::vector<env::Candidate> out = fastest_measured(task, static_cast<size_t>(starts));
  std::set<env::Candidate> chosen(out.begin(), out.end());
  const size_t per_sketch = static_cast<size_t>(std::max(1, starts / 4));
  for (int sketch = 0; sketch < static_cast<int>(task.sketches().size()); ++sketch) {
    for (env::Candidate& c : fastest_measured(task, per_sketch, sketch)) {
      if (chosen.insert(c).second) out.push_back(std::move(c));
    }
  }
  return out;
}

Scored ClimbSource::propose(const SourceInput& in) {
  std::map<env::Candidate, double> scored;
  hill_climb(in.task, in.feeder, climb_starts(in.task, starts_), steps_, scored);
  return tagged(scored, name());
}

}  // namespace tessera::agents::rl

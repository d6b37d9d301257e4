// Jumps to knob values nothing measured has (see unmeasured_values.h).
#include "agents/unmeasured_values.h"

#include <map>
#include <set>

namespace tessera::agents {

std::vector<env::Candidate> unmeasured_values(const env::TuningTask& task, const std::vector<env::Candidate>& centres) {
  // Per sketch, the values its measured candidates hold on each knob.
  std::map<int, std::vector<std::set<int>>> held;
  for (const auto& [c, m] : task.measurements()) {
    auto& knobs = held[c.sketch];
    knobs.resize(c.knobs.size());
    for (size_t k = 0; k < c.knobs.size(); ++k) knobs[k].insert(c.knobs[k]);
  }
  std::vector<env::Candidate> out;
  std::set<env::Candidate> seen;
  for (const env::Candidate& centre : centres) {
    const std::vector<schedule::Knob>& knobs = task.sketch(centre).knobs.knobs();
    const std::vector<std::set<int>>& values = held[centre.sketch];
    for (size_t k = 0; k < knobs.size(); ++k) {
      for (int v = 0; v < static_cast<int>(knobs[k].domain.size()); ++v) {
        if (k < values.size() && values[k].count(v)) continue;
        env::Candidate jump = centre;
        jump.knobs[k] = v;
        if (seen.insert(jump).second) out.push_back(std::move(jump));
      }
    }
  }
  return out;
}

}  // namespace tessera::agents

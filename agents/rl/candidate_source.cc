// Helpers shared by harl's candidate sources (see candidate_source.h).
#include "agents/rl/candidate_source.h"

#include <algorithm>

namespace tessera::agents::rl {

Scored tagged(const std::map<env::Candidate, double>& scored, const std::string& source) {
  Scored out;
  out.reserve(scored.size());
  for (const auto& [c, score] : scored) {
    out.emplace_back(score, c);
    out.back().second.source = source;
  }
  return out;
}

std::vector<env::Candidate> fastest_measured(const env::TuningTask& task, size_t n, int sketch) {
  std::vector<const env::Measurement*> ok;
  for (const auto& [c, m] : task.measurements()) {
    if (m.ok() && (sketch < 0 || c.sketch == sketch)) ok.push_back(&m);
  }
  n = std::min(n, ok.size());
  std::partial_sort(ok.begin(), ok.begin() + static_cast<long>(n), ok.end(),
                    [](auto* a, auto* b) { return a->seconds() < b->seconds(); });
  std::vector<env::Candidate> out;
  for (size_t i = 0; i < n; ++i) out.push_back(ok[i]->candidate);
  return out;
}

}  // namespace tessera::agents::rl

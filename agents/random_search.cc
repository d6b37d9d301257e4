// Random search and propose_tagged (see random_search.h, search_agent.h).
#include "agents/random_search.h"

#include <set>

namespace tessera::agents {

std::vector<env::Candidate> propose_tagged(SearchAgent& agent, const env::TuningTask& task, int count) {
  std::vector<env::Candidate> out = agent.propose(task, count);
  const bool own = agent.tags_sources();
  for (env::Candidate& c : out) {
    if (!own || c.source.empty()) c.source = agent.name();
  }
  return out;
}

std::vector<env::Candidate> RandomSearch::propose(const env::TuningTask& task, int count) {
  std::vector<env::Candidate> out;
  std::set<env::Candidate> chosen;
  for (int attempt = 0; static_cast<int>(out.size()) < count && attempt < count * 50; ++attempt) {
    env::Candidate c = task.sample(rng_);
    if (task.measured(c) || !chosen.insert(c).second) continue;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace tessera::agents

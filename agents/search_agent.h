// The agent interface: ask / tell over a TuningTask's candidates.
//
// An agent proposes a batch of candidates (sketch + knob values); the tuning loop measures
// them through the TuningTask and hands the measurements back. Agents see only the task's
// sketches, knob spaces and measurements — never the builder or runner.
//
// Adding an agent: implement SearchAgent in agents/<name>.{h,cc} (≲ 300 lines), keep its
// randomness in an std::mt19937_64 seeded from the constructor, and give `done()` meaning if
// it can finish on its own.
#pragma once

#include <string>
#include <vector>

#include "env/tuning_task.h"

namespace tessera::agents {

class SearchAgent {
 public:
  virtual ~SearchAgent() = default;
  virtual std::string name() const = 0;
  // Up to `count` candidates to measure next (fewer, or none, when it has nothing left).
  virtual std::vector<env::Candidate> propose(const env::TuningTask& task, int count) = 0;
  virtual void observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) = 0;
  // True when the agent has converged and would only repeat itself.
  virtual bool done() const { return false; }
  // True when `propose` sets each candidate's source (env::Candidate::source) itself, naming
  // the part of the agent that found it; otherwise propose_tagged tags them with name().
  virtual bool tags_sources() const { return false; }
};

// `agent.propose` with every candidate's source set: the agent's own tags where it gives them
// (tags_sources), its name otherwise — so records credit whoever proposed each candidate.
// The search loop (search_loop.h) proposes through this.
std::vector<env::Candidate> propose_tagged(SearchAgent& agent, const env::TuningTask& task, int count);

}  // namespace tessera::agents

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
};

// Runs `agent` on `task` in batches until `trials` candidates were measured or it is done.
void run_search(SearchAgent& agent, env::TuningTask& task, int trials, int batch_size);

}  // namespace tessera::agents

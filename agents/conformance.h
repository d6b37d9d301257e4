// Conformance: what every agent and cost model must do, checked the same way for built-in
// entries, plug-ins (`tessera conformance --plugin lib.so`) and Python agents.
//
// An agent tunes a small matmul (96x64x80) on the replay simulator for up to five batches of
// eight and must act: each batch non-empty, without duplicates or measured candidates, the
// proposals changing between batches, every proposal measured (the trial count grows) and a
// correct best found. A cost model is fed the simulator's measurements of 48 random candidates
// of that task (with their steps if it reads them) and must then give one finite score per
// candidate of a batch, the same scores when asked twice, and survive a second round of
// training; how well it ranked held-out candidates is reported beside. Failures are lines for
// people; none means it conforms.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agents/registry.h"
#include "agents/search_agent.h"
#include "env/cost_model.h"

namespace tessera::agents {

struct ConformanceReport {
  std::string subject;                 // e.g. "agent 'random'"
  std::vector<std::string> failures;   // empty: it conforms
  int batches = 0;
  int trials = 0;
  double best_gflops = 0;              // on the simulator
  // Cost models: the share of held-out candidate pairs (simulated throughputs more than 5%
  // apart) the first training ordered correctly; -1 when none was scored. Reported, not
  // checked: 0.5 is chance.
  double pairwise_accuracy = -1;
  bool ok() const { return failures.empty(); }
};

ConformanceReport check_agent_conformance(SearchAgent& agent);
// The registered agent `name` with `params` over its defaults, built with `context`.
ConformanceReport check_agent_conformance(const std::string& name, const AgentParams& params,
                                          const AgentContext& context);
ConformanceReport check_cost_model_conformance(const std::string& subject, env::CostModel& model);

}  // namespace tessera::agents

// CandidateSource: one way the harl policy finds candidates worth measuring.
//
// Each round every source proposes scored candidates — from the task (its sketches and
// measurements), the proxy (through the shared ModelFeeder) and what the sources before it
// proposed this round — each tagged with the source's name. compose_batch (batch_plan.h) then
// fills the batch from the pooled proposals by the round's plan, and the tag travels with each
// measured candidate into the records, so every source is credited for what it found.
//
// Adding a source: implement CandidateSource in agents/rl/<name>_source.{h,cc} (one idea,
// ≲ 200 lines), tag its candidates with `tagged` or by setting Candidate::source, and add it
// to HarlSearch's list (harl_search.cc); the source bandit then gives it a share of batches.
#pragma once

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "agents/adaptive_exploration.h"
#include "env/model_feeder.h"

namespace tessera::agents::rl {

// (proxy score, candidate) pairs, higher is better; the form select_batch takes.
using Scored = std::vector<std::pair<double, env::Candidate>>;

struct SourceInput {
  const env::TuningTask& task;
  env::ModelFeeder& feeder;
  std::mt19937_64& rng;
  const ExplorationSettings& settings;  // the round's (trajectories, length, patience, ...)
  const Scored& pool;                   // what the sources before this one proposed this round
};

class CandidateSource {
 public:
  virtual ~CandidateSource() = default;
  // The tag on its candidates and its name in credit, plans and logs.
  virtual std::string name() const = 0;
  // Scored candidates tagged with name(), any order; measured ones may be among them (the
  // batch skips them).
  virtual Scored propose(const SourceInput& input) = 0;
  // The measurements of the batch the round's pool went into (`best_before`: the task's best
  // throughput before it), for sources that learn.
  virtual void observe(const env::TuningTask&, const std::vector<env::Measurement>&, double /*best_before*/) {}
};

// `scored` as Scored, every candidate tagged `source`.
Scored tagged(const std::map<env::Candidate, double>& scored, const std::string& source);

// The `n` fastest correctly measured candidates, fastest first: of one sketch, or of all when
// `sketch` is negative.
std::vector<env::Candidate> fastest_measured(const env::TuningTask& task, size_t n, int sketch = -1);

}  // namespace tessera::agents::rl

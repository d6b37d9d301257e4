// Random search: candidates drawn uniformly (a sketch, then every knob) and never repeated.
#pragma once

#include <random>

#include "agents/search_agent.h"

namespace tessera::agents {

class RandomSearch : public SearchAgent {
 public:
  explicit RandomSearch(uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override;
  void observe(const env::TuningTask&, const std::vector<env::Measurement>&) override {}

 private:
  std::mt19937_64 rng_;
};

}  // namespace tessera::agents

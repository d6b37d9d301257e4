// Droplet search: coordinate descent from the best candidate so far.
//
// Around a center it measures the neighbourhood of radius r: every candidate reachable by
// moving one knob up to r neighbour steps. A neighbour becomes the new center only when it is
// faster with a one-sided Welch t-test on the repeat costs giving p <= 0.05; then the radius
// goes back to 1. A neighbourhood without such a gain grows the radius; past `max_radius` the
// search is done.
#pragma once

#include <deque>
#include <optional>
#include <random>

#include "agents/search_agent.h"

namespace tessera::agents {

class DropletSearch : public SearchAgent {
 public:
  explicit DropletSearch(uint64_t seed, int max_radius = 3, double p_value = 0.05)
      : rng_(seed), max_radius_(max_radius), p_value_(p_value) {}
  std::string name() const override { return "droplet"; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override;
  void observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) override;
  bool done() const override { return done_; }

 private:
  void open_neighbourhood(const env::TuningTask& task);
  // Moves to the best significant improvement found, or widens the neighbourhood.
  void close_neighbourhood(const env::TuningTask& task);

  std::mt19937_64 rng_;
  int max_radius_;
  double p_value_;
  std::optional<env::Measurement> center_, improvement_;
  std::deque<env::Candidate> pending_;
  int radius_ = 1;
  bool open_ = false, done_ = false;
};

}  // namespace tessera::agents

// Sliding-window UCB: a bandit for rewards that drift, as a sketch's promise does while the
// search moves on (Garivier & Moulines, 2011).
//
// Only the last `window` plays count. An arm without a play in the window is tried first;
// otherwise the arm with the highest windowed mean + c * sqrt(log(min(t, window)) / plays)
// wins, ties broken at random.
#pragma once

#include <deque>
#include <random>
#include <utility>
#include <vector>

namespace tessera::agents {

class SlidingWindowUcb {
 public:
  SlidingWindowUcb(int arms, int window = 64, double exploration = 1.0)
      : arms_(arms), window_(window), c_(exploration) {}

  int select(std::mt19937_64& rng) const;
  void reward(int arm, double value);

  int arms() const { return arms_; }
  int plays(int arm) const;    // within the window
  double mean(int arm) const;  // within the window; 0 without plays
  // mean + c * sqrt(log(min(t, window)) / plays); infinity for an arm without plays.
  double upper_bound(int arm) const;

 private:
  int arms_, window_;
  double c_;
  long t_ = 0;
  std::deque<std::pair<int, double>> history_;
};

}  // namespace tessera::agents

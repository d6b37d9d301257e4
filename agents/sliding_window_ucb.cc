// Sliding-window UCB (see sliding_window_ucb.h).
#include "agents/sliding_window_ucb.h"

#include <cmath>
#include <limits>

namespace tessera::agents {

int SlidingWindowUcb::plays(int arm) const {
  int n = 0;
  for (const auto& [a, r] : history_) n += a == arm;
  return n;
}

double SlidingWindowUcb::mean(int arm) const {
  double sum = 0;
  int n = 0;
  for (const auto& [a, r] : history_) {
    if (a == arm) sum += r, ++n;
  }
  return n ? sum / n : 0.0;
}

double SlidingWindowUcb::upper_bound(int arm) const {
  const int n = plays(arm);
  if (n == 0) return std::numeric_limits<double>::infinity();
  const double horizon = std::log(static_cast<double>(std::min<long>(t_, window_)));
  return mean(arm) + c_ * std::sqrt(std::max(0.0, horizon) / n);
}

int SlidingWindowUcb::select(std::mt19937_64& rng) const {
  std::vector<int> unplayed;
  for (int a = 0; a < arms_; ++a) {
    if (plays(a) == 0) unplayed.push_back(a);
  }
  if (!unplayed.empty()) {
    return unplayed[std::uniform_int_distribution<size_t>(0, unplayed.size() - 1)(rng)];
  }
  std::vector<int> best;
  double top = -1e300;
  for (int a = 0; a < arms_; ++a) {
    const double bound = upper_bound(a);
    if (bound > top + 1e-12) {
      top = bound;
      best = {a};
    } else if (std::abs(bound - top) <= 1e-12) {
      best.push_back(a);
    }
  }
  return best[std::uniform_int_distribution<size_t>(0, best.size() - 1)(rng)];
}

void SlidingWindowUcb::reward(int arm, double value) {
  ++t_;
  history_.emplace_back(arm, value);
  while (static_cast<int>(history_.size()) > window_) history_.pop_front();
}

}  // namespace tessera::agents

// The learned gain-per-round curve (see gain_curve.h).
#include "agents/gain_curve.h"

#include <algorithm>

namespace tessera::agents {

void GainCurve::add(int k, double gain) {
  if (k < 2) return;
  const size_t i = static_cast<size_t>(k - 2);
  if (sum_.size() <= i) sum_.resize(i + 1, 0), count_.resize(i + 1, 0);
  sum_[i] += std::clamp(gain, 0.0, 1.0);
  count_[i] += 1;
  pool();
}

// Pool adjacent violators: the weighted means of indices k >= 3 made non-increasing in k, each
// block of violators replaced by its rounds' mean. Indices without rounds are left out (the
// prior's decay fills them in `at`).
void GainCurve::pool() {
  struct Block {
    double mean, rounds;
    size_t first;  // its first index; it runs to the next block's
  };
  std::vector<Block> blocks;
  for (size_t i = 1; i < sum_.size(); ++i) {
    if (count_[i] <= 0) continue;
    blocks.push_back({sum_[i] / count_[i], count_[i], i});
    while (blocks.size() >= 2 && blocks[blocks.size() - 2].mean < blocks.back().mean) {
      const Block later = blocks.back();
      blocks.pop_back();
      Block& earlier = blocks.back();
      earlier.mean = (earlier.mean * earlier.rounds + later.mean * later.rounds) / (earlier.rounds + later.rounds);
      earlier.rounds += later.rounds;
    }
  }
  pooled_.assign(sum_.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const size_t end = b + 1 < blocks.size() ? blocks[b + 1].first : sum_.size();
    for (size_t i = blocks[b].first; i < end; ++i) pooled_[i] = blocks[b].mean;
  }
}

double GainCurve::at(int k) const {
  if (k < 2) return 0;
  double mean = 0;
  for (int j = 2; j <= k; ++j) {
    // The prior of index j: 1 at the first search round, else the index before decayed as 1/(j-1)^2.
    const double decay = j == 2 ? 1.0 : static_cast<double>((j - 2) * (j - 2)) / static_cast<double>((j - 1) * (j - 1));
    const double prior = j == 2 ? 1.0 : mean * decay;
    const size_t i = static_cast<size_t>(j - 2);
    const bool learned_here = i < sum_.size();
    const double n = learned_here ? count_[i] : 0;
    // The index's rounds at their pooled mean; the first search round's as they are.
    const double sum = !learned_here ? 0 : j == 2 ? sum_[i] : pooled_[i] * n;
    // Past the first search round, never below the prior: an index where no task found
    // anything says gains there are rare, not gone. Without this floor each such index cuts the
    // curve by n + 1 (BERT's nine tasks: 10x a round), the late curve falls off exponentially,
    // and harl's choice among tasks deep in their searches goes to the one with the fewest
    // rounds (round-robin) instead of by share.
    const double learned = (sum + prior) / (n + 1);
    mean = j == 2 ? learned : std::max(learned, prior);
    if (i >= sum_.size()) {  // no data from here on: the prior's decay alone, in closed form
      const double last = static_cast<double>(j - 1);
      const double to = static_cast<double>(k - 1);
      return mean * (last * last) / (to * to);
    }
  }
  return mean;
}

double GainCurve::tail(int k, int rounds) const {
  double sum = 0;
  for (int j = std::max(k, 2); j < k + rounds; ++j) sum += at(j);
  return sum;
}

int GainCurve::count(int k) const {
  const size_t i = static_cast<size_t>(k - 2);
  return k >= 2 && i < count_.size() ? static_cast<int>(count_[i]) : 0;
}

double TaskGains::scale(const GainCurve& curve) const {
  double expected = 0;
  for (int k : rounds) expected += curve.at(k);
  const double evidence = curve.at(2) + curve.at(3);
  return (found + evidence) / (expected + evidence);
}

}  // namespace tessera::agents

// Round-robin, Ansor's gradient and the harl bandit allocators (see task_allocator.h).
#include "agents/task_allocator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>

namespace tessera::agents {
namespace {

using env::NetworkObservation;

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

// The first task (from `start`, cyclically) that can take a round and has had fewer than
// `rounds` rounds; -1 if none.
int next_open(const NetworkObservation& obs, size_t start, int below_rounds) {
  const size_t n = obs.tasks.size();
  for (size_t k = 0; k < n; ++k) {
    size_t i = (start + k) % n;
    if (!obs.views[i].exhausted && obs.views[i].rounds < below_rounds) return static_cast<int>(i);
  }
  return -1;
}

class RoundRobin : public TaskAllocator {
 public:
  std::string name() const override { return "round_robin"; }
  int choose(const NetworkObservation& obs) override {
    int i = next_open(obs, next_, 1 << 30);
    if (i >= 0) next_ = static_cast<size_t>(i) + 1;
    reason_ = "next in turn";
    return i;
  }

 private:
  size_t next_ = 0;
};

class Gradient : public TaskAllocator {
 public:
  std::string name() const override { return "gradient"; }
  int choose(const NetworkObservation& obs) override {
    if (int warm = next_open(obs, 0, 1); warm >= 0) {  // round-robin warm-up
      reason_ = "warm-up: its first round";
      return warm;
    }
    int pick = -1;
    double lowest = 0;
    for (size_t i = 0; i < obs.tasks.size(); ++i) {
      if (obs.views[i].exhausted) continue;
      double g = ansor_gradient(obs, static_cast<int>(i));
      if (pick < 0 || g < lowest) pick = static_cast<int>(i), lowest = g;
    }
    reason_ = format("steepest gradient: %.3g ms per round", lowest * 1e3);
    return pick;
  }
};

class HarlAllocator : public TaskAllocator {
 public:
  explicit HarlAllocator(uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "harl"; }
  int choose(const NetworkObservation& obs) override {
    if (int warm = next_open(obs, 0, 1); warm >= 0) {
      reason_ = "warm-up: its first round";
      return warm;
    }
    for (size_t i = 0; i < obs.tasks.size(); ++i) {  // nothing correct yet: it is the estimate's hole
      if (!obs.views[i].exhausted && !std::isfinite(obs.views[i].best_seconds)) {
        reason_ = "no correct kernel yet";
        return static_cast<int>(i);
      }
    }
    const size_t window = std::max<size_t>(64, 4 * obs.tasks.size());
    while (history_.size() > window) history_.pop_front();
    std::vector<double> sum(obs.tasks.size(), 0);
    std::vector<int> plays(obs.tasks.size(), 0);
    for (const auto& [task, r] : history_) sum[static_cast<size_t>(task)] += r, ++plays[static_cast<size_t>(task)];
    const double horizon = std::log(static_cast<double>(std::max<size_t>(2, history_.size())));
    int pick = -1;
    double top = -INFINITY;
    for (size_t i = 0; i < obs.tasks.size(); ++i) {
      if (obs.views[i].exhausted) continue;
      if (plays[i] == 0) {  // fell out of the window: look again
        reason_ = "not played within the bandit's window";
        return static_cast<int>(i);
      }
      // Rewards are relative drops per second, so c is in those units: the windowed mean
      // reward of the best task is typically 1e-3..1e-1 per second.
      double bound = sum[i] / plays[i] + scale_ * std::sqrt(horizon / plays[i]);
      bound += 1e-12 * std::uniform_real_distribution<double>(0, 1)(rng_);  // random tie-break
      if (bound > top) {
        top = bound, pick = static_cast<int>(i);
        reason_ = format("highest bound: mean gain %.3g/s + bonus %.3g/s over %.0f plays", sum[i] / plays[i],
                         bound - sum[i] / plays[i], plays[i]);
      }
    }
    return pick;
  }
  void observe(int task, double reward, const NetworkObservation& obs) override {
    const double relative = std::isfinite(obs.estimate_seconds) && obs.estimate_seconds > 0
                                ? reward / obs.estimate_seconds : 0;
    history_.emplace_back(task, relative);
    // Exploration in the rewards' own units: a fraction of the largest recent reward.
    double largest = 0;
    for (const auto& [t, r] : history_) largest = std::max(largest, r);
    scale_ = std::max(1e-6, 0.5 * largest);
  }

 private:
  std::mt19937_64 rng_;
  std::deque<std::pair<int, double>> history_;
  double scale_ = 1e-3;
};

}  // namespace

double ansor_gradient(const NetworkObservation& obs, int i, double alpha, int window, double beta) {
  const env::TaskView& v = obs.views[static_cast<size_t>(i)];
  const double g = v.best_seconds;
  if (!std::isfinite(g)) return -INFINITY;  // no correct kernel yet: the most urgent
  const double chain = obs.tasks[static_cast<size_t>(i)].weight;
  const auto& h = v.best_history;
  double backward = 0;
  if (static_cast<int>(h.size()) > window && std::isfinite(h[h.size() - 1 - static_cast<size_t>(window)])) {
    backward = (h.back() - h[h.size() - 1 - static_cast<size_t>(window)]) / window;
  }
  const double t = std::max(1, v.rounds);
  double next = g - g / t;
  double best_throughput = 0;
  for (int j : obs.similar(i)) {
    const double gj = obs.views[static_cast<size_t>(j)].best_seconds;
    if (std::isfinite(gj) && gj > 0) best_throughput = std::max(best_throughput, obs.tasks[static_cast<size_t>(j)].flops / gj);
  }
  if (best_throughput > 0) next = std::min(next, beta * obs.tasks[static_cast<size_t>(i)].flops / best_throughput);
  const double forward = next - g;
  return chain * (alpha * backward + (1 - alpha) * forward);
}

Result<std::unique_ptr<TaskAllocator>> make_allocator(const std::string& name, uint64_t seed) {
  if (name == "round_robin") return std::unique_ptr<TaskAllocator>(new RoundRobin());
  if (name == "gradient") return std::unique_ptr<TaskAllocator>(new Gradient());
  if (name == "harl") return std::unique_ptr<TaskAllocator>(new HarlAllocator(seed));
  std::string names;
  for (const auto& n : allocator_names()) names += (names.empty() ? "" : ", ") + n;
  return make_error("unknown allocator '" + name + "' (expected " + names + ")");
}

std::vector<std::string> allocator_names() { return {"harl", "gradient", "round_robin"}; }

}  // namespace tessera::agents

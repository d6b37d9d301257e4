// Round-robin, Ansor's gradient and the harl bandit allocators (see task_allocator.h).
#include "agents/task_allocator.h"

#include "agents/gain_curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

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

// The highest throughput (FLOPs per second of the best kernel) among the tasks similar to `i`,
// itself included; 0 when none has a correct kernel.
double best_similar_throughput(const NetworkObservation& obs, int i) {
  double best = 0;
  for (int j : obs.similar(i)) {
    const double gj = obs.views[static_cast<size_t>(j)].best_seconds;
    if (std::isfinite(gj) && gj > 0) best = std::max(best, obs.tasks[static_cast<size_t>(j)].flops / gj);
  }
  return best;
}

// harl's top level: the task whose next rounds are expected to cut the estimate most per
// second. value = share x gain / seconds: share the task's part of the estimate (weight x best /
// estimate, known); seconds its mean search round (learned; the network's mean until it has
// one); gain what its next rounds should cut from its best, relatively, from the gain curve
// learned across the network's tasks (gain_curve.h) times the task's own scale on it.
//
// - Which round it is matters most. A task at its defaults is worth its whole share until the
//   curve has learned what a first search round brings; a task ten rounds in is worth what
//   tenth rounds have brought, scaled by how this task has done against the curve.
// - The first search round finds less than the second (the search's initialization), so the
//   gain is the best mean over the next one to three rounds (a short-horizon Gittins-style
//   index): a task is not left untried because its first round alone looks poor.
// - A task 2x+ slower than a similar one (same op, same FLOP class) gets at least the scale at
//   which what is left of the curve reaches half that task's throughput (Ansor's beta = 2).
// - A task's first round (defaults, warm-up) teaches nothing about search and is left out.
class HarlAllocator : public TaskAllocator {
 public:
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
    const size_t n = obs.tasks.size();
    gains_.resize(n), round_seconds_.resize(n, 0);
    double all_seconds = 0, all_rounds = 0;
    for (size_t i = 0; i < n; ++i) all_seconds += round_seconds_[i], all_rounds += static_cast<double>(gains_[i].rounds.size());
    const double mean_round = all_rounds > 0 ? all_seconds / all_rounds : 1.0;
    int pick = -1;
    double top = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
      const env::TaskView& v = obs.views[i];
      if (v.exhausted) continue;
      const double share = obs.tasks[i].weight * v.best_seconds / obs.estimate_seconds;
      const double searched = static_cast<double>(gains_[i].rounds.size());
      const double seconds = searched > 0 ? round_seconds_[i] / searched : mean_round;
      const int next = std::max(2, v.rounds + 1);
      double scale = gains_[i].scale(curve_);
      const double peer = best_similar_throughput(obs, static_cast<int>(i));
      const double behind = peer > 0 && obs.tasks[i].flops > 0 ? 1 - kBeta * obs.tasks[i].flops / peer / v.best_seconds : 0;
      bool far_behind = false;
      if (behind > 0) {
        const double reach = behind / std::max(curve_.tail(next, kTailRounds), 1e-9);
        if (reach > scale) scale = reach, far_behind = true;
      }
      double gain = 0, sum = 0;
      int horizon = 1;
      for (int h = 1; h <= kLookahead; ++h) {
        sum += std::min(1.0, scale * curve_.at(next + h - 1));
        if (sum / h > gain) gain = sum / h, horizon = h;
      }
      double value = share * gain / std::max(seconds, 1e-6);
      if (value > top) {
        top = value, pick = static_cast<int>(i);
        char text[200];
        std::snprintf(text, sizeof text, "share %.1f%%, gain %.3g per round over its next %d (round %d, %.2fx the curve%s) of %.3g s",
                      100 * share, gain, horizon, next, scale, far_behind ? ", 2x+ slower than a similar task" : "",
                      seconds);
        reason_ = text;
      }
    }
    return pick;
  }
  void observe(int task, double, const NetworkObservation& obs) override {
    const size_t t = static_cast<size_t>(task);
    if (gains_.size() < obs.tasks.size()) gains_.resize(obs.tasks.size()), round_seconds_.resize(obs.tasks.size(), 0);
    if (seen_seconds_.size() < obs.tasks.size()) seen_seconds_.resize(obs.tasks.size(), 0);
    const env::TaskView& v = obs.views[t];
    const double spent = v.seconds - seen_seconds_[t];
    seen_seconds_[t] = v.seconds;
    const auto& h = v.best_history;
    if (v.rounds < 2 || h.size() < 2 || !std::isfinite(h[h.size() - 2]) || h[h.size() - 2] <= 0) return;
    const double gain = std::max(0.0, (h[h.size() - 2] - h.back()) / h[h.size() - 2]);
    curve_.add(v.rounds, gain);
    gains_[t].rounds.push_back(v.rounds);
    gains_[t].found += gain;
    round_seconds_[t] += spent;
  }

 private:
  static constexpr double kBeta = 2.0;   // Ansor's: a similar task's throughput, halved, is reachable
  static constexpr int kLookahead = 3;   // rounds the index averages over, at most
  static constexpr int kTailRounds = 100;  // rounds "what is left of the curve" sums
  GainCurve curve_;
  std::vector<TaskGains> gains_;
  std::vector<double> round_seconds_, seen_seconds_;
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
  const double best_throughput = best_similar_throughput(obs, i);
  if (best_throughput > 0) next = std::min(next, beta * obs.tasks[static_cast<size_t>(i)].flops / best_throughput);
  const double forward = next - g;
  return chain * (alpha * backward + (1 - alpha) * forward);
}

Result<std::unique_ptr<TaskAllocator>> make_allocator(const std::string& name, uint64_t seed) {
  if (name == "round_robin") return std::unique_ptr<TaskAllocator>(new RoundRobin());
  if (name == "gradient") return std::unique_ptr<TaskAllocator>(new Gradient());
  if (name == "harl") return std::unique_ptr<TaskAllocator>(new HarlAllocator());
  std::string names;
  for (const auto& n : allocator_names()) names += (names.empty() ? "" : ", ") + n;
  return make_error("unknown allocator '" + name + "' (expected " + names + ")");
}

std::vector<std::string> allocator_names() { return {"harl", "gradient", "round_robin"}; }

}  // namespace tessera::agents

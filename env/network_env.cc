// The network-level environment (see network_env.h).
#include "env/network_env.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tessera::env {

double TaskView::recent_improvement() const {
  const size_t n = best_history.size();
  if (n < 2) return 0;
  const double now = best_history[n - 1], before = best_history[n >= 4 ? n - 4 : 0];
  if (!std::isfinite(now)) return 0;
  if (!std::isfinite(before)) return 1;
  return before > 0 ? (before - now) / before : 0;
}

std::vector<int> NetworkObservation::similar(int i) const {
  auto flop_class = [](double flops) { return static_cast<int>(std::floor(std::log(flops + 1) / std::log(1.618))); };
  std::vector<int> out;
  for (size_t j = 0; j < tasks.size(); ++j) {
    if (tasks[j].op_tag == tasks[static_cast<size_t>(i)].op_tag &&
        flop_class(tasks[j].flops) == flop_class(tasks[static_cast<size_t>(i)].flops)) {
      out.push_back(static_cast<int>(j));
    }
  }
  return out;
}

NetworkEnv::NetworkEnv(std::vector<NetworkTask> tasks, RunRound run_round, int budget_rounds,
                       double budget_seconds)
    : run_round_(std::move(run_round)), budget_rounds_(budget_rounds), budget_seconds_(budget_seconds) {
  obs_.tasks = std::move(tasks);
  obs_.views.resize(obs_.tasks.size());
}

void NetworkEnv::restore(int task, const RoundResult& state) {
  TaskView& v = obs_.views[static_cast<size_t>(task)];
  if (v.rounds == 0) {  // tuned before, by another run (records shared with single-op runs)
    v.best_seconds = state.best_seconds;
    if (state.trials > 0) {
      if (v.best_history.empty()) v.best_history.push_back(state.best_seconds);
      else v.best_history.back() = state.best_seconds;  // restored again
    }
  } else if (state.trials > v.trials) {
    // After replayed rounds the view stands where the run that ran them stood. The records add
    // only a round killed before its log line, whose best counts as a round's does (record):
    // the lower. A best the task re-timed upwards (TuningTask's confirmation) changes nothing,
    // as it changed nothing while the run was live: a resumed run goes on as an unbroken one.
    v.best_seconds = std::min(v.best_seconds, state.best_seconds);
    v.best_history.back() = v.best_seconds;
  }
  v.trials = state.trials;
  v.seconds += state.seconds;
  // A search that ran out before the resume stays out, as it does in the unbroken run (once
  // woken by a resume, a search that had run out gave a round of no trials: a turn the unbroken
  // run never took, and an allocator that from there chose differently).
  v.exhausted = v.exhausted || state.exhausted;
  obs_.elapsed_seconds += state.seconds;
  update_estimate();
}

const NetworkObservation& NetworkEnv::reset() {
  update_estimate();
  return obs_;
}

void NetworkEnv::update_estimate() {
  double sum = 0;
  for (size_t i = 0; i < obs_.tasks.size(); ++i) {
    sum += obs_.tasks[i].weight * obs_.views[i].best_seconds;  // inf until every task has one
  }
  obs_.estimate_seconds = sum;
}

NetworkStep NetworkEnv::step(int task) {
  NetworkStep out;
  if (task < 0 || task >= static_cast<int>(obs_.tasks.size()) || obs_.views[static_cast<size_t>(task)].exhausted) {
    out.info = "task " + std::to_string(task) + " cannot take a round";
    out.terminated = true;
    for (const TaskView& v : obs_.views) out.terminated &= v.exhausted;
    return out;
  }
  return record(task, run_round_(task));
}

NetworkStep NetworkEnv::replay(int task, const RoundResult& round) {
  if (task < 0 || task >= static_cast<int>(obs_.tasks.size())) {
    NetworkStep out;
    out.info = "task " + std::to_string(task) + " is not in this network";
    return out;
  }
  return record(task, round);
}

NetworkStep NetworkEnv::record(int task, const RoundResult& r) {
  NetworkStep out;
  const double before = obs_.estimate_seconds;
  TaskView& v = obs_.views[static_cast<size_t>(task)];
  const double task_before = v.best_seconds;
  v.best_seconds = std::min(v.best_seconds, r.best_seconds);
  v.trials = r.trials;
  v.seconds += r.seconds;
  v.exhausted = r.exhausted;
  ++v.rounds;
  v.best_history.push_back(v.best_seconds);
  obs_.elapsed_seconds += r.seconds;
  ++obs_.rounds;
  update_estimate();
  // Before every task has a measurement the estimate is infinite: reward the task's own gain.
  const double gain = std::isfinite(before) ? before - obs_.estimate_seconds
                      : std::isfinite(task_before)
                          ? obs_.tasks[static_cast<size_t>(task)].weight * (task_before - v.best_seconds)
                          : 0;
  out.reward = r.seconds > 0 ? gain / r.seconds : 0;
  bool all_exhausted = true;
  for (const TaskView& view : obs_.views) all_exhausted &= view.exhausted;
  out.terminated = all_exhausted;
  out.truncated = (budget_rounds_ > 0 && obs_.rounds >= budget_rounds_) ||
                  (budget_seconds_ > 0 && obs_.elapsed_seconds >= budget_seconds_);
  char text[200];
  std::snprintf(text, sizeof text, "%s: best %.4g ms after %d trials; estimate %.4g ms",
                obs_.tasks[static_cast<size_t>(task)].name.c_str(), v.best_seconds * 1e3, v.trials,
                obs_.estimate_seconds * 1e3);
  out.info = text;
  return out;
}

}  // namespace tessera::env

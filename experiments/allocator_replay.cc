// Task allocators replayed on logged searches (see allocator_replay.h).
#include "experiments/allocator_replay.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "agents/task_allocator.h"
#include "experiments/round_log.h"

namespace tessera::experiments {
namespace {

// The op tag tune_network gives a task (its first op), from summary.json or, for summaries
// written before it was kept, from the task's name "tN_op_op...".
std::string op_tag_of(const nlohmann::json& entry) {
  if (entry.contains("op_tag")) return entry["op_tag"].get<std::string>();
  const std::string name = entry.value("name", "");
  const size_t a = name.find('_');
  if (a == std::string::npos) return "op";
  const size_t b = name.find('_', a + 1);
  return name.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

Result<nlohmann::json> read_summary(const std::string& dir) {
  const std::string path = dir + "/summary.json";
  std::ifstream in(path);
  if (!in) return make_error(path + ": cannot read (not a finished network run?)");
  try {
    nlohmann::json summary = nlohmann::json::parse(in);
    if (!summary.contains("tasks") || !summary["tasks"].is_array()) return make_error(path + ": no 'tasks' list");
    return summary;
  } catch (const std::exception& e) {
    return make_error(path + ": " + e.what());
  }
}

}  // namespace

Result<ReplayedTraces> load_replay_traces(const std::vector<std::string>& run_dirs) {
  if (run_dirs.empty()) return make_error("no run directory to replay");
  ReplayedTraces out;
  std::vector<ReplayTask>& tasks = out.tasks;
  std::map<std::string, size_t> index;
  for (size_t d = 0; d < run_dirs.size(); ++d) {
    const std::string& dir = run_dirs[d];
    auto summary = read_summary(dir);
    if (!summary) return summary.error();
    size_t count = 0;
    for (const auto& entry : (*summary)["tasks"]) {
      if (!entry.contains("name") || !entry["name"].is_string())
        return make_error(dir + "/summary.json: tasks[" + std::to_string(count) + "]: no 'name'");
      const std::string name = entry["name"].get<std::string>();
      ++count;
      if (d == 0) {
        index[name] = tasks.size();
        tasks.push_back({{name, op_tag_of(entry), entry.value("flops", 0.0), entry.value("weight", 1)}, {}, 0.0});
      } else if (!index.count(name)) {
        return make_error(dir + ": task " + name + " is not in " + run_dirs[0] + " (runs of different models?)");
      }
    }
    if (count != tasks.size())
      return make_error(dir + ": " + std::to_string(count) + " tasks, " + run_dirs[0] + " has " + std::to_string(tasks.size()));
    std::map<std::string, std::vector<env::RoundResult>> traces;
    double seconds = 0;
    for (const auto& round : read_rounds(dir + "/rounds.jsonl", &out.warnings)) {
      seconds += round.result.seconds;
      if (round.transfer) continue;
      traces[round.task].push_back(round.result);
    }
    out.longest_seconds = std::max(out.longest_seconds, seconds);
    for (auto& [name, trace] : traces) {
      auto it = index.find(name);
      if (it == index.end()) continue;
      ReplayTask& task = tasks[it->second];
      if (d == 0) task.defaults_seconds = trace.front().best_seconds;
      if (trace.size() <= task.trace.size()) continue;
      // On the first run's level: the same defaults, timed in other minutes, read up to 12% apart.
      const double scale = d == 0 || !(trace.front().best_seconds > 0) || !(task.defaults_seconds > 0)
                               ? 1.0
                               : task.defaults_seconds / trace.front().best_seconds;
      for (auto& r : trace) r.best_seconds *= scale;
      task.trace = std::move(trace);
    }
  }
  for (const auto& t : tasks)
    if (t.trace.empty()) return make_error("task " + t.task.name + " has no logged round in any run");
  return out;
}

double ReplayCurve::at(double seconds) const {
  double value = NAN;
  for (const auto& [s, e] : points) {
    if (s > seconds + 1e-9) break;
    value = e;
  }
  return value;
}

Result<ReplayCurve> replay_allocator(const std::string& name, const std::vector<ReplayTask>& tasks, double budget,
                                     uint64_t seed) {
  auto allocator = agents::make_allocator(name, seed);
  if (!allocator) return allocator.error();
  ReplayCurve out;
  std::vector<env::NetworkTask> network;
  for (const auto& t : tasks) network.push_back(t.task);
  std::vector<size_t> next(tasks.size(), 0);
  env::NetworkEnv environment(
      network,
      [&](int i) {
        const auto& trace = tasks[static_cast<size_t>(i)].trace;
        size_t& k = next[static_cast<size_t>(i)];
        if (k >= trace.size()) {  // beyond every run: counted as converged
          ++out.trace_ends;
          env::RoundResult end = trace.back();
          end.seconds = 0, end.exhausted = true;
          return end;
        }
        return trace[k++];  // a task whose search ran out in the logged run runs out here too
      },
      0, budget);
  environment.reset();
  while (true) {
    const int t = (*allocator)->choose(environment.observation());
    if (t < 0) break;
    const env::NetworkStep step = environment.step(t);
    (*allocator)->observe(t, step.reward, environment.observation());
    ++out.rounds;
    const auto& obs = environment.observation();
    out.choices.push_back({tasks[static_cast<size_t>(t)].task.name, (*allocator)->reason(), obs.elapsed_seconds,
                           obs.estimate_seconds * 1e3});
    if (std::isfinite(obs.estimate_seconds)) out.points.emplace_back(obs.elapsed_seconds, obs.estimate_seconds * 1e3);
    if (obs.elapsed_seconds <= budget / 2)
      for (size_t i = 0; i < tasks.size(); ++i) out.rounds_at_half[tasks[i].task.name] = obs.views[i].rounds;
    if (step.terminated || step.truncated) break;
  }
  return out;
}

}  // namespace tessera::experiments

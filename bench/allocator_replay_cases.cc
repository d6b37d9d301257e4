// allocator_replay: every task allocator run again on the searches real network tunes ran, with
// no compiling and no timing (issue 22). A network tune's rounds.jsonl holds, per task, its
// search's trajectory: the task's best after each round and the round's seconds. The replay
// gives each allocator (agents/task_allocator.h, the same code `tessera tune` runs) a
// NetworkEnv whose k-th round of a task returns that task's k-th logged round, taken from the
// run that gave the task the most rounds; a task asked for more rounds than any run gave it is
// exhausted there. Every allocator so meets the same searches at the same seconds, without the
// machine's noise and without one run's luck on a heavy task, and an allocator change can be
// judged in seconds instead of an hour. A trace taken from another run than the first is
// scaled so that its first round (the task's defaults) reads as in the first run: runs tuned
// one after another meet the machine at different speeds, and the replay compares searches,
// not minutes. What it cannot see: rounds no run ran (a trace's end counts as convergence;
// `trace_ends` says how often an allocator hit one) and the shared cost model, which learns
// from whichever tasks were tuned (a task's search follows its trace here whatever the order).
// Replaying one run alone with its own allocator gives back that run's curve exactly.
//
//   TESSERA_REPLAY_RUNS="build/e2e_tune/resnet50_harl build/e2e_tune/resnet50_gradient" \
//     bench/run.sh allocator_replay      (TESSERA_REPLAY_SECONDS: budget, default the longest run's;
//                                         TESSERA_REPLAY_ALLOCATORS: which, default every one)
//
// One line per allocator: the estimate (ms) at a quarter, half and all of the budget, rounds,
// trace_ends, each task's rounds at half the budget; the returned line: the criteria on
// the replay (harl at half over gradient at the end; harl's end over round-robin's).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "agents/task_allocator.h"
#include "bench/cases.h"
#include "experiments/round_log.h"

namespace tessera::bench {
namespace {

struct ReplayTask {
  env::NetworkTask task;
  std::vector<env::RoundResult> trace;  // the longest logged trajectory of this task
  double defaults_seconds = 0;          // its first round in the first run: the level traces are put on
};

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

Result<std::vector<ReplayTask>> load_runs(const std::vector<std::string>& dirs, double* longest_seconds) {
  std::vector<ReplayTask> tasks;
  std::map<std::string, size_t> index;
  for (size_t d = 0; d < dirs.size(); ++d) {
    std::ifstream in(dirs[d] + "/summary.json");
    if (!in) return make_error(dirs[d] + "/summary.json: cannot read (not a finished network run?)");
    nlohmann::json summary;
    try {
      summary = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
      return make_error(dirs[d] + "/summary.json: " + e.what());
    }
    std::vector<std::string> names;
    for (const auto& entry : summary["tasks"]) {
      const std::string name = entry.at("name").get<std::string>();
      names.push_back(name);
      if (d == 0) {
        index[name] = tasks.size();
        tasks.push_back({{name, op_tag_of(entry), entry.value("flops", 0.0), entry.value("weight", 1)}, {}});
      } else if (!index.count(name)) {
        return make_error(dirs[d] + ": task " + name + " is not in " + dirs[0] + " (runs of different models?)");
      }
    }
    if (names.size() != tasks.size())
      return make_error(dirs[d] + ": " + std::to_string(names.size()) + " tasks, " + dirs[0] + " has " +
                        std::to_string(tasks.size()));
    std::vector<std::string> warnings;
    std::map<std::string, std::vector<env::RoundResult>> traces;
    double seconds = 0;
    for (const auto& round : experiments::read_rounds(dirs[d] + "/rounds.jsonl", &warnings)) {
      seconds += round.result.seconds;
      if (round.transfer) continue;
      traces[round.task].push_back(round.result);
    }
    for (const auto& w : warnings) std::fprintf(stderr, "allocator_replay: %s\n", w.c_str());
    *longest_seconds = std::max(*longest_seconds, seconds);
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
  return tasks;
}

struct Replayed {
  std::vector<std::pair<double, double>> curve;  // (seconds, estimate) after each round
  int rounds = 0, trace_ends = 0;
  std::map<std::string, int> rounds_at_half;  // per task, the rounds it had at half the budget
  double at(double seconds) const {           // the estimate when the clock passed `seconds`
    double value = NAN;
    for (const auto& [s, e] : curve) {
      if (s > seconds + 1e-9) break;
      value = e;
    }
    return value;
  }
};

Replayed replay(const std::string& allocator_name, const std::vector<ReplayTask>& tasks, double budget, uint64_t seed) {
  Replayed out;
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
        env::RoundResult r = trace[k++];
        r.exhausted = false;
        return r;
      },
      0, budget);
  auto allocator = agents::make_allocator(allocator_name, seed);
  environment.reset();
  while (true) {
    const int t = (*allocator)->choose(environment.observation());
    if (t < 0) break;
    const env::NetworkStep step = environment.step(t);
    (*allocator)->observe(t, step.reward, environment.observation());
    ++out.rounds;
    const auto& obs = environment.observation();
    if (std::isfinite(obs.estimate_seconds)) out.curve.emplace_back(obs.elapsed_seconds, obs.estimate_seconds * 1e3);
    if (obs.elapsed_seconds <= budget / 2)
      for (size_t i = 0; i < tasks.size(); ++i) out.rounds_at_half[tasks[i].task.name] = obs.views[i].rounds;
    if (step.terminated || step.truncated) break;
  }
  return out;
}

}  // namespace

nlohmann::json run_allocator_replay() {
  const char* runs_text = std::getenv("TESSERA_REPLAY_RUNS");
  if (!runs_text || !*runs_text)
    return {{"case", "allocator_replay"}, {"error", "set TESSERA_REPLAY_RUNS to one or more network run directories"}};
  std::vector<std::string> dirs;
  std::string text = runs_text;
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream words(text);
  for (std::string w; words >> w;) dirs.push_back(w);
  double longest = 0;
  auto tasks = load_runs(dirs, &longest);
  if (!tasks) return {{"case", "allocator_replay"}, {"error", tasks.error().message}};
  const char* budget_text = std::getenv("TESSERA_REPLAY_SECONDS");
  const double budget = budget_text ? std::atof(budget_text) : longest;
  const char* seed_text = std::getenv("TESSERA_SEED");
  const uint64_t seed = seed_text ? std::strtoull(seed_text, nullptr, 10) : 1;
  std::vector<std::string> names = agents::allocator_names();
  if (const char* chosen = std::getenv("TESSERA_REPLAY_ALLOCATORS"); chosen && *chosen) {
    names.clear();
    std::istringstream list(chosen);
    for (std::string w; list >> w;) names.push_back(w);
  }
  std::map<std::string, Replayed> results;
  for (const std::string& name : names) {
    if (auto made = agents::make_allocator(name, seed); !made) return {{"case", "allocator_replay"}, {"error", made.error().message}};
    Replayed r = replay(name, *tasks, budget, seed);
    nlohmann::json line = {{"case", "allocator_replay"}, {"allocator", name},
                           {"budget_s", budget},         {"rounds", r.rounds},
                           {"trace_ends", r.trace_ends}, {"rounds_at_half", r.rounds_at_half}};
    for (double share : {0.25, 0.5, 1.0})
      line["estimated_ms_at"][std::to_string(static_cast<int>(budget * share))] = r.at(budget * share);
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
    results[name] = std::move(r);
  }
  auto ratio = [&](const char* a, double at_a, const char* b, double at_b) -> nlohmann::json {
    if (!results.count(a) || !results.count(b)) return nullptr;
    return results[a].at(at_a) / results[b].at(at_b);
  };
  return {{"case", "allocator_replay_summary"},
          {"runs", dirs},
          {"tasks", tasks->size()},
          {"budget_s", budget},
          {"harl_half_vs_gradient_full", ratio("harl", budget / 2, "gradient", budget)},
          {"harl_end_vs_round_robin_end", ratio("harl", budget, "round_robin", budget)}};
}

}  // namespace tessera::bench

// allocator_replay: every task allocator run again on the searches real network tunes ran, with
// no compiling and no timing (issue 22; the replay itself is experiments/allocator_replay.h).
// Without TESSERA_REPLAY_RUNS it replays the traces shipped in tests/data/network_traces/
// (ResNet-50, MobileNetV2 and the BERT-base encoder, 20 minutes each, logged on an AMD EPYC
// Zen 5), one network after another: an allocator written as a plug-in or a new harl is judged
// on real searches in seconds, on any machine.
//
//   TESSERA_REPLAY_RUNS="build/e2e_tune/resnet50_harl build/e2e_tune/resnet50_gradient" bench/run.sh allocator_replay
// (TESSERA_REPLAY_SECONDS: the budget, default the longest run's; TESSERA_REPLAY_ALLOCATORS:
// which, default every one; TESSERA_REPLAY_CHOICES=FILE: every allocator's every choice, why it
// made it and the estimate after it, one JSON line each, written to FILE: what an allocator
// author reads to see where two allocators part).
//
// One line per network and allocator: the estimate (ms) at a quarter, half and all of the
// budget, rounds, trace_ends, each task's rounds at half the budget; at the end one line per
// network without "allocator": the criteria on the replay (harl at half over gradient at
// the end; harl's end over round-robin's) and harl over the better of the others at a quarter,
// half and all of the budget.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "agents/task_allocator.h"
#include "bench/cases.h"
#include "experiments/allocator_replay.h"

namespace tessera::bench {
namespace {

std::vector<std::string> words_of(std::string text) {
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The shipped traces: one set of run directories per network.
std::vector<std::vector<std::string>> shipped_trace_sets() {
  namespace fs = std::filesystem;
  std::vector<std::vector<std::string>> sets;
  const fs::path root = fs::path(TESSERA_SOURCE_DIR) / "tests" / "data" / "network_traces";
  std::vector<fs::path> networks;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) networks.push_back(e.path());
  std::sort(networks.begin(), networks.end());
  for (const fs::path& network : networks) {
    std::vector<std::string> runs;
    for (const auto& e : fs::directory_iterator(network))
      if (e.is_directory()) runs.push_back(e.path().string());
    std::sort(runs.begin(), runs.end());
    sets.push_back(runs);
  }
  return sets;
}

// Replays every chosen allocator on one set of runs; prints one line each and returns the
// criteria line (or the error).
nlohmann::json replay_set(const std::vector<std::string>& dirs, const std::vector<std::string>& names,
                          std::FILE* choices) {
  auto traces = experiments::load_replay_traces(dirs);
  if (!traces) return {{"case", "allocator_replay"}, {"error", traces.error().message}};
  for (const std::string& w : traces->warnings) std::fprintf(stderr, "allocator_replay: %s\n", w.c_str());
  const char* budget_text = std::getenv("TESSERA_REPLAY_SECONDS");
  const double budget = budget_text ? std::atof(budget_text) : traces->longest_seconds;
  const char* seed_text = std::getenv("TESSERA_SEED");
  const uint64_t seed = seed_text ? std::strtoull(seed_text, nullptr, 10) : 1;
  std::map<std::string, experiments::ReplayCurve> results;
  for (const std::string& name : names) {
    auto r = experiments::replay_allocator(name, traces->tasks, budget, seed);
    if (!r) return {{"case", "allocator_replay"}, {"error", r.error().message}};
    nlohmann::json line = {{"case", "allocator_replay"}, {"runs", dirs},
                           {"allocator", name},          {"budget_s", budget},
                           {"rounds", r->rounds},        {"trace_ends", r->trace_ends},
                           {"rounds_at_half", r->rounds_at_half}};
    for (double share : {0.25, 0.5, 1.0})
      line["estimated_ms_at"][std::to_string(static_cast<int>(budget * share))] = r->at(budget * share);
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
    for (size_t i = 0; choices && i < r->choices.size(); ++i) {
      const experiments::ReplayChoice& c = r->choices[i];
      const nlohmann::json choice = {{"runs", dirs},     {"allocator", name}, {"round", i + 1},
                                     {"task", c.task},   {"reason", c.reason}, {"seconds", c.seconds},
                                     {"estimated_ms", std::isfinite(c.estimate_ms) ? nlohmann::json(c.estimate_ms) : nullptr}};
      std::fprintf(choices, "%s\n", choice.dump().c_str());
    }
    results[name] = std::move(*r);
  }
  auto ratio = [&](const char* a, double at_a, const char* b, double at_b) -> nlohmann::json {
    if (!results.count(a) || !results.count(b)) return nullptr;
    return results[a].at(at_a) / results[b].at(at_b);
  };
  // harl over the better of the other allocators at a quarter, half and all of the budget: the
  // property the allocator tests hold harl to (tests/unit/experiments/allocator_replay_test.cc).
  nlohmann::json against_best = nullptr;
  if (results.count("harl") && results.size() > 1) {
    against_best = nlohmann::json::object();
    for (double share : {0.25, 0.5, 1.0}) {
      double best = INFINITY;
      for (const auto& [name, curve] : results)
        if (name != "harl") best = std::min(best, curve.at(budget * share));
      against_best[std::to_string(static_cast<int>(budget * share))] = results["harl"].at(budget * share) / best;
    }
  }
  return {{"runs", dirs},
          {"tasks", traces->tasks.size()},
          {"budget_s", budget},
          {"harl_half_vs_gradient_full", ratio("harl", budget / 2, "gradient", budget)},
          {"harl_end_vs_round_robin_end", ratio("harl", budget, "round_robin", budget)},
          {"harl_vs_best_other_at", against_best}};
}

}  // namespace

nlohmann::json run_allocator_replay() {
  std::vector<std::string> names = agents::allocator_names();
  if (const char* chosen = std::getenv("TESSERA_REPLAY_ALLOCATORS"); chosen && *chosen) names = words_of(chosen);
  std::vector<std::vector<std::string>> sets;
  if (const char* runs = std::getenv("TESSERA_REPLAY_RUNS"); runs && *runs) {
    sets.push_back(words_of(runs));
  } else {
    sets = shipped_trace_sets();
    if (sets.empty()) return {{"case", "allocator_replay"}, {"error", "no traces under tests/data/network_traces"}};
  }
  std::FILE* choices = nullptr;
  if (const char* path = std::getenv("TESSERA_REPLAY_CHOICES"); path && *path) {
    choices = std::fopen(path, "w");
    if (!choices) return {{"case", "allocator_replay"}, {"error", std::string("cannot write TESSERA_REPLAY_CHOICES=") + path}};
  }
  nlohmann::json summaries = nlohmann::json::array();
  for (const auto& runs : sets) summaries.push_back(replay_set(runs, names, choices));
  if (choices) std::fclose(choices);
  return summaries;
}

}  // namespace tessera::bench

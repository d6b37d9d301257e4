// One agent tuning one task for a trial budget through the builder and isolated runner, as
// `tessera tune` does, with its time-to-quality curve: what the search cases (search_runs.cc)
// and the races (race_cases.cc) share. Records go to $TESSERA_BENCH_RECORDS (default
// build/bench_records) so they can train and evaluate the proxy later (`tessera proxy-eval`).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agents/search_loop.h"
#include "bench/measure.h"
#include "env/tuning_task.h"
#include "experiments/config.h"
#include "experiments/search_setup.h"

namespace tessera::bench {

struct Checkpoint {
  int trials;
  double seconds;
  double gflops;
};

struct SearchRun {
  std::unique_ptr<env::TuningTask> task;
  std::vector<Checkpoint> curve;
  double seconds = 0;
  double propose_seconds = 0;  // the agent proposing and observing
};

double round1(double v);
// The seed of the single-task search cases: $TESSERA_SEED, default 1.
uint64_t bench_seed();
std::filesystem::path records_dir();
// A fresh records file for one run (an earlier run's file of that name is removed).
std::string records_path(const std::string& name);

// `trials` of `agent_name` on `dag`; `stop` may also end it early (a race stops a challenger on
// reaching the target or past the time allowed); its trials are set from `trials`.
Result<SearchRun> search(const schedule::ComputeDAG& dag, const std::string& agent_name, int trials,
                         uint64_t seed, const runtime::MeasureOptions& measure, const std::string& records,
                         agents::StopRule stop = {});

// Where the search's seconds went (runtime::PhaseSeconds), and candidates measured per minute.
void add_phases(nlohmann::json& line, const SearchRun& run);
// [trials, seconds, best GFLOP/s] per batch.
nlohmann::json curve_json(const std::vector<Checkpoint>& curve);
// Best GFLOP/s after `trials` trials (the last checkpoint at or before it).
double best_at(const std::vector<Checkpoint>& curve, int trials);
// Seconds until the curve first reached `gflops` (-1: never).
double seconds_to(const std::vector<Checkpoint>& curve, double gflops);

// The op-suite tasks, narrowed by TESSERA_SUITE_TASKS (comma-separated names); each is built
// and handed to `each`, whose lines are collected.
template <typename PerTask>
nlohmann::json for_each_suite_task(PerTask each) {
  const std::string source = TESSERA_SOURCE_DIR "/configs/op_suite.yaml";
  auto config = experiments::load_config(source);
  if (!config) return error_json(config->source + ": " + config.error().message);
  const char* only = std::getenv("TESSERA_SUITE_TASKS");
  nlohmann::json lines = nlohmann::json::array();
  for (const experiments::TaskSpec& spec : config->tasks) {
    if (only && ("," + std::string(only) + ",").find("," + spec.name + ",") == std::string::npos) continue;
    auto dag = experiments::build_task(spec);
    if (!dag) return error_json(spec.name + ": " + dag.error().message);
    for (nlohmann::json& line : each(spec, *dag, *config)) lines.push_back(std::move(line));
  }
  return lines;
}

// The records file of an op-suite task's run by `agent` (its name, and a fresh path).
std::string suite_records_name(const std::string& task, const std::string& agent, int trials);
std::string suite_records(const std::string& task, const std::string& agent, int trials);

}  // namespace tessera::bench

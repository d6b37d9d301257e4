// The harl race (issue 8's yardstick, `harl_race`): on each op-suite task, evolutionary search
// for the trial budget, then each challenger until it matches that best or has used half of
// evolutionary's time; and `harl_race_recheck`, the fastest schedule each recorded, compiled,
// checked and re-timed alternately in one process.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "bench/cases.h"
#include "bench/search_run.h"
#include "runtime/check.h"
#include "runtime/parallel_runtime.h"
#include "runtime/records.h"

namespace tessera::bench {

namespace {

// The evolutionary line of `task` in the file $TESSERA_RACE_BASELINE names (earlier harl_race
// output), if that variable is set: it stands in for running evolutionary search again, to try a
// challenger quickly. A verdict needs both in one run (the machine's state changes).
Result<std::optional<nlohmann::json>> earlier_baseline(const std::string& task) {
  const char* path = std::getenv("TESSERA_RACE_BASELINE");
  if (path == nullptr || *path == 0) return std::optional<nlohmann::json>{};
  std::ifstream in(path);
  if (!in) return make_error(std::string("TESSERA_RACE_BASELINE: cannot read ") + path);
  std::optional<nlohmann::json> latest;  // a task's latest line wins, as in race_summary.py
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto json = nlohmann::json::parse(text, nullptr, false);
    const std::string where = std::string(path) + ":" + std::to_string(line);
    if (json.is_discarded() || !json.is_object()) return make_error(where + ": not a JSON object");
    if (json.value("task", "") != task || json.value("agent", "") != "evolutionary") continue;
    for (const char* field : {"best_gflops", "search_seconds"}) {
      if (!json.contains(field) || !json[field].is_number()) return make_error(where + ": " + field + ": not a number");
    }
    json["from"] = path;
    latest = std::move(json);
  }
  if (!latest) return make_error(std::string(path) + ": no evolutionary line for " + task);
  return latest;
}

}  // namespace

nlohmann::json run_search_race(const std::vector<std::string>& challengers, int trials) {
  return for_each_suite_task([&](const experiments::TaskSpec& spec, const schedule::ComputeDAG& dag,
                                 const experiments::TuneConfig& config) {
    std::vector<nlohmann::json> lines;
    auto error_lines = [&](const std::string& message) {
      return std::vector<nlohmann::json>{{{"task", spec.name}, {"error", message}}};
    };
    auto earlier = earlier_baseline(spec.name);
    if (!earlier) return error_lines(earlier.error().message);
    double target = 0, evo_seconds = 0;
    if (*earlier) {
      lines.push_back(**earlier);
      target = lines.back()["best_gflops"].get<double>();
      evo_seconds = lines.back()["search_seconds"].get<double>();
    } else {
      auto evo = search(dag, "evolutionary", trials, config.seed, config.measure,
                        suite_records(spec.name, "evolutionary", trials));
      if (!evo) return error_lines(evo.error().message);
      lines.push_back({{"task", spec.name}, {"workload", dag.summary()}, {"agent", "evolutionary"},
                       {"trials", evo->task->trials()}, {"search_seconds", std::round(evo->seconds)},
                       {"best_gflops", round1(evo->task->best_gflops())}, {"curve", curve_json(evo->curve)},
                       {"threads", 1}});
      add_phases(lines.back(), *evo);
      target = evo->task->best_gflops();
      evo_seconds = evo->seconds;
    }
    for (const std::string& agent : challengers) {
      // Stopped once it matches the baseline, or once it has had the time the criterion allows.
      agents::StopRule stop;
      stop.target_gflops = target;
      stop.seconds = evo_seconds / 2;
      auto run = search(dag, agent, trials, config.seed, config.measure, suite_records(spec.name, agent, trials), stop);
      if (!run) {
        lines.push_back({{"task", spec.name}, {"agent", agent}, {"error", run.error().message}});
        continue;
      }
      const double reached_at = seconds_to(run->curve, target);
      lines.push_back({{"task", spec.name}, {"workload", dag.summary()}, {"agent", agent},
                       {"trials", run->task->trials()}, {"search_seconds", std::round(run->seconds)},
                       {"best_gflops", round1(run->task->best_gflops())},
                       {"evolutionary_final_gflops", round1(target)},
                       {"evolutionary_seconds", std::round(evo_seconds)},
                       {"seconds_to_evolutionary_final", round1(reached_at)},
                       {"within_half_of_evolutionary_time", reached_at >= 0 && reached_at <= evo_seconds / 2},
                       // Within measurement noise of the baseline (repeat spread is about 1-2%).
                       {"seconds_to_99pct_of_evolutionary_final", round1(seconds_to(run->curve, 0.99 * target))},
                       {"curve", curve_json(run->curve)}, {"threads", 1},
                       {"sources", run->task->credit().to_json()}});
      add_phases(lines.back(), *run);
    }
    return lines;
  });
}

namespace {

// The fastest correct schedule an op-suite run recorded, compiled and checked again.
struct RecordedBest {
  double recorded_gflops = 0;
  CompiledSchedule compiled;
};

Result<RecordedBest> recorded_best(const schedule::ComputeDAG& dag, const std::string& records) {
  auto file = runtime::read_records(records);
  if (!file) return file.error();
  env::TaskOptions options;
  options.measurable = false;
  auto task = env::TuningTask::create(dag, options);
  if (!task) return task.error();
  (*task)->restore(file->records);
  if (!(*task)->best()) return make_error(records + ": no correct measurement of this task");
  const env::Candidate& best = (*task)->best()->candidate;
  auto compiled = compile_and_check(dag, (*task)->sketch(best).steps(best.knobs), 1);
  if (!compiled) return make_error(records + ": best schedule: " + compiled.error().message);
  return RecordedBest{(*task)->best_gflops(), std::move(*compiled)};
}

}  // namespace

nlohmann::json run_race_recheck(const std::string& challenger, int trials) {
  runtime::set_num_threads(1);
  return for_each_suite_task([&](const experiments::TaskSpec& spec, const schedule::ComputeDAG& dag,
                                 const experiments::TuneConfig&) {
    auto error_line = [&](const std::string& message) {
      return std::vector<nlohmann::json>{{{"task", spec.name}, {"error", message}}};
    };
    auto evo = recorded_best(dag, (records_dir() / (suite_records_name(spec.name, "evolutionary", trials) + ".jsonl")).string());
    if (!evo) return error_line(evo.error().message);
    auto ours = recorded_best(dag, (records_dir() / (suite_records_name(spec.name, challenger, trials) + ".jsonl")).string());
    if (!ours) return error_line(ours.error().message);
    auto check = runtime::make_measure_task(dag);
    if (!check) return error_line(check.error().message);
    auto buffers = runtime::task_buffers(*check);
    std::vector<void*> args;
    for (auto& b : buffers) args.push_back(b->data());
    ours->compiled.kernel->prepare_unchecked(args.data());
    evo->compiled.kernel->prepare_unchecked(args.data());
    Medians m = time_alternately([&] { ours->compiled.kernel->run_unchecked(args.data()); },
                                 [&] { evo->compiled.kernel->run_unchecked(args.data()); });
    const double flops = dag.flop_count();
    const double ours_gflops = flops / m.tessera_seconds * 1e-9, evo_gflops = flops / m.baseline_seconds * 1e-9;
    return std::vector<nlohmann::json>{{{"task", spec.name}, {"workload", dag.summary()}, {"agent", challenger},
                                        {"recorded_gflops", round1(ours->recorded_gflops)},
                                        {"evolutionary_recorded_gflops", round1(evo->recorded_gflops)},
                                        {"remeasured_gflops", round1(ours_gflops)},
                                        {"evolutionary_remeasured_gflops", round1(evo_gflops)},
                                        {"remeasured_ratio", std::round(ours_gflops / evo_gflops * 1000) / 1000},
                                        {"threads", 1}}};
  });
}

}  // namespace tessera::bench

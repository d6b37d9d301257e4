// Search benchmarks: an agent from the registry tunes a task for a trial budget through the
// builder and isolated runner (as `tessera tune` does), recording its time-to-quality curve;
// the best kernel is then checked and timed against the vendor library, or strategies are
// compared on the op suite (see search_run.h; the races are in race_cases.cc).
#include <cblas.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <map>

#include "agents/registry.h"
#include "agents/search_loop.h"
#include "bench/cases.h"
#include "bench/search_run.h"
#include "experiments/config.h"
#include "experiments/search_setup.h"
#include "runtime/check.h"
#include "runtime/parallel_runtime.h"
#include "runtime/records.h"

namespace tessera::bench {

double round1(double v) { return std::round(v * 10) / 10; }

uint64_t bench_seed() {
  const char* seed = std::getenv("TESSERA_SEED");
  return seed ? std::strtoull(seed, nullptr, 10) : 1;
}

std::filesystem::path records_dir() {
  const char* dir = std::getenv("TESSERA_BENCH_RECORDS");
  return dir ? dir : TESSERA_BINARY_DIR "/bench_records";
}

std::string records_path(const std::string& name) {
  std::filesystem::create_directories(records_dir());
  auto path = records_dir() / (name + ".jsonl");
  std::filesystem::remove(path);  // one run's records per file
  return path.string();
}

Result<SearchRun> search(const schedule::ComputeDAG& dag, const std::string& agent_name, int trials,
                         uint64_t seed, const runtime::MeasureOptions& measure, const std::string& records,
                         agents::StopRule stop) {
  env::TaskOptions options;
  options.measure = measure;
  options.measure.threads = 1;
  // TESSERA_GIVE_UP_RATIO: measure.give_up_ratio for the search (0: every candidate gets every repeat).
  if (const char* ratio = std::getenv("TESSERA_GIVE_UP_RATIO")) options.measure.give_up_ratio = std::atof(ratio);
  options.records_path = records;
  options.seed = seed;
  auto task = env::TuningTask::create(dag, options);
  if (!task) return task.error();
  experiments::SearchSpec spec{agent_name, {}};
  std::shared_ptr<env::CostModel> model;
  if (experiments::needs_cost_model(spec)) {
    auto made = experiments::make_cost_model(experiments::ProxySpec{}, seed);
    if (!made) return made.error();
    model = *made;
  }
  auto agent = experiments::make_agent(spec, seed, model);  // registers the learned agents too
  if (!agent) return agent.error();
  SearchRun run;
  run.task = std::move(*task);
  stop.trials = trials;
  agents::LoopOptions loop;
  loop.batch_size = agent_name == "droplet" ? 16 : 64;
  agents::run_search_loop(**agent, *run.task, stop, loop, [&](const agents::LoopProgress& p) {
    run.seconds = p.elapsed_seconds;
    run.propose_seconds = p.search_seconds;
    run.curve.push_back({p.trials, p.elapsed_seconds, run.task->best_gflops()});
    std::fprintf(stderr, "[%s %s] %d/%d trials, best %.1f GFLOP/s, %.0f s (%.0f s measuring)\n", agent_name.c_str(),
                 dag.summary().c_str(), p.trials, trials, run.task->best_gflops(), p.elapsed_seconds, p.measure_seconds);
    return true;
  });
  if (!run.task->best()) return make_error(agent_name + ": no candidate measured correctly");
  return run;
}

void add_phases(nlohmann::json& line, const SearchRun& run) {
  const runtime::PhaseSeconds phases = run.task->phase_seconds();
  if (phases.build > 0 || phases.run > 0) {  // a measurer that does not split its time reports none
    line["seconds_by_phase"] = {{"propose", round1(run.propose_seconds)}, {"build", round1(phases.build)},
                                {"run", round1(phases.run)}};
  }
  if (run.seconds > 0) line["candidates_per_minute"] = std::round(run.task->trials() * 60 / run.seconds);
}

nlohmann::json curve_json(const std::vector<Checkpoint>& curve) {
  nlohmann::json out = nlohmann::json::array();
  for (const Checkpoint& c : curve) out.push_back({c.trials, round1(c.seconds), round1(c.gflops)});
  return out;
}

double best_at(const std::vector<Checkpoint>& curve, int trials) {
  double best = 0;
  for (const Checkpoint& c : curve) {
    if (c.trials <= trials) best = c.gflops;
  }
  return best;
}

double seconds_to(const std::vector<Checkpoint>& curve, double gflops) {
  for (const Checkpoint& c : curve) {
    if (c.gflops >= gflops) return c.seconds;
  }
  return -1;
}

namespace {

// The candidate a search reports, as `tessera tune` picks it: its fastest few re-timed side by
// side (measure.retime_top's default, 5, for 5 rounds), the fastest of those, so that one lucky
// measurement among hundreds of near-equal candidates is not what the bench compares; the
// search's own best when re-timing fails.
env::Candidate reported_best(const SearchRun& run, nlohmann::json& line) {
  const env::Candidate& best = run.task->best()->candidate;
  auto retimed = run.task->retime(5, 5);
  if (retimed.empty() || !retimed[0].ok()) return best;
  // GFLOP/s of the DAG's own count (every stage's points: a conv's pad copy and epilogue too,
  // unlike the useful FLOPs a baseline comparison counts); the time beside it compares across.
  line["retimed_best_gflops"] = round1(run.task->dag().flop_count() / retimed[0].seconds() * 1e-9);
  line["retimed_best_us"] = round1(retimed[0].seconds() * 1e6);
  return retimed[0].candidate;
}

void describe_search(nlohmann::json& line, const std::string& agent, const SearchRun& run,
                     const env::Candidate& reported) {
  const schedule::Sketch& sketch = run.task->sketch(reported);
  line["agent"] = agent;
  line["trials"] = run.task->trials();
  line["search_seconds"] = std::round(run.seconds);
  line["search_best_gflops"] = round1(run.task->best_gflops());  // the DAG's count, as above
  line["search_best_us"] = round1(run.task->best()->seconds() * 1e6);
  line["best_sketch"] = sketch.id;
  line["best_knobs"] = sketch.knobs.to_json(reported.knobs);
  line["curve"] = curve_json(run.curve);  // [trials, seconds, best GFLOP/s] per batch
  line["threads"] = 1;
  line["best_source"] = reported.source;
  line["sources"] = run.task->credit().to_json();  // per proposing source: measured, improvements, best
  add_phases(line, run);
}

runtime::MeasureOptions bench_measure() {
  runtime::MeasureOptions m;
  m.run_timeout_s = 10;
  return m;
}

}  // namespace

nlohmann::json run_search_sgemm(const std::string& agent, int64_t n, int trials) {
  auto dag = schedule::matmul(n, n, n);
  auto run = search(*dag, agent, trials, bench_seed(), bench_measure(), records_path(agent + "_sgemm_" + std::to_string(n)));
  if (!run) return error_json(run.error().message);
  runtime::set_num_threads(1);
  openblas_set_num_threads(1);
  nlohmann::json retimed;
  const env::Candidate best = reported_best(*run, retimed);
  auto compiled = compile_and_check(*dag, run->task->sketch(best).steps(best.knobs));
  if (!compiled) return error_json(compiled.error().message);
  nlohmann::json line = compare_with_openblas(*dag, n, *compiled);
  line.update(retimed);
  describe_search(line, agent, *run, best);
  return line;
}

Result<CompiledSchedule> search_and_compile(const schedule::ComputeDAG& dag, const std::string& agent, int trials,
                                            const std::string& records, nlohmann::json& line) {
  auto run = search(dag, agent, trials, bench_seed(), bench_measure(), records_path(records));
  if (!run) return run.error();
  runtime::set_num_threads(1);
  const env::Candidate best = reported_best(*run, line);
  auto compiled = compile_and_check(dag, run->task->sketch(best).steps(best.knobs));
  if (!compiled) return compiled.error();
  describe_search(line, agent, *run, best);
  return std::move(*compiled);
}

nlohmann::json run_search_conv2d(const std::string& agent, const schedule::Conv2dParams& p, int trials) {
  auto dag = schedule::conv2d_bias_relu(p);
  if (!dag) return error_json(dag.error().message);
  auto run = search(*dag, agent, trials, bench_seed(), bench_measure(), records_path(agent + "_conv2d_c64_56_k64_" +
                                                                        (p.layout == schedule::Layout::kNHWC ? "nhwc" : "nchw")));
  if (!run) return error_json(run.error().message);
  nlohmann::json retimed;
  const env::Candidate best = reported_best(*run, retimed);
  auto compiled = compile_and_check(*dag, run->task->sketch(best).steps(best.knobs));
  if (!compiled) return error_json(compiled.error().message);
  nlohmann::json line = compare_with_onednn(p, *dag, *compiled, 1);
  line.update(retimed);
  describe_search(line, agent, *run, best);
  return line;
}

std::string suite_records_name(const std::string& task, const std::string& agent, int trials) {
  return "suite_" + task + "_" + agent + "_" + std::to_string(trials);
}

std::string suite_records(const std::string& task, const std::string& agent, int trials) {
  return records_path(suite_records_name(task, agent, trials));
}

nlohmann::json run_search_suite(const std::vector<std::string>& agents, int trials) {
  return for_each_suite_task([&](const experiments::TaskSpec& spec, const schedule::ComputeDAG& dag,
                                 const experiments::TuneConfig& config) {
    std::vector<nlohmann::json> lines;
    std::map<std::string, SearchRun> runs;
    double best_any = 0;
    for (const std::string& agent : agents) {
      auto run = search(dag, agent, trials, config.seed, config.measure, suite_records(spec.name, agent, trials));
      if (!run) {
        lines.push_back({{"task", spec.name}, {"agent", agent}, {"error", run.error().message}});
        continue;
      }
      best_any = std::max(best_any, run->task->best_gflops());
      runs.emplace(agent, std::move(*run));
    }
    // The issue-8 yardstick: how soon each strategy reaches the evolutionary baseline's final best.
    auto evo = runs.find("evolutionary");
    const double evo_final = evo == runs.end() ? 0.0 : evo->second.task->best_gflops();
    for (const auto& [agent, run] : runs) {
      nlohmann::json line = {{"task", spec.name}, {"workload", dag.summary()}, {"agent", agent},
                             {"trials", run.task->trials()}, {"search_seconds", std::round(run.seconds)},
                             {"best_gflops", round1(run.task->best_gflops())},
                             {"best_any_gflops", round1(best_any)},
                             {"seconds_to_95pct_of_best_any", round1(seconds_to(run.curve, 0.95 * best_any))},
                             {"curve", curve_json(run.curve)}, {"threads", 1}};
      if (evo_final > 0) {
        line["evolutionary_final_gflops"] = round1(evo_final);
        line["evolutionary_seconds"] = std::round(evo->second.seconds);
        line["seconds_to_evolutionary_final"] = round1(seconds_to(run.curve, evo_final));
      }
      for (int at : {64, 200, 1000}) {
        if (at <= trials) line["best_gflops_at_" + std::to_string(at)] = round1(best_at(run.curve, at));
      }
      line["sources"] = run.task->credit().to_json();
      add_phases(line, run);
      lines.push_back(line);
    }
    return lines;
  });
}

}  // namespace tessera::bench

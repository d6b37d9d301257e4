// The tuning loop and the run directory (see tune.h).
#include "experiments/tune.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "agents/search_loop.h"
#include "env/tuning_task.h"
#include "experiments/run_outputs.h"
#include "experiments/search_setup.h"
#include "experiments/tune_network.h"
#include "runtime/cuda/driver.h"
#include "runtime/cuda/gpu_measurer.h"
#include "runtime/records.h"

namespace tessera::experiments {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using Log = RunLog;

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c, d);
  return text;
}

// The best is re-timed before it is reported (TuningTask::retime): the fastest few measured
// again side by side, and the fastest of them by re-timed median is the reported best. The
// in-search figure stays beside it.
void report_best(env::TuningTask& tuning, const TuneConfig& config, nlohmann::json& entry, Log& log,
                 const std::string& name) {
  const double flops = tuning.dag().flop_count(), bytes = tuning.dag().min_bytes();
  const env::Measurement& found = *tuning.best();
  env::Candidate reported = found.candidate;
  entry["best_seconds_in_search"] = found.seconds();
  entry["best_gflops_in_search"] = tuning.best_gflops();
  entry["best_gbps_in_search"] = bytes / found.seconds() * 1e-9;
  double seconds = found.seconds();
  if (config.retime_top > 0) {
    log.say("[" + name + "] re-timing the " + std::to_string(config.retime_top) +
            " fastest side by side, " + std::to_string(config.retime_rounds) + " rounds");
    auto retimed = tuning.retime(config.retime_top, config.retime_rounds);
    nlohmann::json list = nlohmann::json::array();
    for (const env::Retimed& r : retimed) {
      const auto& s = tuning.sketch(r.candidate);
      nlohmann::json item = {{"sketch", s.id}, {"knobs", s.knobs.to_json(r.candidate.knobs)},
                             {"search_seconds", r.search_seconds}};
      if (r.ok()) item["retimed_seconds"] = r.seconds();
      else item["error"] = std::string(runtime::to_string(r.error)) + ": " + r.message;
      list.push_back(item);
    }
    entry["retimed"] = list;
    if (!retimed.empty() && retimed[0].ok()) {
      reported = retimed[0].candidate;
      seconds = retimed[0].seconds();
      entry["best_seconds_retimed"] = seconds;
      entry["best_gflops_retimed"] = flops / seconds * 1e-9;
      entry["best_gbps_retimed"] = bytes / seconds * 1e-9;
    }
  }
  entry["best_seconds"] = seconds;
  entry["best_gflops"] = flops / seconds * 1e-9;
  // Bytes that must move (inputs read once, outputs written once) per second: the measure of
  // memory-bound ops, beside GFLOP/s for every op.
  entry["best_gbps"] = bytes / seconds * 1e-9;
  entry["best_sketch"] = tuning.sketch(reported).id;
  entry["best_knobs"] = tuning.sketch(reported).knobs.to_json(reported.knobs);
  entry["best_source"] = reported.source.empty() ? runtime::kUnknownSource : reported.source;
}

// The result table's line for a task: the reported (re-timed) figure, the in-search one beside.
void print_result(const std::string& name, const nlohmann::json& entry) {
  std::printf("%s: %d trials, best %.1f GFLOP/s", name.c_str(), entry["trials"].get<int>(),
              entry["best_gflops"].get<double>());
  if (entry.contains("best_gflops_retimed")) {
    std::printf(" re-timed (%.1f in search)", entry["best_gflops_in_search"].get<double>());
  }
  if (entry.contains("best_gbps")) std::printf(", %.1f GB/s", entry["best_gbps"].get<double>());
  if (entry.contains("best_sketch")) std::printf(" (%s)", entry["best_sketch"].get<std::string>().c_str());
  std::printf("\n");
}

}  // namespace

Result<std::vector<runtime::MeasureRecord>> read_resumable_records(const std::string& run_dir,
                                                                   std::vector<std::string>* warnings,
                                                                   const runtime::HardwareFingerprint* measured_on) {
  std::vector<runtime::MeasureRecord> records;
  for (const char* name : {"records.jsonl", "retimed.jsonl"}) {
    const std::string path = (fs::path(run_dir) / name).string();
    if (!fs::exists(path)) continue;
    auto file = runtime::read_records(path);
    if (!file) return file.error();
    if (auto here = runtime::check_measured_here(file->records, path, measured_on); !here) return here.error();
    warnings->insert(warnings->end(), file->warnings.begin(), file->warnings.end());
    records.insert(records.end(), std::make_move_iterator(file->records.begin()), std::make_move_iterator(file->records.end()));
  }
  return records;
}

int run_tune(const TuneConfig& config, std::shared_ptr<runtime::Measurer> measurer) {
  // The cuda target measures on a GPU: without one, say so in one line and change nothing.
  std::optional<runtime::HardwareFingerprint> gpu_fingerprint;
  std::optional<runtime::cuda::GpuInfo> gpu;
  if (config.target_kind == "cuda") {
    auto probed = runtime::cuda::probe_gpu();
    if (!probed) {
      std::fprintf(stderr, "tessera tune: target cuda (%s) needs a GPU and this machine has none: %s\n",
                   config.cuda_arch.c_str(), probed.error().message.c_str());
      return 1;
    }
    if (!config.network.empty()) {
      std::fprintf(stderr, "tessera tune: network tuning runs on cpu only for now (target.kind cuda)\n");
      return 1;
    }
    gpu = *probed;
    gpu_fingerprint = runtime::host_fingerprint();
    gpu_fingerprint->gpu = gpu->name + "|" + std::to_string(gpu->sm_count) + "|" + gpu->arch() + "|" +
                           std::to_string(gpu->driver_version);
  }
  if (!config.network.empty()) return run_tune_network(config, measurer);
  std::error_code ec;
  fs::create_directories(config.run_dir, ec);
  if (ec) {
    std::fprintf(stderr, "tessera tune: cannot create run directory '%s': %s\n", config.run_dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  const fs::path dir(config.run_dir);
  const std::string records_path = (dir / "records.jsonl").string();
  const std::string curve_path = (dir / "curve.csv").string();

  // Earlier records are read and checked before anything is written: a run directory that
  // cannot be resumed here is left exactly as it was.
  std::vector<std::string> record_warnings;
  auto resumable = read_resumable_records(config.run_dir, &record_warnings, gpu_fingerprint ? &*gpu_fingerprint : nullptr);
  if (!resumable) {
    std::fprintf(stderr, "tessera tune: %s\n", resumable.error().message.c_str());
    return 1;
  }
  const std::vector<runtime::MeasureRecord> earlier = std::move(*resumable);
  std::ofstream(dir / "config.yaml") << resolved_config(config).dump(2) << "\n";
  Log log((dir / "run.log").string());
  for (const std::string& w : record_warnings) log.say("warning: " + w);
  std::vector<CurvePoint> curve = read_curve(curve_path);

  nlohmann::json summary = {{"config", config.source}, {"tasks", nlohmann::json::array()}};
  int failed_tasks = 0;
  std::shared_ptr<env::CostModel> model;
  if (needs_cost_model(config.search)) {
    auto made = make_cost_model(config.proxy, config.seed);
    if (!made) {
      log.say("tessera tune: " + made.error().message);
      return 1;
    }
    model = *made;
  }
  for (size_t t = 0; t < config.tasks.size(); ++t) {
    const TaskSpec& spec = config.tasks[t];
    auto dag = build_task(spec);
    double spent_before = 0;
    for (const CurvePoint& p : curve) {
      if (p.task == spec.name) spent_before = std::max(spent_before, p.elapsed_seconds);
    }
    const auto start = Clock::now();
    auto elapsed = [&] { return spent_before + std::chrono::duration<double>(Clock::now() - start).count(); };
    // A curve point per measurement carries the time spent with it: a kill loses neither.
    env::TuningTask* measuring = nullptr;
    auto add_curve_point = [&] {
      const auto& best = measuring->best();
      CurvePoint point{spec.name, measuring->trials(), elapsed(), best ? best->seconds() : 0.0,
                       measuring->best_gflops(), best ? measuring->dag().min_bytes() / best->seconds() * 1e-9 : 0.0};
      append_curve(curve_path, point);
      curve.push_back(point);
    };
    env::TaskOptions options = task_options(config, measurer);
    options.on_measured = [&](const env::Measurement&) { add_curve_point(); };
    if (gpu) {
      runtime::cuda::CudaBuildOptions build;
      build.arch = config.cuda_arch;
      build.timeout_s = config.measure.compile_timeout_s;
      options.gpu = true;
      options.target = "cuda-" + config.cuda_arch;
      options.gpu_fingerprint = gpu_fingerprint->gpu;
      options.measurer = std::make_shared<runtime::cuda::GpuMeasurer>(build, config.measure, config.seed);
    }
    auto task = dag ? env::TuningTask::create(*dag, options) : Result<std::unique_ptr<env::TuningTask>>(dag.error());
    if (!task) {
      log.say("tessera tune: task '" + spec.name + "': " + task.error().message);
      ++failed_tasks;
      continue;
    }
    env::TuningTask& tuning = **task;
    measuring = &tuning;
    int restored = tuning.restore(earlier);
    if (restored > 0) {
      log.say("[" + spec.name + "] resuming: " + std::to_string(restored) + " trials restored from " +
              records_path + format(", best %.1f GFLOP/s, %.0f s spent", tuning.best_gflops(), spent_before));
    }
    auto agent = make_agent(config.search, config.seed + t, model, (dir / "agent_state" / spec.name).string());
    if (!agent) {
      log.say("tessera tune: " + agent.error().message);
      return 1;
    }
    // The one search loop (agents/search_loop.h): defaults first, then the agent's batches, a
    // progress line after each.
    agents::StopRule stop;
    stop.trials = config.trials;
    stop.seconds = config.seconds;
    stop.seconds_before = elapsed();  // earlier runs' time and this one's so far (the reference)
    agents::LoopOptions loop;
    loop.batch_size = config.batch_size;
    loop.defaults_first = !gpu;
    const agents::LoopResult ran = agents::run_search_loop(**agent, tuning, stop, loop, [&](const agents::LoopProgress& p) {
      for (const std::string& w : tuning.warnings()) log.say("warning: " + w);
      std::string line = "[" + spec.name + "] " + std::to_string(p.trials) + "/" + std::to_string(config.trials) +
                         " trials" +
                         format(", best %.1f GFLOP/s, %.1f GB/s, elapsed %.0f s", tuning.best_gflops(),
                                tuning.best() ? dag->min_bytes() / tuning.best()->seconds() * 1e-9 : 0.0, p.elapsed_seconds);
      if (config.seconds > 0) line += format(", %.0f s left", std::max(0.0, config.seconds - p.elapsed_seconds));
      log.say(line);
      return true;
    });
    const bool converged = ran.reason == agents::StopReason::kConverged;
    const double searching = ran.progress.search_seconds, measuring_seconds = ran.progress.measure_seconds;
    nlohmann::json entry = {{"name", spec.name},
                            {"workload_key", dag->workload_key()},
                            {"workload", dag->summary()},
                            {"trials", tuning.trials()},
                            {"elapsed_seconds", elapsed()},
                            {"converged", converged},
                            {"stopped_by", agents::to_string(ran.reason)},  // trials, seconds, converged
                            {"search_seconds", searching},       // proposing and learning (this session)
                            {"measure_seconds", measuring_seconds},  // building and timing (this session)
                            {"best_gflops", tuning.best_gflops()}};
    entry["sources"] = tuning.credit().to_json();  // per proposing source: measured, improvements, best
    for (const std::string& line : tuning.credit().lines()) log.say("[" + spec.name + "] source " + line);
    if (tuning.best()) {
      report_best(tuning, config, entry, log, spec.name);
    } else {
      ++failed_tasks;
      log.say("[" + spec.name + "] no candidate ran correctly; see " + records_path);
    }
    summary["tasks"].push_back(entry);
    print_result(spec.name, entry);
  }
  if (model) {
    if (auto saved = save_cost_model(*model, (dir / "proxy.pt").string()); !saved) {
      log.say("warning: " + saved.error().message);
    }
  }
  std::ofstream(dir / "summary.json") << summary.dump(2) << "\n";
  std::ofstream(dir / "curve.svg") << curve_svg(curve);
  std::printf("run directory: %s (records.jsonl, curve.csv, curve.svg, summary.json, run.log)\n",
              config.run_dir.c_str());
  return failed_tasks == 0 ? 0 : 1;
}

}  // namespace tessera::experiments

// The tuning loop and the run directory (see tune.h).
#include "experiments/tune.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "env/tuning_task.h"
#include "experiments/run_outputs.h"
#include "experiments/search_setup.h"
#include "runtime/records.h"

namespace tessera::experiments {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Lines for the user (stderr) and the run's log.
class Log {
 public:
  explicit Log(const std::string& path) : file_(path, std::ios::app) {}
  void say(const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    file_ << line << "\n";
    file_.flush();
  }

 private:
  std::ofstream file_;
};

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c, d);
  return text;
}

}  // namespace

int run_tune(const TuneConfig& config) {
  std::error_code ec;
  fs::create_directories(config.run_dir, ec);
  if (ec) {
    std::fprintf(stderr, "tessera tune: cannot create run directory '%s': %s\n", config.run_dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  const fs::path dir(config.run_dir);
  std::ofstream(dir / "config.yaml") << resolved_config(config).dump(2) << "\n";
  Log log((dir / "run.log").string());
  const std::string records_path = (dir / "records.jsonl").string();
  const std::string curve_path = (dir / "curve.csv").string();

  std::vector<runtime::MeasureRecord> earlier;
  if (fs::exists(records_path)) {
    auto file = runtime::read_records(records_path);
    if (!file) {
      log.say("tessera tune: " + file.error().message);
      return 1;
    }
    for (const std::string& w : file->warnings) log.say("warning: " + w);
    earlier = std::move(file->records);
  }
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
    env::TaskOptions options;
    options.measure = config.measure;
    options.measure.threads = config.threads;
    options.build.timeout_s = config.measure.compile_timeout_s;
    options.records_path = records_path;
    options.seed = config.seed;
    auto task = dag ? env::TuningTask::create(*dag, options) : Result<std::unique_ptr<env::TuningTask>>(dag.error());
    if (!task) {
      log.say("tessera tune: task '" + spec.name + "': " + task.error().message);
      ++failed_tasks;
      continue;
    }
    env::TuningTask& tuning = **task;
    int restored = tuning.restore(earlier);
    double spent_before = 0;
    for (const CurvePoint& p : curve) {
      if (p.task == spec.name) spent_before = std::max(spent_before, p.elapsed_seconds);
    }
    if (restored > 0) {
      log.say("[" + spec.name + "] resuming: " + std::to_string(restored) + " trials restored from " +
              records_path + format(", best %.1f GFLOP/s, %.0f s spent", tuning.best_gflops(), spent_before));
    }
    auto agent = make_agent(config.search, config.seed + t, model, (dir / "agent_state" / spec.name).string());
    if (!agent) {
      log.say("tessera tune: " + agent.error().message);
      return 1;
    }
    const auto start = Clock::now();
    auto elapsed = [&] { return spent_before + std::chrono::duration<double>(Clock::now() - start).count(); };
    bool converged = false;
    while (tuning.trials() < config.trials && (config.seconds <= 0 || elapsed() < config.seconds)) {
      if ((*agent)->done()) {
        converged = true;
        break;
      }
      int want = static_cast<int>(std::min<int64_t>(config.batch_size, config.trials - tuning.trials()));
      auto candidates = (*agent)->propose(tuning, want);
      if (candidates.empty()) {
        converged = true;
        break;
      }
      (*agent)->observe(tuning, tuning.measure(candidates));
      for (const std::string& w : tuning.warnings()) log.say("warning: " + w);
      CurvePoint point{spec.name, tuning.trials(), elapsed(), tuning.best() ? tuning.best()->seconds() : 0.0,
                       tuning.best_gflops()};
      append_curve(curve_path, point);
      curve.push_back(point);
      double left = config.seconds > 0 ? std::max(0.0, config.seconds - elapsed()) : -1;
      std::string line = "[" + spec.name + "] " + std::to_string(tuning.trials()) + "/" +
                         std::to_string(config.trials) + " trials" +
                         format(", best %.1f GFLOP/s, elapsed %.0f s", tuning.best_gflops(), elapsed());
      if (left >= 0) line += format(", %.0f s left", left);
      log.say(line);
    }
    nlohmann::json entry = {{"name", spec.name},
                            {"workload_key", dag->workload_key()},
                            {"workload", dag->summary()},
                            {"trials", tuning.trials()},
                            {"elapsed_seconds", elapsed()},
                            {"converged", converged},
                            {"best_gflops", tuning.best_gflops()}};
    if (tuning.best()) {
      const auto& best = *tuning.best();
      entry["best_seconds"] = best.seconds();
      entry["best_sketch"] = tuning.sketch(best.candidate).id;
      entry["best_knobs"] = tuning.sketch(best.candidate).knobs.to_json(best.candidate.knobs);
    } else {
      ++failed_tasks;
      log.say("[" + spec.name + "] no candidate ran correctly; see " + records_path);
    }
    summary["tasks"].push_back(entry);
    std::printf("%s: %d trials, best %.1f GFLOP/s%s\n", spec.name.c_str(), tuning.trials(),
                tuning.best_gflops(), tuning.best() ? (" (" + tuning.sketch(tuning.best()->candidate).id + ")").c_str() : "");
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

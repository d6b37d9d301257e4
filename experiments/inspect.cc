// Reading a run directory back (see inspect.h).
#include "experiments/inspect.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "experiments/config.h"
#include "experiments/run_tasks.h"
#include "graph/onnx/import.h"
#include "graph/prepare.h"
#include "runtime/builder.h"
#include "runtime/records.h"
#include "runtime/runner.h"
#include "runtime/source_credit.h"
#include "schedule/lower.h"
#include "schedule/sketch.h"
#include "schedule/step_json.h"

namespace tessera::experiments {
namespace {

struct BestOfTask {
  std::string name;
  schedule::ComputeDAG dag;
  runtime::MeasureRecord record;
  std::vector<schedule::Step> steps;
  double reported_seconds = 0;   // re-timed when the run re-timed it, else the record's median
  bool retimed = false;
  runtime::CreditBySource credit;  // of the task's records, by the source that proposed each
};

// summary.json's entry for a task (null when there is none): it names the reported best.
nlohmann::json summary_entry(const std::filesystem::path& dir, const std::string& task) {
  std::ifstream in(dir / "summary.json");
  nlohmann::json summary = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (summary.is_discarded() || !summary.contains("tasks")) return nullptr;
  for (const auto& t : summary["tasks"]) {
    if (t.value("name", "") == task) return t;
  }
  return nullptr;
}

// The best correct record of every task of the run, with its steps.
Result<std::vector<BestOfTask>> load_bests(const std::string& run_dir, TuneConfig* config_out) {
  const std::filesystem::path dir(run_dir);
  auto config = load_config((dir / "config.yaml").string());
  if (!config) return config.error();
  // A network run from before Winograd convs has no `winograd` key: its tasks were direct.
  config->winograd = winograd_of_run(run_dir).value_or(config->winograd);
  auto file = runtime::read_records((dir / "records.jsonl").string());
  if (!file) return file.error();
  for (const std::string& w : file->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  auto tasks = run_tasks(*config);
  if (!tasks) return tasks.error();
  if (tasks->empty()) return make_error(run_dir + ": its config.yaml names no task and no network");
  std::vector<BestOfTask> bests;
  for (auto& [name, dag] : *tasks) {
    // The best the run reported (re-timed) if summary.json names it, else the fastest record.
    const nlohmann::json entry = summary_entry(dir, name);
    std::optional<runtime::MeasureRecord> best, reported;
    for (const auto& r : file->records) {
      if (r.workload_key != dag.workload_key() || r.error != runtime::MeasureError::kNone) continue;
      if (!best || ranks_before(r, *best)) best = r;  // cold times first, as the executor ranks
      if (!entry.is_null() && entry.contains("best_seconds_retimed") &&
          entry.value("best_sketch", "") == r.sketch && entry.value("best_knobs", nlohmann::json()) == r.knobs) {
        reported = r;
      }
    }
    if (!best) {
      std::fprintf(stderr, "%s: no correct measurement in %s\n", name.c_str(), run_dir.c_str());
      continue;
    }
    const runtime::MeasureRecord& chosen = reported ? *reported : *best;
    auto steps = schedule::steps_from_json(chosen.steps);
    if (!steps) return make_error(name + ": the best record's steps: " + steps.error().message);
    double seconds = reported ? entry["best_seconds_retimed"].get<double>() : chosen.median_cost();
    runtime::CreditBySource credit = runtime::credit_of(file->records, dag.workload_key());
    bests.push_back({name, std::move(dag), chosen, std::move(*steps), seconds, reported.has_value(), std::move(credit)});
  }
  if (bests.empty()) return make_error(run_dir + ": no task of the run has a correct record");
  *config_out = *config;
  return bests;
}

}  // namespace

int run_best(const std::string& run_dir) {
  TuneConfig config;
  auto bests = load_bests(run_dir, &config);
  if (!bests) {
    std::fprintf(stderr, "tessera best: %s\n", bests.error().message.c_str());
    return 1;
  }
  for (const BestOfTask& b : *bests) {
    double gflops = b.dag.flop_count() / b.reported_seconds * 1e-9;
    std::printf("== %s\nworkload %s\nbest %.3f ms (%.1f GFLOP/s)", b.name.c_str(),
                b.dag.workload_key().c_str(), b.reported_seconds * 1e3, gflops);
    if (b.retimed) {
      std::printf(" re-timed; %.3f ms (%.1f GFLOP/s) in search", b.record.median_cost() * 1e3,
                  b.dag.flop_count() / b.record.median_cost() * 1e-9);
    }
    std::printf(", sketch %s, proposed by %s\nknobs %s\nsteps %s\n", b.record.sketch.c_str(),
                b.record.source.empty() ? runtime::kUnknownSource : b.record.source.c_str(),
                b.record.knobs.dump().c_str(), b.record.steps.dump().c_str());
    std::printf("layouts %s\n", schedule::describe_layouts(b.steps).c_str());
    std::printf("sources:\n");
    for (const std::string& line : b.credit.lines()) std::printf("  %s\n", line.c_str());
    schedule::State state(b.dag);
    if (auto r = state.apply_all(b.steps); !r) {
      std::printf("(the steps no longer apply: %s)\n", r.error().message.c_str());
      continue;
    }
    auto func = schedule::lower(state, "best");
    if (func) std::printf("loop nest:\n%s", schedule::to_string(*func).c_str());
  }
  return bests->empty() ? 1 : 0;
}

int run_replay(const std::string& run_dir) {
  TuneConfig config;
  auto bests = load_bests(run_dir, &config);
  if (!bests) {
    std::fprintf(stderr, "tessera replay: %s\n", bests.error().message.c_str());
    return 1;
  }
  int failures = 0;
  runtime::Runner runner;
  for (const BestOfTask& b : *bests) {
    auto check = runtime::make_measure_task(b.dag, config.seed);
    if (!check) {
      std::fprintf(stderr, "%s: %s\n", b.name.c_str(), check.error().message.c_str());
      ++failures;
      continue;
    }
    auto builds = runtime::build_batch({{&b.dag, b.steps}});
    runtime::MeasureOptions options = config.measure;
    options.threads = config.threads;
    auto result = runner.measure(*check, builds[0], options);
    if (result.error != runtime::MeasureError::kNone) {
      std::printf("%s: replay FAILED: %s: %s\n", b.name.c_str(), runtime::to_string(result.error),
                  result.message.c_str());
      ++failures;
      continue;
    }
    double recorded = b.dag.flop_count() / b.reported_seconds * 1e-9;
    double now = b.dag.flop_count() / result.median() * 1e-9;
    std::printf("%s: recompiled, checked against the reference (max error %.2e): reported %.1f GFLOP/s%s, "
                "replayed %.1f GFLOP/s (%.2fx)\n",
                b.name.c_str(), result.max_error, recorded, b.retimed ? " (re-timed)" : "", now,
                now / recorded);
  }
  return failures == 0 && !bests->empty() ? 0 : 1;
}

int run_inspect(const std::vector<std::string>& args) {
  graph::ImportOptions options;
  std::string path;
  graph::ActivationLayout layout = graph::ActivationLayout::kNHWC;
  bool winograd = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const size_t eq = i + 1 < args.size() ? args[i + 1].find('=') : std::string::npos;
    if (args[i] == "--layout" && i + 1 < args.size() && graph::parse_layout(args[i + 1])) {
      layout = *graph::parse_layout(args[++i]);
    } else if (args[i] == "--winograd" && i + 1 < args.size() && (args[i + 1] == "on" || args[i + 1] == "off")) {
      winograd = args[++i] == "on";
    } else if (args[i] == "--dim" && eq != std::string::npos && eq > 0) {
      options.dim_values[args[i + 1].substr(0, eq)] = std::atoll(args[i + 1].c_str() + eq + 1);
      ++i;
    } else if (path.empty() && args[i].rfind("--", 0) != 0) {
      path = args[i];
    } else {
      std::fprintf(stderr, "tessera inspect: bad argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: tessera inspect MODEL.onnx [--layout nhwc|nchw] [--winograd on|off] [--dim NAME=VALUE ...]\n");
    return 2;
  }
  auto raw = graph::import_onnx(path, options);
  if (!raw) {
    std::fprintf(stderr, "%s\n", raw.error().message.c_str());
    return 1;
  }
  auto prepared = graph::prepare_network(*raw, layout, winograd);
  if (!prepared) {
    std::fprintf(stderr, "%s\n", prepared.error().message.c_str());
    return 1;
  }
  const graph::Graph* folded = &prepared->graph;
  const graph::NetworkTasks* network = &prepared->tasks;
  double total = 0;
  for (const auto& t : network->tasks) total += t.dag.flop_count() * t.weight;
  std::printf("%s: %zu nodes, %zu after folding and layout; %zu tasks, %zu kernel launches, %.3f GFLOP per inference\n",
              path.c_str(), raw->nodes.size(), folded->nodes.size(), network->tasks.size(),
              network->order.size(), total * 1e-9);
  std::printf("%-28s %-44s %-20s %12s %6s  %s\n", "task", "ops fused", "shape", "MFLOP", "weight", "workload");
  for (const auto& t : network->tasks) {
    std::string ops;
    for (const std::string& op : t.ops) ops += (ops.empty() ? "" : "+") + op;
    if (ops.size() > 44) ops = ops.substr(0, 41) + "...";
    std::printf("%-28s %-44s %-20s %12.3f %6d  %s\n", t.name.substr(0, 28).c_str(), ops.c_str(),
                graph::shape_text(t.dag.outputs().front()->shape).c_str(), t.dag.flop_count() * 1e-6,
                t.weight, t.dag.workload_key().c_str());
  }
  return 0;
}

}  // namespace tessera::experiments

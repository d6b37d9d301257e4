// Each tuned task's kernel against its default in the network (see network_verdict.h).
#include "experiments/network_verdict.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "experiments/config.h"
#include "runtime/default_schedule.h"
#include "runtime/network_executor.h"
#include "runtime/record_bests.h"
#include "runtime/records.h"
#include "runtime/timing.h"
#include "schedule/step_json.h"

namespace tessera::experiments {

namespace {

// A task's time per call in one network, from its accumulated timings.
double per_call(const runtime::TaskTime& time) { return time.calls > 0 ? time.seconds / time.calls : NAN; }

// `copies` networks built from `records` (empty: the default schedules).
Result<std::vector<runtime::NetworkExecutor>> build_copies(const graph::Graph& folded, const graph::NetworkTasks& tasks,
                                                           const std::string& records, const std::string& run_dir,
                                                           int copies, uint64_t seed, runtime::ExecutorCache* cache) {
  std::vector<runtime::NetworkExecutor> out;
  for (int c = 0; c < copies; ++c) {
    runtime::ExecutorOptions options;
    options.records = records;
    options.check_seed = seed;
    options.checks_dir = checks_dir_of(run_dir);
    options.cache = cache;
    auto executor = runtime::NetworkExecutor::build(folded, tasks, options);
    if (!executor) return executor.error();
    out.push_back(std::move(*executor));
  }
  return out;
}

// Runs `networks` interleaved, `runs` inferences each after three warm-up ones, the order
// rotated each round; each network's inference times in seconds.
Result<std::vector<std::vector<double>>> run_interleaved(std::vector<runtime::NetworkExecutor*> networks,
                                                         const std::map<std::string, std::vector<float>>& inputs,
                                                         int runs, int threads) {
  using Clock = std::chrono::steady_clock;
  for (runtime::NetworkExecutor* network : networks) {
    for (int i = 0; i < 3; ++i) {
      if (auto r = network->run(inputs, threads); !r) return r.error();
    }
    network->reset_times();
  }
  std::vector<std::vector<double>> seconds(networks.size());
  for (int r = 0; r < std::max(1, runs); ++r) {
    for (size_t i = 0; i < networks.size(); ++i) {
      const size_t at = (i + r) % networks.size();
      const auto start = Clock::now();
      if (auto ran = networks[at]->run(inputs, threads); !ran) return ran.error();
      seconds[at].push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
  }
  return seconds;
}

}  // namespace

Result<NetworkVerdict> network_verdict(const graph::Graph& folded, const graph::NetworkTasks& tasks,
                                       const std::string& run_dir, const VerdictOptions& options,
                                       runtime::ExecutorCache* cache) {
  auto bests = runtime::load_record_bests(run_dir);
  if (!bests) return bests.error();
  // The tasks to judge: a recorded best that is not the default schedule the executor would take.
  const size_t n = tasks.tasks.size();
  std::vector<runtime::ScheduleChoice> defaults(n);
  std::vector<const runtime::MeasureRecord*> tuned(n, nullptr);
  bool any = false;
  for (size_t t = 0; t < n; ++t) {
    const schedule::ComputeDAG& dag = tasks.tasks[t].dag;
    auto best = bests->by_workload.find(dag.workload_key());
    if (best == bests->by_workload.end()) continue;
    std::vector<runtime::ScheduleChoice> choices = runtime::default_schedules(dag, runtime::Constants::kFromMemory);
    if (choices.empty() || choices.front().sketch.empty()) continue;  // no default to keep
    if (schedule::steps_to_json(choices.front().steps) == best->second.steps) continue;
    defaults[t] = std::move(choices.front());
    tuned[t] = &best->second;
    any = true;
  }
  if (!any) return NetworkVerdict{};

  // `copies` networks of each kind, built one after another (the cache compiles each kernel once).
  const int copies = std::max(1, options.copies);
  auto tuned_networks = build_copies(folded, tasks, run_dir, run_dir, copies, options.seed, cache);
  if (!tuned_networks) return tuned_networks.error();
  auto default_networks = build_copies(folded, tasks, "", run_dir, copies, options.seed, cache);
  if (!default_networks) return default_networks.error();
  std::vector<runtime::NetworkExecutor*> networks;  // tuned, default, tuned, default, ...
  for (int c = 0; c < copies; ++c) {
    networks.push_back(&(*tuned_networks)[c]);
    networks.push_back(&(*default_networks)[c]);
  }
  const auto inputs = runtime::random_network_inputs(folded, options.seed);
  for (runtime::NetworkExecutor* network : networks) network->set_timing(true);
  if (auto ran = run_interleaved(networks, inputs, options.runs, options.threads); !ran) return ran.error();

  NetworkVerdict verdict;
  const std::filesystem::path verdicts_path = std::filesystem::path(run_dir) / "verdicts.jsonl";
  std::error_code missing;
  const bool existed = std::filesystem::exists(verdicts_path, missing);
  const uintmax_t size_before = existed ? std::filesystem::file_size(verdicts_path) : 0;
  std::optional<runtime::RecordWriter> writer;
  for (size_t t = 0; t < n; ++t) {
    if (!tuned[t]) continue;
    // Each kind's time: the geometric mean over its copies; a copy whose kernel is not the one
    // judged (the recorded schedule failed its check and fell back) leaves the task out.
    double log_tuned = 0, log_default = 0;
    bool judged = true;
    for (size_t i = 0; i < networks.size(); ++i) {
      const bool from_records = i % 2 == 0;
      const runtime::TaskReport& report = networks[i]->tasks()[t];
      const runtime::ScheduleSource expected = from_records ? runtime::ScheduleSource::kRecords : runtime::ScheduleSource::kDefault;
      const double seconds = per_call(networks[i]->task_times()[t]);
      if (report.source != expected || !(seconds > 0)) {
        judged = false;
        break;
      }
      (from_records ? log_tuned : log_default) += std::log(seconds) / copies;
    }
    if (!judged) continue;
    TaskVerdict v;
    v.task = tasks.tasks[t].name;
    v.workload_key = tasks.tasks[t].dag.workload_key();
    v.tuned_ms = std::exp(log_tuned) * 1e3;
    v.default_ms = std::exp(log_default) * 1e3;
    v.keep_default = v.default_ms < v.tuned_ms * (1 - options.margin);
    if (v.keep_default) {
      runtime::MeasureResult result;
      result.costs = {tuned[t]->median_cost() * v.default_ms / v.tuned_ms};
      runtime::MeasureRecord record =
          runtime::make_record(v.workload_key, tuned[t]->workload, defaults[t].sketch,
                               schedule::steps_to_json(defaults[t].steps), result, defaults[t].knobs);
      record.target = tuned[t]->target;  // ranked in the same timing class as the best it displaces
      record.source = runtime::kNetworkSource;
      char message[160];
      std::snprintf(message, sizeof message, "in the network: %.4f ms a call, the recorded best %.4f ms",
                    v.default_ms, v.tuned_ms);
      record.message = message;
      if (!writer) {
        auto opened = runtime::RecordWriter::open(verdicts_path.string());
        if (!opened) return opened.error();
        writer.emplace(std::move(*opened));
      }
      if (auto appended = writer->append(record); !appended) return appended.error();
    }
    verdict.tasks.push_back(std::move(v));
  }
  if (!writer) return verdict;
  writer.reset();

  // The kept defaults judged together: the network with them against the tuned one.
  auto kept_networks = build_copies(folded, tasks, run_dir, run_dir, copies, options.seed, cache);
  if (!kept_networks) return kept_networks.error();
  std::vector<runtime::NetworkExecutor*> pair;  // tuned, kept, tuned, kept, ...
  for (int c = 0; c < copies; ++c) {
    (*tuned_networks)[c].set_timing(false);
    pair.push_back(&(*tuned_networks)[c]);
    pair.push_back(&(*kept_networks)[c]);
  }
  auto seconds = run_interleaved(pair, inputs, options.runs, options.threads);
  if (!seconds) return seconds.error();
  double log_ratio = 0;
  for (size_t i = 0; i < pair.size(); ++i) {
    log_ratio += (i % 2 == 1 ? 1 : -1) * std::log(runtime::median((*seconds)[i])) / copies;
  }
  verdict.kept_over_tuned = std::exp(log_ratio);
  if (verdict.kept_over_tuned >= 1) {  // not faster together: the file as it was
    verdict.taken_back = true;
    std::error_code ec;
    if (existed) std::filesystem::resize_file(verdicts_path, size_before, ec);
    else std::filesystem::remove(verdicts_path, ec);
    if (ec) return make_error(verdicts_path.string() + ": cannot take the verdicts back: " + ec.message());
  }
  return verdict;
}

}  // namespace tessera::experiments

// Each tuned task's kernel against its runners-up and its default in the network (see network_verdict.h).
#include "experiments/network_verdict.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "experiments/config.h"
#include "runtime/default_schedule.h"
#include "runtime/network_executor.h"
#include "runtime/record_bests.h"
#include "runtime/record_ranking.h"
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

// Appends `records` to the records file `path` (created where missing).
Result<void> append_records(const std::filesystem::path& path, const std::vector<runtime::MeasureRecord>& records) {
  auto writer = runtime::RecordWriter::open(path.string());
  if (!writer) return writer.error();
  for (const runtime::MeasureRecord& record : records) {
    if (auto appended = writer->append(record); !appended) return appended.error();
  }
  return {};
}

// The file `path` with, for each workload, its `rank`-th record of `ranking` (0: the first),
// where it has one: what a network of that level is built from. What a killed run left there
// goes first.
Result<void> write_level(const runtime::RecordRanking& ranking, size_t rank, const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (ec) return make_error(path.string() + ": cannot remove: " + ec.message());
  std::vector<runtime::MeasureRecord> level;
  for (const auto& [workload, records] : ranking) {
    if (rank < records.size()) level.push_back(records[rank]);
  }
  return append_records(path, level);
}

}  // namespace

Result<NetworkVerdict> network_verdict(const graph::Graph& folded, const graph::NetworkTasks& tasks,
                                       const std::string& run_dir, const VerdictOptions& options,
                                       runtime::ExecutorCache* cache) {
  const size_t rivals = static_cast<size_t>(std::max(0, options.rivals));
  auto ranking = runtime::load_record_ranking(run_dir, static_cast<int>(rivals) + 1);
  if (!ranking) return ranking.error();
  // The tasks to judge: a recorded best that is not the default schedule the executor would
  // take. Each level's schedule of a task (ranks 1..rivals+1, then the default), as JSON steps;
  // null where the task has none or it repeats the best's.
  const size_t n = tasks.tasks.size(), levels = rivals + 2, default_level = rivals + 1;
  std::vector<runtime::ScheduleChoice> defaults(n);
  std::vector<const std::vector<runtime::MeasureRecord>*> ranked(n, nullptr);
  std::vector<std::vector<nlohmann::json>> steps(n, std::vector<nlohmann::json>(levels));
  bool any = false;
  for (size_t t = 0; t < n; ++t) {
    const schedule::ComputeDAG& dag = tasks.tasks[t].dag;
    auto found = ranking->find(dag.workload_key());
    if (found == ranking->end() || found->second.empty()) continue;
    std::vector<runtime::ScheduleChoice> choices = runtime::default_schedules(dag, runtime::Constants::kFromMemory);
    if (choices.empty() || choices.front().sketch.empty()) continue;  // no default to keep
    const nlohmann::json default_steps = schedule::steps_to_json(choices.front().steps);
    const std::vector<runtime::MeasureRecord>& records = found->second;
    if (records.front().steps == default_steps) continue;
    for (size_t level = 0; level < records.size(); ++level) {
      if (level == 0 || (records[level].steps != records[0].steps && records[level].steps != default_steps)) {
        steps[t][level] = records[level].steps;
      }
    }
    steps[t][default_level] = default_steps;
    defaults[t] = std::move(choices.front());
    ranked[t] = &records;
    any = true;
  }
  if (!any) return NetworkVerdict{};

  // `copies` networks of each level, built one after another (the cache compiles each kernel
  // once): the best's from the run directory, the runners-up's from a file of their own each
  // (not *.jsonl, so no reading of the directory takes it), the defaults' from no records.
  const int copies = std::max(1, options.copies);
  std::vector<std::vector<runtime::NetworkExecutor>> built(levels);
  for (size_t level = 0; level < levels; ++level) {
    std::string records = level == 0 ? run_dir : "";
    const std::string level_path = (std::filesystem::path(run_dir) / ("verdict_rank" + std::to_string(level + 1) + ".tmp")).string();
    if (level > 0 && level < default_level) {
      if (auto written = write_level(*ranking, level, level_path); !written) return written.error();
      records = level_path;
    }
    auto made = build_copies(folded, tasks, records, run_dir, copies, options.seed, cache);
    std::error_code ignored;
    if (records == level_path) std::filesystem::remove(level_path, ignored);
    if (!made) return made.error();
    built[level] = std::move(*made);
  }
  std::vector<runtime::NetworkExecutor*> networks;  // copy 0 of every level, copy 1 of every level, ...
  for (int c = 0; c < copies; ++c) {
    for (size_t level = 0; level < levels; ++level) networks.push_back(&built[level][c]);
  }
  const auto inputs = runtime::random_network_inputs(folded, options.seed);
  for (runtime::NetworkExecutor* network : networks) network->set_timing(true);
  if (auto ran = run_interleaved(networks, inputs, options.runs, options.threads); !ran) return ran.error();

  NetworkVerdict verdict;
  std::vector<runtime::MeasureRecord> kept;  // the verdict records, not yet written
  for (size_t t = 0; t < n; ++t) {
    if (!ranked[t]) continue;
    // Each level's time per copy, and over its copies (the geometric mean). A level whose
    // kernel is not the one meant (a recorded schedule that failed its check and fell back) is
    // left out, and the task with it when that is the best's level.
    std::vector<double> ms(levels, NAN);
    std::vector<std::vector<double>> copy_ms(levels, std::vector<double>(copies, NAN));
    for (size_t level = 0; level < levels; ++level) {
      if (steps[t][level].is_null()) continue;
      const runtime::ScheduleSource expected = level == default_level ? runtime::ScheduleSource::kDefault
                                                                      : runtime::ScheduleSource::kRecords;
      double log_sum = 0;
      for (int c = 0; c < copies && !std::isnan(log_sum); ++c) {
        const runtime::NetworkExecutor& network = built[level][c];
        const double seconds = per_call(network.task_times()[t]);
        if (network.tasks()[t].source != expected || !(seconds > 0)) {
          log_sum = NAN;
        } else {
          copy_ms[level][c] = seconds * 1e3;
          log_sum += std::log(seconds) / copies;
        }
      }
      ms[level] = std::exp(log_sum) * 1e3;
    }
    if (std::isnan(ms[0])) continue;
    TaskVerdict v;
    v.task = tasks.tasks[t].name;
    v.workload_key = tasks.tasks[t].dag.workload_key();
    v.tuned_ms = v.kept_ms = ms[0];
    v.default_ms = ms[default_level];
    // The kept kernel: of the levels faster than the best by `margin` in every copy (the least
    // of four noisy timings is always some level's; in every copy it is seldom luck), the fastest.
    size_t fastest = 0;
    for (size_t level = 1; level < levels; ++level) {
      if (std::isnan(ms[level])) continue;
      if (level < default_level && !(ms[level] >= v.rival_ms)) {
        v.rival_ms = ms[level];
        v.rival_rank = static_cast<int>(level) + 1;
      }
      bool faster_in_every_copy = true;
      for (int c = 0; c < copies; ++c) faster_in_every_copy &= copy_ms[level][c] < copy_ms[0][c] * (1 - options.margin);
      if (faster_in_every_copy && (fastest == 0 || ms[level] < ms[fastest])) fastest = level;
    }
    if (fastest != 0) {
      v.kept_ms = ms[fastest];
      v.kept_rank = fastest == default_level ? 0 : static_cast<int>(fastest) + 1;
      const runtime::MeasureRecord& best = ranked[t]->front();
      runtime::MeasureResult result;
      result.costs = {best.median_cost() * ms[fastest] / ms[0]};
      runtime::MeasureRecord record;
      if (fastest == default_level) {
        v.kept = TaskVerdict::Kept::kDefault;
        record = runtime::make_record(v.workload_key, best.workload, defaults[t].sketch, steps[t][fastest], result,
                                      defaults[t].knobs);
      } else {
        v.kept = TaskVerdict::Kept::kRival;
        const runtime::MeasureRecord& rival = (*ranked[t])[fastest];
        record = runtime::make_record(v.workload_key, best.workload, rival.sketch, rival.steps, result, rival.knobs);
      }
      record.target = best.target;  // ranked in the same timing class as the best it displaces
      record.source = runtime::kNetworkSource;
      char message[200];
      std::snprintf(message, sizeof message, "in the network: %.4f ms a call (%s), the recorded best %.4f ms",
                    ms[fastest], fastest == default_level ? "the default" : ("rank " + std::to_string(fastest + 1)).c_str(),
                    ms[0]);
      record.message = message;
      kept.push_back(std::move(record));
    }
    verdict.tasks.push_back(std::move(v));
  }
  if (kept.empty()) return verdict;
  // Only the best's networks are timed again: the others' memory goes back first (BERT's
  // runners-up and defaults are six networks of 340 MB each).
  for (size_t level = 1; level < levels; ++level) built[level].clear();
  std::vector<runtime::NetworkExecutor>& tuned_networks = built[0];

  // The verdicts judged together: the network with them against the records' best. Until they
  // pass, they live in a file of their own beside the records' best (not *.jsonl, so no reading
  // of the run directory takes them): a run killed during the check keeps none of them unchecked,
  // and its resumed end judges again.
  const std::filesystem::path together_path = std::filesystem::path(run_dir) / "verdict_together.tmp";
  if (auto written = write_level(*ranking, 0, together_path); !written) return written.error();
  if (auto appended = append_records(together_path, kept); !appended) return appended.error();
  if (options.before_together) options.before_together();
  auto kept_networks = build_copies(folded, tasks, together_path.string(), run_dir, copies, options.seed, cache);
  std::error_code ignored;
  std::filesystem::remove(together_path, ignored);
  if (!kept_networks) return kept_networks.error();
  std::vector<runtime::NetworkExecutor*> pair;  // best, kept, best, kept, ...
  for (int c = 0; c < copies; ++c) {
    tuned_networks[c].set_timing(false);
    pair.push_back(&tuned_networks[c]);
    pair.push_back(&(*kept_networks)[c]);
  }
  auto seconds = run_interleaved(pair, inputs, options.runs, options.threads);
  if (!seconds) return seconds.error();
  double log_ratio = 0;
  for (size_t i = 0; i < pair.size(); ++i) {
    log_ratio += (i % 2 == 1 ? 1 : -1) * std::log(runtime::median((*seconds)[i])) / copies;
  }
  verdict.kept_over_tuned = std::exp(log_ratio);
  if (verdict.kept_over_tuned >= 1) {  // not faster together: none is kept
    verdict.taken_back = true;
    return verdict;
  }
  // Kept: verdicts.jsonl replaced whole, by a rename, so a kill leaves it as it was or with
  // every verdict of this check, never some of them.
  const std::filesystem::path verdicts_path = std::filesystem::path(run_dir) / "verdicts.jsonl";
  const std::filesystem::path next_path = std::filesystem::path(run_dir) / "verdicts.next.tmp";
  std::error_code ec;
  std::filesystem::remove(next_path, ec);
  if (std::filesystem::exists(verdicts_path, ec)) std::filesystem::copy_file(verdicts_path, next_path, ec);
  if (ec) return make_error(next_path.string() + ": cannot copy the verdicts: " + ec.message());
  if (auto appended = append_records(next_path, kept); !appended) return appended.error();
  std::filesystem::rename(next_path, verdicts_path, ec);
  if (ec) return make_error(verdicts_path.string() + ": cannot write the verdicts: " + ec.message());
  return verdict;
}

}  // namespace tessera::experiments

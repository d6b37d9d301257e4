// The network tuning loop (see tune_network.h).
#include "experiments/tune_network.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "agents/task_allocator.h"
#include "env/network_env.h"
#include "env/default_candidates.h"
#include "env/tuning_task.h"
#include "env/transfer.h"
#include "experiments/machine_probe.h"
#include "experiments/network_progress.h"
#include "experiments/network_verdict.h"
#include "experiments/round_log.h"
#include "experiments/run_outputs.h"
#include "experiments/search_setup.h"
#include "experiments/tune.h"
#include "graph/onnx/import.h"
#include "graph/prepare.h"
#include "runtime/default_schedule.h"
#include "runtime/executor_cache.h"
#include "runtime/fingerprint.h"
#include "runtime/timing.h"

namespace tessera::experiments {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using runtime::seconds_since;

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// Seconds as milliseconds, with more digits for a tiny network.
std::string milliseconds(double seconds) { return fixed(seconds * 1e3, seconds < 1e-3 ? 5 : 3); }

// One task of the network as the loop drives it.
struct TaskSlot {
  const graph::FusedTask* fused = nullptr;
  std::unique_ptr<env::TuningTask> tuning;
  std::unique_ptr<agents::SearchAgent> agent;
  std::vector<env::Candidate> transfer;  // measured in the task's transfer round, before any search
};

std::vector<const env::TuningTask*> tasks_of(const std::vector<TaskSlot>& slots) {
  std::vector<const env::TuningTask*> out;
  for (const TaskSlot& s : slots) out.push_back(s.tuning.get());
  return out;
}

}  // namespace

int run_tune_network(const TuneConfig& config, std::shared_ptr<runtime::Measurer> measurer) {
  // Everything that can refuse the run does so before anything is written.
  auto imported = graph::import_onnx(config.network);
  if (!imported) return std::fprintf(stderr, "tessera tune: %s\n", imported.error().message.c_str()), 1;
  auto layout = graph::parse_layout(config.layout);
  if (!layout) return std::fprintf(stderr, "tessera tune: %s\n", layout.error().message.c_str()), 1;
  if (auto earlier_layout = layout_of_run(config.run_dir); earlier_layout && *earlier_layout != config.layout) {
    return std::fprintf(stderr, "tessera tune: run_dir '%s' was tuned with %s activations and this run asks for %s: its records "
                        "would not match these tasks (--set layout=%s resumes it; or choose another run_dir)\n",
                        config.run_dir.c_str(), earlier_layout->c_str(), config.layout.c_str(), earlier_layout->c_str()), 1;
  }
  if (auto earlier = winograd_of_run(config.run_dir); earlier && *earlier != config.winograd) {
    return std::fprintf(stderr, "tessera tune: run_dir '%s' was tuned %s Winograd convs and this run asks %s: its records "
                        "would not match these tasks (--set winograd=%s resumes it; or choose another run_dir)\n",
                        config.run_dir.c_str(), *earlier ? "with" : "without", config.winograd ? "for them" : "for none",
                        *earlier ? "true" : "false"), 1;
  }
  auto prepared = graph::prepare_network(*imported, *layout, config.winograd);
  if (!prepared) return std::fprintf(stderr, "tessera tune: %s\n", prepared.error().message.c_str()), 1;
  const graph::Graph* folded = &prepared->graph;
  graph::NetworkTasks* fused = &prepared->tasks;
  const fs::path dir(config.run_dir);
  const std::string records_path = (dir / "records.jsonl").string(), curve_path = (dir / "curve.csv").string(),
                    rounds_path = (dir / "rounds.jsonl").string();
  std::vector<std::string> record_warnings;
  auto earlier = read_resumable_records(config.run_dir, &record_warnings);
  if (!earlier) return std::fprintf(stderr, "tessera tune: %s\n", earlier.error().message.c_str()), 1;
  auto allocator = agents::make_allocator(config.allocator, config.seed);
  if (!allocator) return std::fprintf(stderr, "tessera tune: %s\n", allocator.error().message.c_str()), 1;

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return std::fprintf(stderr, "tessera tune: cannot create '%s': %s\n", config.run_dir.c_str(), ec.message().c_str()), 1;
  std::ofstream(dir / "config.yaml") << resolved_config(config).dump(2) << "\n";
  RunLog log((dir / "run.log").string());
  for (const std::string& w : record_warnings) log.say("warning: " + w);
  std::shared_ptr<env::CostModel> model;
  if (needs_cost_model(config.search)) {
    auto made = make_cost_model(config.proxy, config.seed);
    if (!made) return log.say("tessera tune: " + made.error().message), 1;
    model = *made;
  }

  // The tasks, each resumed from the records it already has. Creating one computes the
  // reference outputs its correctness checks compare with (seconds for a large conv), so they
  // are made on every core, with a line as each is ready.
  const size_t count = fused->tasks.size();
  const env::TaskOptions options = task_options(config, measurer);
  log.say("preparing " + std::to_string(count) + " tasks (sketches and reference outputs)");
  std::vector<std::optional<Result<std::unique_ptr<env::TuningTask>>>> created(count);
  const Clock::time_point preparing = Clock::now();
  {
    std::atomic<size_t> next{0}, ready{0};
    std::mutex say;
    auto work = [&] {
      for (size_t t = next++; t < count; t = next++) {
        created[t] = env::TuningTask::create(fused->tasks[t].dag, options);
        std::lock_guard<std::mutex> lock(say);
        log.say("  [" + std::to_string(++ready) + "/" + std::to_string(count) + "] " + fused->tasks[t].name);
      }
    };
    std::vector<std::thread> workers;
    for (unsigned i = 1; i < std::max(1u, std::thread::hardware_concurrency()); ++i) workers.emplace_back(work);
    work();
    for (std::thread& w : workers) w.join();
  }
  char ready_line[80];
  std::snprintf(ready_line, sizeof ready_line, "prepared %zu tasks in %.0f s (outside the budget)", count,
                std::chrono::duration<double>(Clock::now() - preparing).count());
  log.say(ready_line);
  std::vector<TaskSlot> slots;
  std::vector<env::NetworkTask> network;
  int restored_trials = 0;
  for (size_t t = 0; t < count; ++t) {
    const graph::FusedTask& f = fused->tasks[t];
    auto& task = *created[t];
    if (!task) return log.say("tessera tune: task " + f.name + ": " + task.error().message), 1;
    restored_trials += (*task)->restore(*earlier);
    auto agent = make_agent(config.search, config.seed + t, model, (dir / "agent_state" / f.name).string());
    if (!agent) return log.say("tessera tune: " + agent.error().message), 1;
    std::string tag = f.ops.empty() ? "op" : f.ops.front();
    network.push_back({f.name, tag, f.dag.flop_count(), f.weight});
    slots.push_back({&f, std::move(*task), std::move(*agent), {}});
  }
  // Records of this run's file timed the other way (warm, from before measure.cold_constants or
  // by a single-op run sharing the directory) are not restored: their times do not compare.
  // Their fastest schedules are measured first instead, so no task starts again from zero.
  std::vector<runtime::MeasureRecord> other_timing;
  for (const runtime::MeasureRecord& r : *earlier) {
    if (!slots.empty() && r.target != slots.front().tuning->record_target() && r.target.rfind("llvm-cpu", 0) == 0) {
      other_timing.push_back(r);
    }
  }
  int picked_other_timing = 0;
  for (TaskSlot& slot : slots) {
    for (const env::TransferPick& pick : env::transfer_candidates(*slot.tuning, other_timing)) {
      if (!pick.exact) continue;
      slot.transfer.push_back(pick.candidate);
      slot.transfer.back().source = "transfer";
      ++picked_other_timing;
    }
  }
  if (picked_other_timing > 0) {
    log.say("records: " + std::to_string(other_timing.size()) + " timed " +
            (config.measure.cold_constants ? "with warm constants" : "with cold constants") +
            " are not restored; their fastest " + std::to_string(picked_other_timing) + " schedules of this network's tasks are measured first");
  }
  if (!config.transfer.empty()) {
    int other_machines = 0, picked = 0, exact = 0, seeded = 0;
    std::vector<std::string> warnings;
    auto records = env::read_transfer_records(config.transfer, runtime::host_fingerprint().id(), &other_machines, &warnings);
    if (!records) return log.say("tessera tune: " + records.error().message), 1;
    for (const std::string& w : warnings) log.say("warning: transfer: " + w);
    for (TaskSlot& slot : slots) {
      for (const env::TransferPick& pick : env::transfer_candidates(*slot.tuning, *records)) {
        slot.transfer.push_back(pick.candidate);
        slot.transfer.back().source = "transfer";
        ++picked;
        exact += pick.exact;
      }
      seeded += !slot.transfer.empty();
    }
    log.say("transfer: " + std::to_string(records->size()) + " correct records of this machine from " +
            std::to_string(config.transfer.size()) + " source(s)" +
            (other_machines ? " (" + std::to_string(other_machines) + " of other machines skipped)" : std::string()) +
            "; " + std::to_string(picked) + " candidates (" + std::to_string(exact) + " of the same workload) for " +
            std::to_string(seeded) + " of " + std::to_string(slots.size()) + " tasks, measured before any search");
  }
  double spent_before = 0;
  for (const CurvePoint& p : read_curve(curve_path)) {
    if (p.task == kNetworkEstimateRow) spent_before = std::max(spent_before, p.elapsed_seconds);
  }
  log.say(fs::path(config.network).filename().string() + ": " + std::to_string(slots.size()) + " tasks, " +
          std::to_string(fused->order.size()) + " kernel launches, " + config.layout + " activations; allocator " + config.allocator + ", agent " +
          config.search.agent + "; " + std::to_string(restored_trials) + " trials restored from " + records_path);

  auto total_trials = [&] {
    int n = 0;
    for (const TaskSlot& s : slots) n += s.tuning->trials();
    return n;
  };
  auto run_round = [&](int t) {
    TaskSlot& slot = slots[static_cast<size_t>(t)];
    env::TuningTask& task = *slot.tuning;
    const auto start = Clock::now();
    const bool transfer_round = !slot.transfer.empty();  // the allocator did not choose it
    // A task's first round is its default schedules alone (and what transfer brings): a second
    // or two, where a search batch on a large conv takes ten, so that every task's latency is
    // known, and the estimate with it, before the allocator spends real rounds.
    std::vector<env::Candidate> batch;
    if (task.trials() == 0) batch = env::default_candidates(task);
    if (!slot.transfer.empty() || !batch.empty()) {
      batch.insert(batch.end(), slot.transfer.begin(), slot.transfer.end());
      slot.transfer.clear();
    } else {
      // Other tasks' bests first (env::sibling_candidates): a few trials of the batch.
      if (config.share_bests > 0) {
        for (env::TransferPick& pick : env::sibling_candidates(task, tasks_of(slots), std::min(config.share_bests, config.batch_size))) {
          batch.push_back(std::move(pick.candidate));
          batch.back().source = "sibling";
        }
      }
      int want = std::max(0, config.batch_size - static_cast<int>(batch.size()));
      want = std::min<int64_t>(want, std::max<int64_t>(1, config.trials - total_trials()));
      for (env::Candidate& c : agents::propose_tagged(*slot.agent, task, want)) batch.push_back(std::move(c));
    }
    env::RoundResult r;
    r.search_seconds = seconds_since(start);
    if (!batch.empty()) {
      const auto measure_start = Clock::now();
      auto measured = task.measure(batch);
      r.measure_seconds = seconds_since(measure_start);
      const auto observe_start = Clock::now();
      slot.agent->observe(task, measured);
      r.search_seconds += seconds_since(observe_start);
    }
    r.best_seconds = task.best() ? task.best()->seconds() : INFINITY;
    r.trials = task.trials();
    r.seconds = seconds_since(start);
    r.exhausted = batch.empty() || slot.agent->done();
    append_round(rounds_path, {slot.fused->name, transfer_round, r});
    return r;
  };
  env::NetworkEnv environment(network, run_round, 0, config.seconds > 0 ? config.seconds : 0);
  const env::NetworkObservation& obs = environment.observation();
  // The rounds before a resume, replayed into the environment and shown to the allocator as
  // if it had just run them: its rounds, seconds and gains per task go on where they stopped.
  std::vector<std::string> round_warnings;
  std::map<std::string, int> unknown_tasks;  // rounds of tasks this network does not have
  int replayed = 0;
  for (const LoggedRound& round : read_rounds(rounds_path, &round_warnings)) {
    int t = 0;
    while (t < static_cast<int>(slots.size()) && slots[static_cast<size_t>(t)].fused->name != round.task) ++t;
    if (t == static_cast<int>(slots.size())) {
      ++unknown_tasks[round.task];
      continue;
    }
    env::NetworkStep step = environment.replay(t, round.result);
    if (!round.transfer) (*allocator)->observe(t, step.reward, obs);
    ++replayed;
  }
  for (const auto& [name, rounds] : unknown_tasks) {
    round_warnings.push_back(rounds_path + ": " + std::to_string(rounds) + " round(s) of task '" + name +
                             "', which this network does not have, not replayed");
  }
  for (const std::string& w : round_warnings) log.say("warning: " + w);
  if (replayed > 0) log.say(std::to_string(replayed) + " rounds replayed from " + rounds_path);
  // The records decide each task's trials (a round killed before its log line was written
  // still has its measurements there); its best only where no round was replayed or a killed
  // round lowered it (NetworkEnv::restore: a resumed run goes on as an unbroken one).
  for (size_t t = 0; t < slots.size(); ++t) {
    const env::TuningTask& task = *slots[t].tuning;
    if (task.trials() == 0 && obs.views[t].rounds == 0) continue;
    environment.restore(static_cast<int>(t), {task.best() ? task.best()->seconds() : INFINITY, task.trials(), 0.0, false});
  }
  environment.restore_elapsed(std::max(0.0, spent_before - obs.elapsed_seconds));
  environment.reset();
  const std::string svg_path = (dir / "curve.svg").string();
  // The network run with the best kernels so far, its latency on the curve beside the estimate.
  runtime::ExecutorCache executor_cache;  // kernels of earlier measurements, kept for the next
  auto measure_now = [&]() -> Result<double> {
    auto measured = measure_network(*folded, *fused, config.run_dir, config.threads, config.seed, 20, &executor_cache);
    if (measured) {
      append_curve(curve_path, {kNetworkMeasuredRow, total_trials(), obs.elapsed_seconds, *measured, 0.0, 0.0});
      std::ofstream(svg_path) << network_curve_svg(read_curve(curve_path));
    }
    return measured;
  };
  auto log_round = [&](const env::NetworkStep& step) {
    const double estimate = obs.estimate_seconds;
    append_curve(curve_path, {kNetworkEstimateRow, total_trials(), obs.elapsed_seconds, std::isfinite(estimate) ? estimate : 0.0, 0.0});
    log.say("[round " + std::to_string(obs.rounds) + "] " + step.info + "; " + std::to_string(total_trials()) + "/" +
            std::to_string(config.trials) + " trials, " + fixed(obs.elapsed_seconds, 0) + " s" +
            (config.seconds > 0 ? " of " + fixed(config.seconds, 0) : std::string()));
  };

  // The machine probe (machine_probe.h), on this machine's own measurer only: the heaviest task
  // (weight x FLOPs) at its default schedule, timed outside the budget's clock.
  std::unique_ptr<MachineProbe> probe;
  if (config.probe_every_s > 0 && !measurer && !slots.empty()) {
    size_t heaviest = 0;
    for (size_t t = 1; t < slots.size(); ++t) {
      if (network[t].weight * network[t].flops > network[heaviest].weight * network[heaviest].flops) heaviest = t;
    }
    auto made = MachineProbe::create(slots[heaviest].fused->dag, options);
    if (made) {
      probe = std::move(*made);
      log.say("machine probe: " + slots[heaviest].fused->name + " at its default schedule, " +
              milliseconds(probe->first_seconds()) + " ms a call, timed every " + fixed(config.probe_every_s, config.probe_every_s < 10 ? 3 : 0) +
              " s of tuning (curve.csv rows " + kMachineProbeRow + ")");
    } else {
      log.say("warning: " + made.error().message + "; the run goes on without it");
    }
  }
  double probed_at = -INFINITY;  // tuning clock of the last probe timing
  auto probe_now = [&] {
    if (!probe) return;
    auto seconds = probe->time();
    if (!seconds) {
      log.say("warning: " + seconds.error().message + "; the run goes on without the probe");
      probe.reset();
      return;
    }
    append_curve(curve_path, {kMachineProbeRow, total_trials(), obs.elapsed_seconds, *seconds, 0.0});
    probed_at = obs.elapsed_seconds;
  };
  probe_now();

  // Transfer rounds first, whatever the budget: every task with schedules from other runs.
  for (size_t t = 0; t < slots.size(); ++t) {
    if (slots[t].transfer.empty()) continue;
    env::NetworkStep step = environment.step(static_cast<int>(t));
    step.info = "transfer: " + step.info;
    log_round(step);
  }
  double next_measure = config.network_every_s > 0 ? obs.elapsed_seconds + config.network_every_s : INFINITY;

  while (total_trials() < config.trials && (config.seconds <= 0 || obs.elapsed_seconds < config.seconds)) {
    int t = (*allocator)->choose(obs);
    if (t < 0) break;
    env::NetworkStep step = environment.step(t);
    step.info += " (" + (*allocator)->reason() + ")";
    (*allocator)->observe(t, step.reward, obs);
    log_round(step);
    if (obs.elapsed_seconds >= probed_at + config.probe_every_s) probe_now();
    if (step.terminated || step.truncated) break;
    if (obs.elapsed_seconds >= next_measure) {
      next_measure = obs.elapsed_seconds + config.network_every_s;
      auto measured = measure_now();
      if (measured) {
        log.say("network measured: " + milliseconds(*measured) + " ms end to end (estimate " +
                milliseconds(obs.estimate_seconds) + " ms) after " + fixed(obs.elapsed_seconds, 0) + " s of tuning");
      } else {
        log.say("warning: the network could not be run with the tuned kernels: " + measured.error().message);
      }
    }
  }

  if (probed_at != obs.elapsed_seconds) probe_now();  // the end's machine, unless just probed
  // The per-task table, each best re-timed, then the network measured with the records.
  nlohmann::json summary = {{"network", config.network}, {"allocator", config.allocator},
                            {"agent", config.search.agent}, {"tasks", nlohmann::json::array()}};
  double estimate = 0;
  std::printf("%-34s %6s %7s %11s %9s %8s\n", "task", "weight", "trials", "best ms", "GFLOP/s", "share");
  std::vector<double> best_ms(slots.size(), NAN);
  for (size_t t = 0; t < slots.size(); ++t) {
    env::TuningTask& task = *slots[t].tuning;
    if (!task.best()) continue;
    double seconds = task.best()->seconds();
    if (config.retime_top > 0) {
      auto retimed = task.retime(config.retime_top, config.retime_rounds);
      if (!retimed.empty() && retimed[0].ok()) seconds = retimed[0].seconds();
    }
    best_ms[t] = seconds * 1e3;
    estimate += slots[t].fused->weight * seconds;
  }
  for (size_t t = 0; t < slots.size(); ++t) {
    const graph::FusedTask& f = *slots[t].fused;
    const double gflops = std::isfinite(best_ms[t]) ? f.dag.flop_count() / best_ms[t] * 1e-6 : 0;
    const double share = std::isfinite(best_ms[t]) && estimate > 0 ? f.weight * best_ms[t] * 1e-3 / estimate : 0;
    std::printf("%-34s %6d %7d %11.4f %9.1f %7.1f%%\n", f.name.c_str(), f.weight, slots[t].tuning->trials(),
                best_ms[t], gflops, 100 * share);
    nlohmann::json entry = {{"name", f.name}, {"weight", f.weight}, {"trials", slots[t].tuning->trials()},
                            {"workload_key", f.dag.workload_key()}, {"flops", f.dag.flop_count()},
                            {"op_tag", network[t].op_tag}};
    if (std::isfinite(best_ms[t])) entry["best_ms"] = best_ms[t], entry["best_gflops"] = gflops;
    entry["sources"] = slots[t].tuning->credit().to_json();  // default, transfer, the agent's sources
    // New bests timed again before they stood, and how many of them lost to a rival there.
    entry["confirmed"] = slots[t].tuning->confirmations();
    entry["overturned"] = slots[t].tuning->overturned();
    // Where its measuring time went: waiting for compiles, and checking and timing in the worker.
    const runtime::PhaseSeconds phases = slots[t].tuning->phase_seconds();
    entry["build_seconds"] = phases.build, entry["run_seconds"] = phases.run;
    summary["tasks"].push_back(entry);
  }
  summary["estimated_ms"] = estimate * 1e3;
  // The allocator's own estimate at the last round, from the bests as the search measured them:
  // the re-timing above runs task after task, and one noisy minute of it moves `estimated_ms`
  // (81.3 ms against this 75.3 once on ResNet-50), so both are kept.
  if (std::isfinite(obs.estimate_seconds)) summary["estimated_ms_in_loop"] = obs.estimate_seconds * 1e3;
  summary["trials"] = total_trials();
  summary["elapsed_seconds"] = obs.elapsed_seconds;
  // The network's verdict on each tuned kernel against its runners-up and its default
  // (network_verdict.h), before the network is measured with what the records now choose.
  if (config.verdict_runs > 0) {
    VerdictOptions verdict_options;
    verdict_options.runs = config.verdict_runs;
    verdict_options.threads = config.threads;
    verdict_options.seed = config.seed;
    auto verdict = network_verdict(*folded, *fused, config.run_dir, verdict_options, &executor_cache);
    if (!verdict) {
      log.say("warning: the network's verdict on the tuned kernels could not be taken: " + verdict.error().message);
    } else {
      int kept = 0;
      nlohmann::json judged = nlohmann::json::array();
      for (const TaskVerdict& v : verdict->tasks) {
        const bool replaced = v.kept != TaskVerdict::Kept::kBest;
        const std::string what = v.kept == TaskVerdict::Kept::kDefault ? "its default"
                                 : "its rank-" + std::to_string(v.kept_rank) + " kernel";
        kept += replaced;
        judged.push_back({{"name", v.task}, {"tuned_ms", v.tuned_ms}, {"default_ms", v.default_ms},
                          {"rival_ms", v.rival_ms}, {"rival_rank", v.rival_rank},
                          {"kept", !replaced || verdict->taken_back ? "best" : v.kept == TaskVerdict::Kept::kDefault ? "default" : "rival"}});
        if (replaced) {
          log.say("network verdict: " + v.task + ": " + what + " ran " + fixed(v.kept_ms, 4) +
                  " ms a call in the network, the records' best " + fixed(v.tuned_ms, 4));
        }
      }
      std::string outcome = std::to_string(kept) + " beaten";
      if (kept > 0) {
        outcome += verdict->taken_back
                       ? "; with their rivals the network ran " + fixed(verdict->kept_over_tuned, 3) + "x, so none is kept"
                       : ", their rivals kept (verdicts.jsonl): the network runs " + fixed(verdict->kept_over_tuned, 3) + "x";
      }
      log.say("network verdict: " + std::to_string(verdict->tasks.size()) +
              " tuned kernels timed against their runners-up and defaults in the network, " + outcome);
      summary["network_verdict"] = {{"tasks", judged}, {"kept_over_tuned", verdict->kept_over_tuned},
                                    {"taken_back", verdict->taken_back}};
    }
  }
  auto measured = measure_now();
  nlohmann::json history = nlohmann::json::array();
  for (const CurvePoint& p : read_curve(curve_path)) {
    if (p.task == kNetworkMeasuredRow) {
      history.push_back({{"elapsed_seconds", p.elapsed_seconds}, {"trials", p.trial}, {"measured_ms", p.best_seconds * 1e3}});
    }
  }
  summary["measured_during_tuning"] = history;
  if (!config.transfer.empty()) summary["transfer"] = config.transfer;
  if (measured) {
    summary["measured_ms"] = *measured * 1e3;
    log.say("network: estimated " + milliseconds(estimate) + " ms, measured " + milliseconds(*measured) +
            " ms end to end (" + std::to_string(config.threads) + " thread" + (config.threads > 1 ? "s" : "") +
            ", the run's records, each kernel checked)");
  } else {
    log.say("warning: the network could not be run with the tuned kernels: " + measured.error().message);
  }
  if (model) {
    if (auto saved = save_cost_model(*model, (dir / "proxy.pt").string()); !saved) log.say("warning: " + saved.error().message);
  }
  std::ofstream(dir / "summary.json") << summary.dump(2) << "\n";
  std::printf("network: %d trials, estimated %.4g ms%s\nrun directory: %s\n", total_trials(), estimate * 1e3,
              measured ? (", measured " + milliseconds(*measured) + " ms").c_str() : "", config.run_dir.c_str());
  return measured ? 0 : 1;
}

}  // namespace tessera::experiments

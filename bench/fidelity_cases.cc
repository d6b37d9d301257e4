// network_fidelity: how well each way of timing a kernel alone predicts its time inside the
// network (issue 22). For the heaviest tasks of a model, each run's best recorded kernel is
// timed alone in this process under four cache states, and inside the network by the executor
// built from that run's records (per call, runtime::NetworkExecutor::set_timing):
//   warm            nothing between calls: activations and weights stay cached;
//   cold_constants  the weights (and packed copies) evicted before each call: the worker's way;
//   dirty           as cold_constants, after writing 4 MiB elsewhere: the caches full of dirty
//                   lines, as after the kernels before it in a network;
//   all_cold        64 MiB written before each call: every input and the output cold too.
// With two runs, the ratio of their kernels under each state is set against the ratio inside the
// network: the state whose ratios match the network's ranks kernels as the network does.
//
//   TESSERA_FIDELITY_MODEL=build/models/bert_base.onnx TESSERA_FIDELITY_RUNS="DIR_A DIR_B" \
//     bench/run.sh network_fidelity        (TESSERA_FIDELITY_TASKS: how many tasks, default 6)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "bench/cases.h"
#include "graph/onnx/import.h"
#include "graph/prepare.h"
#include "runtime/builder.h"
#include "runtime/check.h"
#include "runtime/kernel.h"
#include "runtime/measure_local.h"
#include "runtime/network_executor.h"
#include "runtime/parallel_runtime.h"
#include "runtime/record_bests.h"
#include "runtime/timing.h"
#include "schedule/step_json.h"

namespace tessera::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kStates[] = {"warm", "cold_constants", "dirty", "all_cold"};
constexpr int kStateCount = 4;

void write_buffer(std::vector<char>& buffer) {
  static char value = 0;
  std::memset(buffer.data(), ++value, buffer.size());
}

// One task's kernel from one run, ready to call alone.
struct Loaded {
  std::unique_ptr<runtime::Kernel> kernel;
  std::vector<std::unique_ptr<runtime::GuardedBuffer>> buffers;
  std::vector<void*> args;
  std::vector<runtime::ColdBuffer> constants;
  std::string sketch;
  double recorded = 0;
  std::vector<double> seconds[kStateCount];
};

}  // namespace

nlohmann::json run_network_fidelity() {
  const char* model = std::getenv("TESSERA_FIDELITY_MODEL");
  const char* runs_text = std::getenv("TESSERA_FIDELITY_RUNS");
  if (!model || !runs_text) return {{"error", "set TESSERA_FIDELITY_MODEL and TESSERA_FIDELITY_RUNS"}};
  std::vector<std::string> runs;
  std::istringstream split(runs_text);
  for (std::string r; split >> r;) runs.push_back(r);
  const char* count_text = std::getenv("TESSERA_FIDELITY_TASKS");
  const size_t task_count = count_text ? static_cast<size_t>(std::atoi(count_text)) : 6;

  auto raw = graph::import_onnx(model);
  if (!raw) return {{"error", raw.error().message}};
  auto prepared = graph::prepare_network(*raw, graph::ActivationLayout::kNHWC);
  if (!prepared) return {{"error", prepared.error().message}};
  const graph::NetworkTasks& network = prepared->tasks;

  // In the network: per task, seconds per call with each run's records.
  std::vector<std::vector<double>> in_network(runs.size());
  std::vector<runtime::RecordBests> bests;
  const auto inputs = runtime::random_network_inputs(prepared->graph, 1);
  for (size_t r = 0; r < runs.size(); ++r) {
    auto read = runtime::load_record_bests(runs[r]);
    if (!read) return {{"error", read.error().message}};
    bests.push_back(std::move(*read));
    runtime::ExecutorOptions options;
    options.records = runs[r];
    auto executor = runtime::NetworkExecutor::build(prepared->graph, network, options);
    if (!executor) return {{"error", executor.error().message}};
    for (int i = 0; i < 3; ++i) (void)executor->run(inputs, 1);
    executor->set_timing(true);
    for (int i = 0; i < 20; ++i) (void)executor->run(inputs, 1);
    for (const runtime::TaskTime& t : executor->task_times()) in_network[r].push_back(t.calls ? t.seconds / t.calls : NAN);
  }

  // The heaviest tasks by the first run's records.
  std::vector<size_t> order;
  for (size_t t = 0; t < network.tasks.size(); ++t) {
    if (bests[0].by_workload.count(network.tasks[t].dag.workload_key())) order.push_back(t);
  }
  auto cost = [&](size_t t) {
    return network.tasks[t].weight * bests[0].by_workload.at(network.tasks[t].dag.workload_key()).median_cost();
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost(a) > cost(b); });
  order.resize(std::min(order.size(), task_count));

  std::vector<char> dirty(4 << 20), all(64 << 20);
  nlohmann::json tasks = nlohmann::json::array();
  double log_error[kStateCount] = {0, 0, 0, 0};
  int pairs = 0;
  for (size_t t : order) {
    const graph::FusedTask& task = network.tasks[t];
    auto check = runtime::make_measure_task(task.dag, 1);
    if (!check) return {{"error", task.name + ": " + check.error().message}};
    std::vector<Loaded> loaded(runs.size());
    for (size_t r = 0; r < runs.size(); ++r) {
      auto best = bests[r].by_workload.find(task.dag.workload_key());
      if (best == bests[r].by_workload.end()) return {{"error", task.name + ": no record in " + runs[r]}};
      auto steps = schedule::steps_from_json(best->second.steps);
      if (!steps) return {{"error", steps.error().message}};
      auto built = runtime::build_batch({{&task.dag, *steps}});
      if (built[0].error != runtime::MeasureError::kNone) return {{"error", task.name + ": " + built[0].message}};
      auto kernel = runtime::load_kernel(built[0].object);
      if (!kernel) return {{"error", kernel.error().message}};
      Loaded& l = loaded[r];
      l.kernel = std::make_unique<runtime::Kernel>(std::move(*kernel));
      l.buffers = runtime::task_buffers(*check);
      auto checked = runtime::run_and_check(*l.kernel, *check, l.buffers);  // also packs the constants
      if (!checked || !checked->ok()) return {{"error", task.name + ": the recorded kernel does not check"}};
      for (auto& b : l.buffers) l.args.push_back(b->data());
      l.constants = runtime::constant_buffers(*l.kernel, *check, l.args);
      l.sketch = best->second.sketch;
      l.recorded = best->second.median_cost();
    }
    // Rounds of a few calls per run and state, in turn, so that load falls on all alike.
    runtime::set_num_threads(1);
    for (int round = 0; round < 6; ++round) {
      for (Loaded& l : loaded) {
        for (int s = 0; s < kStateCount; ++s) {
          for (int call = 0; call < 6; ++call) {
            if (s == 2) write_buffer(dirty);
            if (s == 3) write_buffer(all);
            if (s == 1 || s == 2) {
              for (const runtime::ColdBuffer& b : l.constants) runtime::evict_from_caches(b.data, b.bytes);
            }
            const auto start = Clock::now();
            l.kernel->run_unchecked(l.args.data());
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            if (call > 0) l.seconds[s].push_back(seconds);  // the first call after a switch warms the code
          }
        }
      }
    }
    nlohmann::json entry = {{"task", task.name}, {"weight", task.weight}, {"runs", nlohmann::json::array()}};
    for (size_t r = 0; r < runs.size(); ++r) {
      nlohmann::json run = {{"run", runs[r]}, {"sketch", loaded[r].sketch}, {"recorded_ms", loaded[r].recorded * 1e3},
                            {"network_ms", in_network[r][t] * 1e3}};
      for (int s = 0; s < kStateCount; ++s) run[std::string(kStates[s]) + "_ms"] = runtime::median(loaded[r].seconds[s]) * 1e3;
      entry["runs"].push_back(run);
    }
    if (runs.size() >= 2) {
      // run 0 over run 1, in the network and in each state alone.
      const double network_ratio = in_network[0][t] / in_network[1][t];
      entry["network_ratio"] = network_ratio;
      for (int s = 0; s < kStateCount; ++s) {
        const double ratio = runtime::median(loaded[0].seconds[s]) / runtime::median(loaded[1].seconds[s]);
        entry[std::string(kStates[s]) + "_ratio"] = ratio;
        log_error[s] += std::abs(std::log(ratio / network_ratio));
      }
      ++pairs;
    }
    std::fprintf(stderr, "network_fidelity: %s done\n", task.name.c_str());
    tasks.push_back(entry);
  }
  nlohmann::json out = {{"model", model}, {"tasks", tasks}};
  if (pairs > 0) {
    // Mean |log(state ratio / network ratio)|: 0 when a state ranks the two runs' kernels
    // exactly as the network does.
    for (int s = 0; s < kStateCount; ++s) out[std::string(kStates[s]) + "_ratio_error"] = log_error[s] / pairs;
  }
  return out;
}

}  // namespace tessera::bench

// Building and running a network's kernels (see network_executor.h).
//
// build: choose each task's schedules in order of preference (records, the default rule's
// candidates, the unscheduled lowering), then compile in rounds: every task's current choice
// on the TBB builder at once, each result loaded and checked against the reference; a task
// whose choice fails moves to its next choice for the next round (with an ExecutorCache, what
// an earlier build compiled is taken from it and only checked again). Then the buffers: graph
// inputs, constants and graph outputs get their own, intermediates share by the memory plan.
#include "runtime/network_executor.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <cstdio>
#include <cstring>

#include "runtime/builder.h"
#include "runtime/check.h"
#include "runtime/default_schedule.h"
#include "runtime/executor_cache.h"
#include "runtime/memory.h"
#include "runtime/parallel_runtime.h"
#include "runtime/record_bests.h"
#include "schedule/step_json.h"

namespace tessera::runtime {
namespace {

struct FreeBuffer {
  void operator()(void* p) const { free_buffer_memory(p); }
};
using BufferPtr = std::unique_ptr<void, FreeBuffer>;

struct Candidate {
  ScheduleSource source;
  ScheduleChoice choice;
};

// One task occurrence as run: its kernel and the fixed buffer of every argument.
struct Step {
  int task = 0;
  std::vector<void*> args;
  std::vector<void*> packed;  // this occurrence's constants as its kernel packs them
};

std::string join_ops(const std::vector<std::string>& ops) {
  std::string text;
  for (const std::string& op : ops) text += (text.empty() ? "" : "+") + op;
  return text;
}

std::string describe(const Candidate& c) {
  if (c.source == ScheduleSource::kUnscheduled) return "the unscheduled lowering";
  return std::string(c.source == ScheduleSource::kRecords ? "the recorded" : "the default") +
         " schedule (sketch " + c.choice.sketch + ")";
}

}  // namespace

const char* to_string(ScheduleSource source) {
  switch (source) {
    case ScheduleSource::kRecords: return "records";
    case ScheduleSource::kDefault: return "default";
    case ScheduleSource::kUnscheduled: return "unscheduled";
  }
  return "?";
}

struct NetworkExecutor::Impl {
  std::vector<Kernel> kernels;  // per task
  std::vector<TaskReport> reports;
  std::vector<TaskTime> times;
  MemoryPlan plan;
  std::vector<BufferPtr> buffers;
  std::map<std::string, std::pair<float*, int64_t>> tensors;  // graph tensor -> buffer, elements
  std::vector<std::string> inputs, outputs;
  std::vector<Step> steps;
  std::vector<std::string> warnings;
  bool timing = false;

  float* allocate(int64_t bytes) {
    void* p = allocate_buffer_memory(static_cast<size_t>(std::max<int64_t>(bytes, 64) + 63) / 64 * 64, 64);
    if (p) buffers.emplace_back(p);
    return static_cast<float*>(p);
  }
  // An activation (a graph input, or a buffer of intermediates) always takes the large
  // allocation, for its read margins (memory.h): the next conv's padded reads point around it.
  float* allocate_activation(int64_t bytes) {
    return allocate(std::max<int64_t>(bytes, static_cast<int64_t>(kHugePageBytes / 2)));
  }

  Result<void> compile(const graph::NetworkTasks& network, const ExecutorOptions& options);
  // Each task's schedules in order of preference; fills the reports' task columns.
  Result<std::vector<std::vector<Candidate>>> candidates(const graph::NetworkTasks& network,
                                                         const ExecutorOptions& options);
  // Each task's kernel check (inputs, reference outputs), from the cache where it has them.
  Result<std::vector<std::shared_ptr<const MeasureTask>>> references(const graph::NetworkTasks& network,
                                                                     const ExecutorOptions& options);
  // Compiles, loads and checks every task's first working candidate, in rounds.
  Result<void> load_first_working(const graph::NetworkTasks& network,
                                  const std::vector<std::vector<Candidate>>& candidates,
                                  const std::vector<std::shared_ptr<const MeasureTask>>& checks,
                                  const ExecutorOptions& options);
  Result<void> place(const graph::Graph& graph, const graph::NetworkTasks& network);
};

// Compiles, loads and checks every task's first working choice.
Result<void> NetworkExecutor::Impl::compile(const graph::NetworkTasks& network,
                                            const ExecutorOptions& options) {
  auto chosen = candidates(network, options);
  if (!chosen) return chosen.error();
  auto checks = references(network, options);
  if (!checks) return checks.error();
  if (auto r = load_first_working(network, *chosen, *checks, options); !r) return r;
  times.assign(network.tasks.size(), TaskTime{});
  return {};
}

Result<std::vector<std::vector<Candidate>>> NetworkExecutor::Impl::candidates(
    const graph::NetworkTasks& network, const ExecutorOptions& options) {
  const size_t n = network.tasks.size();
  RecordBests bests;
  if (!options.records.empty()) {
    auto loaded = load_record_bests(options.records);
    if (!loaded) return loaded.error();
    bests = std::move(*loaded);
    warnings = bests.warnings;
  }
  std::vector<std::vector<Candidate>> out(n);
  reports.resize(n);
  for (size_t t = 0; t < n; ++t) {
    const graph::FusedTask& task = network.tasks[t];
    TaskReport& r = reports[t];
    r.name = task.name;
    r.ops = join_ops(task.ops);
    r.workload_key = task.dag.workload_key();
    r.weight = task.weight;
    r.flops = task.dag.flop_count();
    auto best = bests.by_workload.find(r.workload_key);
    if (best != bests.by_workload.end()) {
      auto steps = schedule::steps_from_json(best->second.steps);
      if (steps) {
        out[t].push_back({ScheduleSource::kRecords, {best->second.sketch, best->second.knobs, std::move(*steps)}});
      } else {
        r.note = "the recorded schedule does not parse (" + steps.error().message + "); ";
      }
    }
  }
  // Default schedules are worked out in parallel (sketch generation is per task).
  std::vector<std::vector<ScheduleChoice>> defaults(n);
  // A network's weights arrive from memory layer by layer (default_schedule.h, Constants).
  tbb::parallel_for(size_t{0}, n, [&](size_t t) {
    defaults[t] = default_schedules(network.tasks[t].dag, Constants::kFromMemory);
  });
  for (size_t t = 0; t < n; ++t) {
    for (ScheduleChoice& c : defaults[t]) {
      ScheduleSource s = c.sketch.empty() ? ScheduleSource::kUnscheduled : ScheduleSource::kDefault;
      out[t].push_back({s, std::move(c)});
    }
  }
  return out;
}

Result<std::vector<std::shared_ptr<const MeasureTask>>> NetworkExecutor::Impl::references(
    const graph::NetworkTasks& network, const ExecutorOptions& options) {
  const size_t n = network.tasks.size();
  ExecutorCache* cache = options.cache;
  std::vector<std::shared_ptr<const MeasureTask>> checks(n);
  std::vector<std::string> errors(n);
  if (cache) {
    for (size_t t = 0; t < n; ++t) checks[t] = cache->reference(reports[t].workload_key, options.check_seed, options.check_points);
  }
  tbb::parallel_for(size_t{0}, n, [&](size_t t) {
    if (checks[t]) return;
    auto m = make_measure_task(network.tasks[t].dag, options.check_seed, options.check_points, options.checks_dir);
    if (m) checks[t] = std::make_shared<const MeasureTask>(std::move(*m));
    else errors[t] = m.error().message;
  });
  for (size_t t = 0; t < n; ++t) {
    if (!checks[t]) return make_error(reports[t].name + ": reference for the kernel check: " + errors[t]);
    if (cache) cache->keep_reference(options.check_seed, options.check_points, checks[t]);
  }
  return checks;
}

namespace {

// Why `object` cannot serve as the task's kernel (load or check failed), or "" with the loaded
// kernel in `kernel` and the check's error in `max_error`.
std::string load_and_check(const ObjectCode& object, const MeasureTask& check, std::unique_ptr<Kernel>& kernel,
                           double& max_error) {
  auto loaded = load_kernel(object);
  if (!loaded) return "load: " + loaded.error().message;
  auto buffers = task_buffers(check);
  auto result = run_and_check(*loaded, check, buffers);
  if (!result) return "check: " + result.error().message;
  if (!result->ok()) {
    if (!result->guard_violation.empty()) return result->guard_violation;
    char text[160];
    std::snprintf(text, sizeof text, "wrong answer: max error %.3g on '%s' (tolerance %.3g)",
                  result->comparison.max_error, result->worst_output.c_str(), check.tolerance);
    return text;
  }
  max_error = result->comparison.max_error;
  kernel = std::make_unique<Kernel>(std::move(*loaded));
  return "";
}

}  // namespace

Result<void> NetworkExecutor::Impl::load_first_working(const graph::NetworkTasks& network,
                                                       const std::vector<std::vector<Candidate>>& candidates,
                                                       const std::vector<std::shared_ptr<const MeasureTask>>& checks,
                                                       const ExecutorOptions& options) {
  const size_t n = network.tasks.size();
  ExecutorCache* cache = options.cache;
  kernels.clear();
  std::vector<std::unique_ptr<Kernel>> loaded(n);
  std::vector<size_t> cursor(n, 0);
  std::vector<size_t> pending;
  for (size_t t = 0; t < n; ++t) pending.push_back(t);
  BuildOptions build_options;
  build_options.threads = options.build_threads;
  build_options.timeout_s = 120;  // a default must compile even when slow; it is not a search
  while (!pending.empty()) {
    // This round's choices: those compiled by an earlier build come from the cache.
    std::vector<BuildResult> built(pending.size());
    std::vector<std::string> steps_json(pending.size());
    std::vector<BuildInput> inputs;
    std::vector<size_t> compiling;  // positions in `pending` of `inputs`
    for (size_t i = 0; i < pending.size(); ++i) {
      const size_t t = pending[i];
      const std::vector<schedule::Step>& steps = candidates[t][cursor[t]].choice.steps;
      if (cache) {
        steps_json[i] = schedule::steps_to_json(steps).dump();
        if (const ObjectCode* object = cache->object(reports[t].workload_key, steps_json[i])) {
          built[i].object = *object;
          continue;
        }
      }
      inputs.push_back({&network.tasks[t].dag, steps});
      compiling.push_back(i);
    }
    if (!inputs.empty()) {
      std::vector<BuildResult> compiled = build_batch(inputs, build_options);
      for (size_t j = 0; j < compiling.size(); ++j) {
        const size_t i = compiling[j];
        built[i] = std::move(compiled[j]);
        if (cache && built[i].error == MeasureError::kNone) {
          cache->keep_object(reports[pending[i]].workload_key, steps_json[i], built[i].object);
        }
      }
    }
    std::vector<size_t> next;
    for (size_t i = 0; i < pending.size(); ++i) {
      const size_t t = pending[i];
      const Candidate& c = candidates[t][cursor[t]];
      TaskReport& r = reports[t];
      r.compile_seconds += built[i].compile_seconds;
      std::string failure = built[i].error != MeasureError::kNone
                                ? std::string(to_string(built[i].error)) + ": " + built[i].message
                                : load_and_check(built[i].object, *checks[t], loaded[t], r.max_error);
      if (failure.empty()) {
        r.source = c.source;
        r.sketch = c.choice.sketch;
        continue;
      }
      r.note += describe(c) + " failed (" + failure + "); ";
      if (++cursor[t] == candidates[t].size()) {
        return make_error(r.name + ": no schedule compiles and checks: " + r.note);
      }
      next.push_back(t);
    }
    pending = std::move(next);
  }
  for (size_t t = 0; t < n; ++t) {
    TaskReport& r = reports[t];
    if (!r.note.empty()) r.note += "used " + describe(candidates[t][cursor[t]]);
    kernels.push_back(std::move(*loaded[t]));
  }
  return {};
}

// Buffers for every tensor the tasks touch, and each occurrence's argument pointers.
Result<void> NetworkExecutor::Impl::place(const graph::Graph& graph,
                                          const graph::NetworkTasks& network) {
  std::map<std::string, int64_t> intermediate_bytes;
  std::vector<PlanStep> plan_steps;
  for (auto [t, o] : network.order) {
    const graph::FusedTask& task = network.tasks[static_cast<size_t>(t)];
    const graph::TaskOccurrence& occ = task.occurrences[static_cast<size_t>(o)];
    if (occ.inputs.size() != task.dag.inputs().size() || occ.outputs.size() != task.dag.outputs().size()) {
      return make_error(task.name + ": an occurrence binds " + std::to_string(occ.inputs.size()) + " inputs and " +
                        std::to_string(occ.outputs.size()) + " outputs; its DAG has " +
                        std::to_string(task.dag.inputs().size()) + " and " +
                        std::to_string(task.dag.outputs().size()));
    }
    for (size_t i = 0; i < occ.outputs.size(); ++i) {
      const std::string& name = occ.outputs[i];
      bool graph_output = std::find(graph.outputs.begin(), graph.outputs.end(), name) != graph.outputs.end();
      if (!graph_output) intermediate_bytes[name] = task.dag.outputs()[i].num_elements() * int64_t{4};
    }
    plan_steps.push_back({occ.inputs, occ.outputs});
  }
  plan = plan_memory(plan_steps, intermediate_bytes);

  auto add = [&](const std::string& name, int64_t elements) -> float* {
    float* p = allocate(elements * 4);
    if (p) tensors[name] = {p, elements};
    return p;
  };
  inputs = graph.inputs;
  outputs = graph.outputs;
  for (const std::string& name : graph.inputs) {
    const graph::TensorInfo* info = graph.info(name);
    if (!info) return make_error("graph input '" + name + "' has no shape");
    float* p = allocate_activation(info->num_elements() * 4);
    if (!p) return make_error("out of memory for input '" + name + "'");
    tensors[name] = {p, info->num_elements()};
  }
  for (const auto& [name, k] : graph.constants) {
    const int64_t elements = k.info.num_elements();
    float* p = add(name, elements);
    if (!p) return make_error("out of memory for constant '" + name + "'");
    if (k.info.dtype == graph::DType::kFloat32 && static_cast<int64_t>(k.f32.size()) == elements) {
      std::memcpy(p, k.f32.data(), static_cast<size_t>(elements) * 4);
    } else {
      for (int64_t i = 0; i < elements; ++i) p[i] = static_cast<float>(k.at(i));
    }
  }
  std::vector<float*> shared;
  for (int64_t bytes : plan.buffer_bytes) {
    shared.push_back(allocate_activation(bytes));
    if (!shared.back()) return make_error("out of memory for the intermediate buffers");
  }
  for (const auto& [name, buffer] : plan.buffer_of) {
    tensors[name] = {shared[static_cast<size_t>(buffer)], intermediate_bytes.at(name) / 4};
  }
  for (auto [t, o] : network.order) {
    const graph::FusedTask& task = network.tasks[static_cast<size_t>(t)];
    const graph::TaskOccurrence& occ = task.occurrences[static_cast<size_t>(o)];
    for (size_t i = 0; i < occ.outputs.size(); ++i) {
      if (!tensors.count(occ.outputs[i]) && !add(occ.outputs[i], task.dag.outputs()[i].num_elements())) {
        return make_error("out of memory for output '" + occ.outputs[i] + "'");
      }
    }
    Step step;
    step.task = t;
    std::vector<std::string> names = occ.inputs;
    names.insert(names.end(), occ.outputs.begin(), occ.outputs.end());
    const auto& args = kernels[static_cast<size_t>(t)].arguments();
    if (args.size() != names.size()) {
      return make_error(task.name + ": its kernel takes " + std::to_string(args.size()) + " buffers, not " +
                        std::to_string(names.size()));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      auto found = tensors.find(names[i]);
      if (found == tensors.end()) {
        return make_error(task.name + ": tensor '" + names[i] + "' is read before anything writes it");
      }
      if (found->second.second < args[i].size) {
        return make_error(task.name + ": tensor '" + names[i] + "' has " + std::to_string(found->second.second) +
                          " elements, its kernel argument " + std::to_string(args[i].size));
      }
      step.args.push_back(found->second.first);
    }
    // Constants packed once, here, per occurrence (its weights are in place by now).
    const Kernel& kernel = kernels[static_cast<size_t>(t)];
    for (const auto& p : kernel.packed()) {
      float* buffer = allocate(p.size * 4);
      if (!buffer) return make_error(task.name + ": out of memory for packed '" + p.name + "'");
      step.packed.push_back(buffer);
    }
    kernel.prepare_unchecked(step.args.data(), step.packed.data());
    steps.push_back(std::move(step));
  }
  for (const std::string& name : graph.outputs) {
    if (!tensors.count(name)) return make_error("graph output '" + name + "' is never computed");
  }
  return {};
}

Result<NetworkExecutor> NetworkExecutor::build(const graph::Graph& graph, const graph::NetworkTasks& tasks,
                                               const ExecutorOptions& options) {
  auto impl = std::make_unique<Impl>();
  if (auto r = impl->compile(tasks, options); !r) return r.error();
  if (auto r = impl->place(graph, tasks); !r) return r.error();
  return NetworkExecutor(std::move(impl));
}

NetworkExecutor::NetworkExecutor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NetworkExecutor::NetworkExecutor(NetworkExecutor&&) noexcept = default;
NetworkExecutor& NetworkExecutor::operator=(NetworkExecutor&&) noexcept = default;
NetworkExecutor::~NetworkExecutor() = default;

Result<std::map<std::string, std::vector<float>>> NetworkExecutor::run(
    const std::map<std::string, std::vector<float>>& inputs, int threads) {
  Impl& m = *impl_;
  for (const std::string& name : m.inputs) {
    auto given = inputs.find(name);
    if (given == inputs.end()) return make_error("no value given for graph input '" + name + "'");
    const auto [buffer, elements] = m.tensors.at(name);
    if (static_cast<int64_t>(given->second.size()) != elements) {
      return make_error("graph input '" + name + "' takes " + std::to_string(elements) + " values, got " +
                        std::to_string(given->second.size()));
    }
    std::memcpy(buffer, given->second.data(), static_cast<size_t>(elements) * 4);
  }
  for (const auto& [name, values] : inputs) {
    if (std::find(m.inputs.begin(), m.inputs.end(), name) == m.inputs.end()) {
      return make_error("'" + name + "' is not an input of the graph");
    }
  }
  set_num_threads(threads);
  using Clock = std::chrono::steady_clock;
  for (Step& step : m.steps) {
    const Kernel& kernel = m.kernels[static_cast<size_t>(step.task)];
    if (!m.timing) {
      kernel.run_unchecked(step.args.data(), step.packed.data());
      continue;
    }
    const auto start = Clock::now();
    kernel.run_unchecked(step.args.data(), step.packed.data());
    TaskTime& time = m.times[static_cast<size_t>(step.task)];
    time.seconds += std::chrono::duration<double>(Clock::now() - start).count();
    ++time.calls;
  }
  std::map<std::string, std::vector<float>> outputs;
  for (const std::string& name : m.outputs) {
    const auto [buffer, elements] = m.tensors.at(name);
    outputs[name].assign(buffer, buffer + elements);
  }
  return outputs;
}

void NetworkExecutor::set_timing(bool on) { impl_->timing = on; }
const std::vector<TaskTime>& NetworkExecutor::task_times() const { return impl_->times; }
void NetworkExecutor::reset_times() { impl_->times.assign(impl_->times.size(), TaskTime{}); }
const std::vector<TaskReport>& NetworkExecutor::tasks() const { return impl_->reports; }
const MemoryPlan& NetworkExecutor::memory_plan() const { return impl_->plan; }
int64_t NetworkExecutor::kernel_calls() const { return static_cast<int64_t>(impl_->steps.size()); }
const std::vector<std::string>& NetworkExecutor::record_warnings() const { return impl_->warnings; }

std::string NetworkExecutor::schedules() const {
  size_t recorded = 0;
  for (const TaskReport& r : impl_->reports) recorded += r.source == ScheduleSource::kRecords;
  if (recorded == 0) return "default";
  return recorded == impl_->reports.size() ? "records" : "mixed";
}

std::map<std::string, std::vector<float>> random_network_inputs(const graph::Graph& graph, uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::uniform_real_distribution<float> dist(-1, 1);
  std::map<std::string, std::vector<float>> inputs;
  for (const std::string& name : graph.inputs) {
    std::vector<float>& values = inputs[name];
    values.resize(static_cast<size_t>(graph.info(name)->num_elements()));
    for (float& v : values) v = dist(rng);
  }
  return inputs;
}

}  // namespace tessera::runtime

// The network executor: a folded graph's fused tasks compiled, checked and run as one inference.
//
// Each task gets its fastest correct recorded schedule for this machine (record_bests.h) or,
// without one, the default schedule (default_schedule.h). All tasks compile at once on the
// TBB builder and load in-process; every kernel is checked against the reference evaluator
// at load, and a task whose recorded schedule fails to compile or gives wrong answers falls
// back to the default (the report says so). Intermediates live in buffers reused by lifetime
// (memory_plan.h); constants are copied once into aligned buffers. `run` calls the kernels in
// data-flow order with every pointer fixed at load, optionally timing each task occurrence.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/fuse.h"
#include "graph/graph.h"
#include "runtime/memory_plan.h"
#include "schedule/result.h"

namespace tessera::runtime {

class ExecutorCache;

struct ExecutorOptions {
  std::string records;          // records.jsonl or a directory of them; empty: defaults only
  int build_threads = 0;        // compile threads; 0: every core TBB sees
  uint64_t check_seed = 1;      // inputs of the load-time kernel checks
  int64_t check_points = 8192;  // output points each kernel check compares (sampled)
  // Non-empty: each task's check is read from this directory when a matching file is there,
  // and stored there when computed (check_cache.h), so the next process skips the reference.
  std::string checks_dir;
  // Kept between builds (executor_cache.h): schedules compiled and references evaluated by an
  // earlier build are reused, each kernel still checked. Null: everything is built afresh.
  ExecutorCache* cache = nullptr;
};

enum class ScheduleSource { kRecords, kDefault, kUnscheduled };
const char* to_string(ScheduleSource source);  // "records", "default", "unscheduled"

struct TaskReport {
  std::string name;
  std::string ops;           // "Conv+Add+Relu"
  std::string workload_key;
  int weight = 0;
  double flops = 0;          // per occurrence
  ScheduleSource source = ScheduleSource::kDefault;
  std::string sketch;        // the sketch of the schedule used (empty: unscheduled)
  double max_error = 0;      // the load-time check against the reference
  std::string note;          // why a preferred schedule was not used (empty when it was)
  double compile_seconds = 0;
};

struct TaskTime {
  double seconds = 0;  // summed over its occurrences and the timed runs
  int64_t calls = 0;
};

class NetworkExecutor {
 public:
  // `graph` folded (graph::fold_constants) and `tasks` its fusion (graph::fuse).
  static Result<NetworkExecutor> build(const graph::Graph& graph, const graph::NetworkTasks& tasks,
                                       const ExecutorOptions& options = {});

  NetworkExecutor(NetworkExecutor&&) noexcept;
  NetworkExecutor& operator=(NetworkExecutor&&) noexcept;
  ~NetworkExecutor();

  // One inference on `threads` threads: every graph input by name (float32, its exact element
  // count), every graph output by name.
  Result<std::map<std::string, std::vector<float>>> run(
      const std::map<std::string, std::vector<float>>& inputs, int threads = 1);

  // When on, `run` times every task occurrence and adds it to task_times().
  void set_timing(bool on);
  const std::vector<TaskTime>& task_times() const;  // per task, as tasks()
  void reset_times();

  const std::vector<TaskReport>& tasks() const;
  const MemoryPlan& memory_plan() const;
  int64_t kernel_calls() const;  // occurrences run per inference
  // "records" when every task uses a recorded schedule, "default" when none does, else "mixed".
  std::string schedules() const;
  const std::vector<std::string>& record_warnings() const;

 private:
  struct Impl;
  explicit NetworkExecutor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Seeded uniform [-1, 1) values for every graph input, drawn in graph order from one stream
// (what `tessera run` feeds without --input, and what network tuning times with).
std::map<std::string, std::vector<float>> random_network_inputs(const graph::Graph& graph, uint64_t seed);

}  // namespace tessera::runtime

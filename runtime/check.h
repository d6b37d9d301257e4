// Correctness of a compiled kernel against the reference evaluator.
//
// A MeasureTask holds what checking a DAG's kernels needs: seeded random inputs and, per
// output, the reference values at a set of points (every element of a small output; a seeded
// sample plus both ends of a large one). It is computed once per task and reused for every
// candidate, in this process or shipped to a measurement worker. Kernels run on buffers with
// guard zones around them: outputs are poisoned with NaN first (so an element never written
// is caught), and a write past either end of any buffer is reported.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel.h"
#include "schedule/compute_dag.h"
#include "schedule/reference.h"

namespace tessera::runtime {

struct OutputCheck {
  std::vector<int64_t> points;  // flat indices compared; empty means every element
  std::vector<float> expected;  // reference values at `points` (or everywhere)
};

struct MeasureTask {
  std::string workload_key;
  std::vector<std::vector<float>> inputs;  // in argument order
  std::vector<bool> constant_inputs;       // per input: a constant (weights), as the DAG marks it
  std::vector<int64_t> output_sizes;       // in argument order, after the inputs
  std::vector<OutputCheck> checks;         // one per output
  double tolerance = 0;
};

// `cache_dir` non-empty: the checks are read from there when a matching file exists, and
// written there after being computed (runtime/check_cache.h).
inline constexpr int64_t kCheckPoints = 1 << 16;  // points a large output's check samples

Result<MeasureTask> make_measure_task(const schedule::ComputeDAG& dag, uint64_t seed = 1,
                                      int64_t max_points = kCheckPoints, const std::string& cache_dir = "");

// 64-byte-aligned storage with guard zones before and after, filled with a known pattern.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t elements);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  float* data() { return data_; }
  size_t size() const { return size_; }
  // Bytes of the guard zones that were overwritten, before and after the data.
  size_t damage_before() const;
  size_t damage_after() const;

 private:
  unsigned char* base_;
  float* data_;
  size_t size_;
};

// The kernel's buffers for a task: inputs filled, outputs poisoned.
std::vector<std::unique_ptr<GuardedBuffer>> task_buffers(const MeasureTask& task);

struct CheckResult {
  schedule::Comparison comparison;  // the worst output
  int64_t points_checked = 0;
  std::string worst_output;
  std::string guard_violation;      // non-empty when the kernel wrote outside a buffer
  double call_seconds = 0;          // the checked call's wall time: the kernel's first, a cold one
  bool ok() const { return comparison.ok && guard_violation.empty(); }
};

// Runs the kernel once on `buffers` (from task_buffers) and checks guards and outputs.
Result<CheckResult> run_and_check(const Kernel& kernel, const MeasureTask& task,
                                  std::vector<std::unique_ptr<GuardedBuffer>>& buffers);

struct CheckOptions {
  uint64_t seed = 1;
  int64_t max_points = kCheckPoints;
};

// make_measure_task + task_buffers + run_and_check. Errors are failures to check (reference or
// run errors); a wrong answer is a CheckResult that is not ok.
Result<CheckResult> check_kernel(const schedule::ComputeDAG& dag, const Kernel& kernel,
                                 const CheckOptions& options = {});

}  // namespace tessera::runtime

// Measure tasks, guarded buffers and the kernel-vs-reference check (see check.h).
#include "runtime/check.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>

#include <tbb/parallel_for.h>

#include "runtime/check_cache.h"
#include "runtime/memory.h"

namespace tessera::runtime {
namespace {

constexpr size_t kGuardBytes = 4096;
static_assert(kGuardBytes % kBufferAlignment == 0, "the data must start on a page boundary");
constexpr unsigned char kGuardByte = 0xA5;

size_t damaged(const unsigned char* zone) {
  size_t n = 0;
  for (size_t i = 0; i < kGuardBytes; ++i) n += zone[i] != kGuardByte;
  return n;
}

// The reference values of `output` at `points`, evaluated in chunks on every core: the
// interpreter is most of preparing a large task (seconds for the 65,536 sampled points of a
// ResNet-50 convolution; schedule/reference.h). Each chunk evaluates its points alone, so the values do not depend on
// the chunking.
Result<std::vector<float>> reference_at(const schedule::ComputeDAG& dag, const schedule::TensorValues& inputs,
                                        const std::string& output, const std::vector<int64_t>& points) {
  constexpr size_t kChunk = 4096;
  const size_t chunks = (points.size() + kChunk - 1) / kChunk;
  std::vector<std::optional<Result<std::vector<float>>>> parts(chunks);
  tbb::parallel_for(size_t{0}, chunks, [&](size_t i) {
    const auto first = points.begin() + static_cast<std::ptrdiff_t>(i * kChunk);
    const auto last = points.begin() + static_cast<std::ptrdiff_t>(std::min(points.size(), (i + 1) * kChunk));
    parts[i] = schedule::evaluate_reference_at(dag, inputs, output, std::vector<int64_t>(first, last));
  });
  std::vector<float> values;
  values.reserve(points.size());
  for (auto& part : parts) {
    if (!*part) return part->error();
    values.insert(values.end(), (*part)->begin(), (*part)->end());
  }
  return values;
}

// The reference values `task.checks` compares with: every element of every output when none
// is larger than `max_points` (`sample` false), else each output's first and last element and
// seeded random points.
Result<void> compute_checks(const schedule::ComputeDAG& dag, const schedule::TensorValues& inputs,
                            MeasureTask& task, bool sample, uint64_t seed, int64_t max_points) {
  if (!sample) {
    auto reference = schedule::evaluate_reference(dag, inputs);
    if (!reference) return reference.error();
    for (const schedule::Tensor& out : dag.outputs()) {
      task.checks.push_back(OutputCheck{{}, reference->at(out->name)});
    }
    return {};
  }
  for (const schedule::Tensor& out : dag.outputs()) {
    OutputCheck check;
    check.points = {0, out.num_elements() - 1};
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    std::uniform_int_distribution<int64_t> pick(0, out.num_elements() - 1);
    while (static_cast<int64_t>(check.points.size()) < std::min(max_points, out.num_elements())) {
      check.points.push_back(pick(rng));
    }
    auto expected = reference_at(dag, inputs, out->name, check.points);
    if (!expected) return expected.error();
    check.expected = std::move(*expected);
    task.checks.push_back(std::move(check));
  }
  return {};
}

}  // namespace

GuardedBuffer::GuardedBuffer(size_t elements) : size_(elements) {
  size_t data_bytes = (elements * sizeof(float) + 63) / 64 * 64;
  // The front guard is one page, so the data starts on a page boundary (see kBufferAlignment).
  size_t total = (2 * kGuardBytes + data_bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  base_ = static_cast<unsigned char*>(allocate_buffer_memory(total, kBufferAlignment));
  std::memset(base_, kGuardByte, kGuardBytes);
  std::memset(base_ + kGuardBytes + data_bytes, kGuardByte, kGuardBytes);
  data_ = reinterpret_cast<float*>(base_ + kGuardBytes);
  // Padding between the last element and the rear guard is part of the guard.
  std::memset(reinterpret_cast<unsigned char*>(data_ + elements), kGuardByte,
              data_bytes - elements * sizeof(float));
}

GuardedBuffer::~GuardedBuffer() { free_buffer_memory(base_); }

size_t GuardedBuffer::damage_before() const { return damaged(base_); }

size_t GuardedBuffer::damage_after() const {
  const unsigned char* end = reinterpret_cast<const unsigned char*>(data_ + size_);
  size_t data_bytes = (size_ * sizeof(float) + 63) / 64 * 64;
  size_t padding = data_bytes - size_ * sizeof(float), n = 0;
  for (size_t i = 0; i < padding; ++i) n += end[i] != kGuardByte;
  return n + damaged(base_ + kGuardBytes + data_bytes);
}

Result<MeasureTask> make_measure_task(const schedule::ComputeDAG& dag, uint64_t seed,
                                      int64_t max_points, const std::string& cache_dir) {
  MeasureTask task;
  task.workload_key = dag.workload_key();
  task.tolerance = schedule::tolerance_for(dag);
  schedule::TensorValues inputs = schedule::random_inputs(dag, seed);
  for (const schedule::Tensor& t : dag.inputs()) {
    task.inputs.push_back(inputs.at(t->name));
    task.constant_inputs.push_back(t->is_constant);
  }
  bool sample = false;
  for (const schedule::Tensor& out : dag.outputs()) {
    task.output_sizes.push_back(out.num_elements());
    sample |= out.num_elements() > max_points;
  }
  const std::string cached = cache_dir.empty() ? "" : checks_file(cache_dir, task.workload_key, seed, max_points);
  if (!cached.empty()) {
    if (auto checks = load_checks(cached, task, seed, max_points)) {
      task.checks = std::move(*checks);
      return task;
    }
  }
  auto computed = compute_checks(dag, inputs, task, sample, seed, max_points);
  if (!computed) return computed.error();
  // A cache that cannot be written costs the next run time, not this one its check.
  if (!cached.empty()) (void)save_checks(cached, task, seed, max_points);
  return task;
}

std::vector<std::unique_ptr<GuardedBuffer>> task_buffers(const MeasureTask& task) {
  std::vector<std::unique_ptr<GuardedBuffer>> buffers;
  for (const auto& values : task.inputs) {
    buffers.push_back(std::make_unique<GuardedBuffer>(values.size()));
    std::copy(values.begin(), values.end(), buffers.back()->data());
  }
  for (int64_t size : task.output_sizes) {
    buffers.push_back(std::make_unique<GuardedBuffer>(static_cast<size_t>(size)));
    std::fill(buffers.back()->data(), buffers.back()->data() + size, NAN);
  }
  return buffers;
}

Result<CheckResult> run_and_check(const Kernel& kernel, const MeasureTask& task,
                                  std::vector<std::unique_ptr<GuardedBuffer>>& buffers) {
  const auto& args = kernel.arguments();
  if (args.size() != buffers.size()) {
    return make_error("kernel takes " + std::to_string(args.size()) + " buffers, the task has " +
                      std::to_string(buffers.size()));
  }
  std::vector<float*> pointers;
  for (auto& b : buffers) pointers.push_back(b->data());
  CheckResult result;
  if (auto r = kernel.run(pointers, &result.call_seconds); !r) return r.error();

  for (size_t i = 0; i < buffers.size(); ++i) {
    size_t before = buffers[i]->damage_before(), after = buffers[i]->damage_after();
    if (before || after) {
      result.guard_violation = "the kernel wrote outside buffer '" + args[i].name + "' (" +
                               std::to_string(before) + " bytes before its start, " +
                               std::to_string(after) + " after its end)";
      break;
    }
  }
  bool all_ok = true;
  const size_t first_output = task.inputs.size();
  for (size_t o = 0; o < task.checks.size(); ++o) {
    const OutputCheck& check = task.checks[o];
    const float* actual = buffers[first_output + o]->data();
    std::vector<float> got;
    if (check.points.empty()) {
      got.assign(actual, actual + task.output_sizes[o]);
    } else {
      for (int64_t p : check.points) got.push_back(actual[p]);
    }
    schedule::Comparison c = schedule::compare(got, check.expected, task.tolerance);
    result.points_checked += static_cast<int64_t>(got.size());
    if (o == 0 || c.max_error > result.comparison.max_error) {
      result.comparison = c;
      result.worst_output = args[first_output + o].name;
    }
    all_ok &= c.ok;
  }
  result.comparison.ok = all_ok;
  return result;
}

Result<CheckResult> check_kernel(const schedule::ComputeDAG& dag, const Kernel& kernel,
                                 const CheckOptions& options) {
  auto task = make_measure_task(dag, options.seed, options.max_points);
  if (!task) return task.error();
  auto buffers = task_buffers(*task);
  return run_and_check(kernel, *task, buffers);
}

}  // namespace tessera::runtime

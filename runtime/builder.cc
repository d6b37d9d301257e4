// Compilation of candidates to object code: a batch in parallel on TBB, or pipelined beside
// their timing (see builder.h).
#include "runtime/builder.h"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <sched.h>

#include <algorithm>
#include <chrono>

#include "runtime/runner.h"
#include "schedule/lower.h"
#include "schedule/state.h"

namespace tessera::runtime {
namespace {

// Statements the loop nest executes in straight-line code once unrolled loops are expanded.
int64_t unrolled_size(const schedule::Stmt& s) {
  using schedule::StmtKind;
  if (!s) return 0;
  switch (s->kind) {
    case StmtKind::kStore: return 1;
    case StmtKind::kSeq: {
      int64_t n = 0;
      for (const auto& c : s->children) n += unrolled_size(c);
      return n;
    }
    case StmtKind::kIfThenElse: return 1 + unrolled_size(s->then_case) + unrolled_size(s->else_case);
    case StmtKind::kAllocate: return unrolled_size(s->body);
    case StmtKind::kFor: {
      int64_t body = unrolled_size(s->body);
      return s->for_kind == schedule::ForKind::kUnrolled ? s->extent * body : 1 + body;
    }
  }
  return 0;
}

BuildResult build_one(const BuildInput& input, const BuildOptions& options) {
  auto start = std::chrono::steady_clock::now();
  BuildResult result;
  auto finish = [&](MeasureError error, std::string message) {
    result.error = error;
    result.message = std::move(message);
    result.compile_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  schedule::State state(*input.dag);
  if (auto r = state.apply_all(input.steps); !r) {
    return finish(MeasureError::kCompileError, "schedule refused: " + r.error().message);
  }
  auto func = schedule::lower(state, "candidate");
  if (!func) return finish(MeasureError::kCompileError, "lowering failed: " + func.error().message);
  int64_t size = unrolled_size(func->body);
  if (size > options.max_statements) {
    return finish(MeasureError::kCompileTimeout,
                  "the loop nest unrolls to " + std::to_string(size) + " statements, more than " +
                      std::to_string(options.max_statements) + "; unroll less");
  }
  CompileOptions compile;
  compile.fault = input.fault;
  auto object = compile_object(*func, compile);
  if (!object) return finish(MeasureError::kCompileError, object.error().message);
  result.object = std::move(*object);
  finish(MeasureError::kNone, "");
  if (result.compile_seconds > options.timeout_s) {
    result.object = ObjectCode{};
    char text[128];
    std::snprintf(text, sizeof text, "compiling took %.1f s, more than the %.1f s limit",
                  result.compile_seconds, options.timeout_s);
    return finish(MeasureError::kCompileTimeout, text);
  }
  return result;
}

}  // namespace

std::vector<BuildResult> build_batch(const std::vector<BuildInput>& inputs,
                                     const BuildOptions& options) {
  std::vector<BuildResult> results(inputs.size());
  int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  tbb::task_arena arena(threads);
  arena.execute([&] {
    // One candidate per task: compile times differ by 40x within a batch (0.1 to 4 s on a 7x7
    // conv), so chunks of several would leave a core idle at the batch's end.
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, inputs.size(), 1),
        [&](const tbb::blocked_range<size_t>& range) {
          for (size_t i = range.begin(); i != range.end(); ++i) results[i] = build_one(inputs[i], options);
        },
        tbb::simple_partitioner());
  });
  return results;
}

BuildPipeline::BuildPipeline(std::vector<BuildInput> inputs, BuildOptions options, const std::vector<int>& spare_cpus)
    : inputs_(std::move(inputs)), options_(options), results_(inputs_.size()), ready_(inputs_.size(), 0) {
  for (int cpu : spare_cpus) {
    threads_.emplace_back([this, cpu] {
      pin_this_thread({cpu});
      while (compile_next()) {
      }
    });
  }
}

BuildPipeline::~BuildPipeline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  for (auto& t : threads_) t.join();
}

bool BuildPipeline::compile_next() {
  size_t i;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || next_ >= inputs_.size()) return false;
    i = next_++;
  }
  BuildResult built = build_one(inputs_[i], options_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    results_[i] = std::move(built);
    ready_[i] = 1;
  }
  changed_.notify_all();
  return true;
}

BuildResult BuildPipeline::take(size_t i) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (ready_[i]) return std::move(results_[i]);
      if (next_ >= inputs_.size()) {  // i is compiling in another thread
        changed_.wait(lock, [&] { return ready_[i] != 0; });
        return std::move(results_[i]);
      }
    }
    compile_next();
  }
}

std::vector<int> spare_cpus(int threads) {
  std::vector<int> spare;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return spare;
  const std::vector<int> timing = measurement_cpus(threads);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed) && std::find(timing.begin(), timing.end(), cpu) == timing.end()) spare.push_back(cpu);
  }
  return spare;
}

}  // namespace tessera::runtime

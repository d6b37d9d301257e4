// The quickstart job: matmul built from the op library, scheduled by hand, lowered,
// JIT-compiled, checked against the reference evaluator and timed. A later `tessera tune`
// replaces the hand schedule by a search.
#include "experiments/quickstart.h"

#include <cstdio>
#include <cstdlib>

#include "runtime/check.h"
#include "runtime/kernel.h"
#include "runtime/parallel_runtime.h"
#include "runtime/timing.h"
#include "schedule/hand_schedules.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/reference.h"
#include "schedule/state.h"

namespace tessera::experiments {
namespace {

bool parse_int(const std::string& text, int64_t* out) {
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || v < 1) return false;
  *out = v;
  return true;
}

}  // namespace

int run_quickstart(const std::vector<std::string>& args) {
  int64_t m = 1024, n = 1024, k = 1024, threads = 1;
  bool print_ir = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--print-ir") {
      print_ir = true;
      continue;
    }
    int64_t* target = a == "--m" ? &m : a == "--n" ? &n : a == "--k" ? &k
                    : a == "--threads" ? &threads : nullptr;
    if (!target || i + 1 >= args.size() || !parse_int(args[i + 1], target)) {
      std::fprintf(stderr, "tessera quickstart: bad argument '%s' (expected --m N --n N --k N "
                   "--threads N with positive integers, or --print-ir)\n", a.c_str());
      return 2;
    }
    ++i;
  }

  auto dag = schedule::matmul(m, n, k);
  if (!dag) {
    std::fprintf(stderr, "tessera quickstart: %s\n", dag.error().message.c_str());
    return 2;
  }
  std::printf("Tessera quickstart: %s (workload %s)\n", dag->summary().c_str(),
              dag->workload_key().c_str());
  schedule::State state(*dag);
  if (auto r = state.apply_all(schedule::matmul_hand_schedule(m, n, k)); !r) {
    std::fprintf(stderr, "tessera quickstart: schedule: %s\n", r.error().message.c_str());
    return 1;
  }
  std::printf("schedule:\n");
  for (const schedule::Step& s : state.history()) std::printf("  %s\n", schedule::describe_step(s).c_str());
  auto func = schedule::lower(state, "matmul");
  if (!func) {
    std::fprintf(stderr, "tessera quickstart: lowering: %s\n", func.error().message.c_str());
    return 1;
  }
  std::printf("loop nest:\n%s", schedule::to_string(*func).c_str());

  runtime::set_num_threads(static_cast<int>(threads));
  runtime::CompileOptions options;
  options.keep_llvm_ir = print_ir;
  auto kernel = runtime::compile_cpu(*func, options);
  if (!kernel) {
    std::fprintf(stderr, "tessera quickstart: compile: %s\n", kernel.error().message.c_str());
    return 1;
  }
  if (print_ir) std::printf("optimized LLVM IR:\n%s", kernel->llvm_ir().c_str());
  std::printf("compiled in %.1f ms\n", kernel->compile_ms());

  // The checked run's buffers (seeded inputs) are the ones timed afterwards.
  auto task = runtime::make_measure_task(*dag);
  if (!task) {
    std::fprintf(stderr, "tessera quickstart: check: %s\n", task.error().message.c_str());
    return 1;
  }
  auto guarded = runtime::task_buffers(*task);
  auto check = runtime::run_and_check(*kernel, *task, guarded);
  if (!check) {
    std::fprintf(stderr, "tessera quickstart: check: %s\n", check.error().message.c_str());
    return 1;
  }
  const auto& c = check->comparison;
  std::printf("check: %lld points against the reference, max error %.2e (tolerance %.2e): %s\n",
              static_cast<long long>(check->points_checked), c.max_error,
              schedule::tolerance_for(*dag), check->ok() ? "OK" : "WRONG ANSWER");
  if (!check->guard_violation.empty()) std::printf("  %s\n", check->guard_violation.c_str());
  if (!check->ok()) return 1;

  std::vector<float*> buffers;
  for (auto& b : guarded) buffers.push_back(b->data());
  runtime::Timing timing = runtime::time_kernel(*kernel, buffers);
  double seconds = timing.median();
  std::printf("time: median %.3f ms over %zu repeats of %d calls -> %.1f GFLOP/s (%lld thread%s)\n",
              seconds * 1e3, timing.seconds.size(), timing.number,
              dag->flop_count() / seconds * 1e-9, static_cast<long long>(threads),
              threads == 1 ? "" : "s");
  return 0;
}

}  // namespace tessera::experiments

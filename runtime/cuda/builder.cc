// TBB-parallel CUDA compilation of candidates (see builder.h).
#include "runtime/cuda/builder.h"

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cstdio>

#include "schedule/lower.h"
#include "schedule/state.h"

namespace tessera::runtime::cuda {

const char* to_string(BuildPhase phase) {
  switch (phase) {
    case BuildPhase::kNone: return "none";
    case BuildPhase::kSchedule: return "schedule";
    case BuildPhase::kLower: return "lower";
    case BuildPhase::kPlan: return "plan";
    case BuildPhase::kCodegen: return "codegen";
    case BuildPhase::kNvrtc: return "nvrtc";
  }
  return "?";
}

CudaBuildResult build_cuda(const BuildInput& input, const CudaBuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CudaBuildResult result;
  auto finish = [&](BuildPhase phase, MeasureError error, std::string message) {
    result.failed_at = phase;
    result.error = error;
    result.message = std::move(message);
    result.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  schedule::State state(*input.dag);
  if (auto r = state.apply_all(input.steps); !r) {
    return finish(BuildPhase::kSchedule, MeasureError::kCompileError, "schedule refused: " + r.error().message);
  }
  auto func = schedule::lower(state, "candidate");
  if (!func) return finish(BuildPhase::kLower, MeasureError::kCompileError, "lowering failed: " + func.error().message);
  if (auto plan = schedule::plan_gpu_kernels(*func, options.limits); !plan) {
    return finish(BuildPhase::kPlan, MeasureError::kCompileError, "not runnable on the GPU: " + plan.error().message);
  }
  auto source = emit_cuda(*func, options.limits);
  if (!source) return finish(BuildPhase::kCodegen, MeasureError::kCompileError, "cuda codegen: " + source.error().message);
  auto image = compile_cuda(source->code, options.arch);
  if (!image) {
    result.module.source = std::move(*source);
    return finish(BuildPhase::kNvrtc, MeasureError::kCompileError, image.error().message);
  }
  result.module = CudaModule{std::move(*image), std::move(*source)};
  finish(BuildPhase::kNone, MeasureError::kNone, "");
  if (result.compile_seconds > options.timeout_s) {
    char text[128];
    std::snprintf(text, sizeof text, "compiling took %.1f s, more than the %.1f s limit",
                  result.compile_seconds, options.timeout_s);
    result.module = CudaModule{};
    return finish(BuildPhase::kNvrtc, MeasureError::kCompileTimeout, text);
  }
  return result;
}

std::vector<CudaBuildResult> build_cuda_batch(const std::vector<BuildInput>& inputs,
                                              const CudaBuildOptions& options) {
  std::vector<CudaBuildResult> results(inputs.size());
  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, inputs.size(), [&](size_t i) { results[i] = build_cuda(inputs[i], options); });
  });
  return results;
}

}  // namespace tessera::runtime::cuda

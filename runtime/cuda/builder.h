// The CUDA builder: compiles a batch of candidates to GPU images with NVRTC, in parallel on TBB.
//
// Like the CPU builder (runtime/builder.h): each candidate (DAG + steps) is scheduled, lowered,
// planned into kernels (schedule/gpu_check.h), emitted as CUDA C and compiled; every failure is
// a result with an error class and a message, and `failed_at` says which phase refused it, so
// tests can tell a schedule the GPU cannot run (refused by the plan, as designed) from a codegen
// bug (CUDA C that NVRTC refuses).
#pragma once

#include <string>
#include <vector>

#include "runtime/builder.h"
#include "runtime/cuda/codegen.h"
#include "runtime/cuda/nvrtc.h"

namespace tessera::runtime::cuda {

struct CudaBuildOptions {
  std::string arch = "sm_90";
  int threads = 0;  // 0: every core TBB sees
  double timeout_s = 20;
  schedule::GpuLimits limits;
};

// A compiled candidate: the image and how to launch it.
struct CudaModule {
  GpuImage image;
  CudaSource source;
};

enum class BuildPhase : uint8_t { kNone, kSchedule, kLower, kPlan, kCodegen, kNvrtc };
const char* to_string(BuildPhase phase);

struct CudaBuildResult {
  CudaModule module;  // valid when error == kNone
  MeasureError error = MeasureError::kNone;
  BuildPhase failed_at = BuildPhase::kNone;
  std::string message;
  double compile_seconds = 0;
};

CudaBuildResult build_cuda(const BuildInput& input, const CudaBuildOptions& options = {});
std::vector<CudaBuildResult> build_cuda_batch(const std::vector<BuildInput>& inputs,
                                              const CudaBuildOptions& options = {});

}  // namespace tessera::runtime::cuda

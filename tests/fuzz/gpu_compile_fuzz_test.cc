// GPU candidates through NVRTC, no GPU needed: for every op of the op suite (and a few larger
// shapes), candidates sampled from the GPU sketches (schedule/sketch_gpu.h) are scheduled,
// lowered, planned, emitted as CUDA C and compiled by NVRTC for sm_90. A candidate the plan
// refuses (e.g. shared memory over the limit) is a designed refusal and is counted; one NVRTC
// refuses is a codegen bug: it is shrunk (steps dropped while NVRTC still refuses) and printed
// with its CUDA C and NVRTC's log. Every 8th compiled candidate also runs on the CPU with its GPU
// loops made serial (the LoopNest semantics CUDA must reproduce), against the reference, which
// catches sketch and lowering bugs that compile fine.
//
// Each op compiles kPerOp candidates (TESSERA_GPU_SAMPLES overrides), over 1,000 in all;
// TESSERA_GPU_DUMP=1 prints each op's first CUDA C.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "jit_test_util.h"
#include "op_cases.h"
#include "shrink_steps.h"
#include "runtime/cuda/builder.h"
#include "schedule/sketch_gpu.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;
using runtime::cuda::BuildPhase;

constexpr int kPerOp = 34;

int per_op() {
  const char* env = std::getenv("TESSERA_GPU_SAMPLES");
  return env ? std::atoi(env) : kPerOp;
}

std::vector<OpCase> gpu_cases() {
  std::vector<OpCase> cases = op_cases();
  Conv2dParams resnet{1, 64, 28, 28, 64, 3, 3};
  resnet.pad_h = resnet.pad_w = 1;
  cases.push_back({"matmul_256", [] { return matmul(256, 256, 256); }});
  cases.push_back({"matmul_prime_37x41x31", [] { return matmul(37, 41, 31); }});
  cases.push_back({"batch_matmul_64", [] { return batch_matmul(4, 64, 64, 64); }});
  cases.push_back({"conv2d_resnet_64", [=] { return conv2d(resnet); }});
  cases.push_back({"softmax_8x1000", [] { return softmax({8, 1000}); }});
  return cases;
}

bool nvrtc_refuses(const ComputeDAG& dag, const std::vector<Step>& steps) {
  auto built = runtime::cuda::build_cuda({&dag, steps});
  return built.failed_at == BuildPhase::kNvrtc || built.failed_at == BuildPhase::kCodegen;
}

// The same loop nest with GPU loops serial and shared buffers local: what CUDA must compute.
Stmt serial(const Stmt& s) {
  if (!s) return s;
  auto n = std::make_shared<StmtNode>(*s);
  if (n->kind == StmtKind::kFor && (n->for_kind == ForKind::kGpuBlock || n->for_kind == ForKind::kGpuThread)) {
    n->for_kind = ForKind::kSerial;
  }
  if (n->kind == StmtKind::kAllocate && n->scope == StorageScope::kShared) n->scope = StorageScope::kLocal;
  n->body = serial(s->body);
  n->then_case = serial(s->then_case);
  n->else_case = serial(s->else_case);
  for (Stmt& c : n->children) c = serial(c);
  return n;
}

::testing::AssertionResult SerialMatchesReference(const ComputeDAG& dag, const std::vector<Step>& steps) {
  State state(dag);
  if (!state.apply_all(steps)) return ::testing::AssertionFailure() << "schedule refused";
  auto func = lower(state, "kernel");
  if (!func) return ::testing::AssertionFailure() << func.error().message;
  func->body = serial(func->body);
  auto kernel = runtime::compile_cpu(*func);
  if (!kernel) return ::testing::AssertionFailure() << kernel.error().message;
  auto check = runtime::check_kernel(dag, *kernel);
  if (!check) return ::testing::AssertionFailure() << check.error().message;
  if (!check->ok()) {
    return ::testing::AssertionFailure() << "wrong answer in " << check->worst_output << ", max error "
                                         << check->comparison.max_error << "\n" << to_string(*func);
  }
  return ::testing::AssertionSuccess();
}

TEST(GpuCompileFuzz, TheSuiteCompilesOverAThousandCandidates) {
  EXPECT_GE(static_cast<int>(gpu_cases().size()) * per_op(), 1000)
      << "the op suite times TESSERA_GPU_SAMPLES must compile at least 1,000 GPU candidates";
}

class GpuCompileFuzz : public ::testing::TestWithParam<OpCase> {};

TEST_P(GpuCompileFuzz, SampledCandidatesCompileThroughNvrtc) {
  auto dag = GetParam().make();
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const std::vector<Sketch> sketches = generate_gpu_sketches(*dag);
  ASSERT_FALSE(sketches.empty());
  std::mt19937_64 rng(24);
  const int wanted = per_op();
  int compiled = 0, refused_by_plan = 0, nvrtc_failures = 0, attempts = 0;
  while (compiled < wanted && attempts < 4 * wanted && nvrtc_failures == 0) {
    std::vector<std::vector<Step>> batch;
    std::vector<std::string> labels;
    for (int i = 0; i < 8; ++i, ++attempts) {
      const Sketch& sketch = sketches[static_cast<size_t>(attempts) % sketches.size()];
      KnobValues values = sketch.knobs.sample(rng);
      auto state = apply_candidate(*dag, sketch, values);
      ASSERT_TRUE(state.ok()) << "a sampled candidate must apply: " << state.error().message;
      batch.push_back(sketch.steps(values));
      labels.push_back(sketch.id + " " + sketch.knobs.to_json(values).dump());
    }
    std::vector<runtime::BuildInput> inputs;
    for (const auto& steps : batch) inputs.push_back({&*dag, steps});
    auto results = runtime::cuda::build_cuda_batch(inputs);
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      if (r.failed_at == BuildPhase::kNone) {
        if (compiled == 0 && std::getenv("TESSERA_GPU_DUMP")) std::printf("%s\n%s\n", labels[i].c_str(), r.module.source.code.c_str());
        if (compiled++ % 8 == 0) {
          EXPECT_TRUE(SerialMatchesReference(*dag, batch[i])) << labels[i];
        }
        continue;
      }
      if (r.failed_at == BuildPhase::kPlan) {
        ++refused_by_plan;
        continue;
      }
      ++nvrtc_failures;
      std::vector<Step> minimal = r.failed_at == BuildPhase::kNvrtc || r.failed_at == BuildPhase::kCodegen
                                      ? shrink_steps(*dag, batch[i],
                                                     [&](const std::vector<Step>& steps) { return nvrtc_refuses(*dag, steps); })
                                      : batch[i];
      auto again = runtime::cuda::build_cuda({&*dag, minimal});
      ADD_FAILURE() << GetParam().label << " (" << dag->summary() << "): candidate " << labels[i]
                    << " refused at " << runtime::cuda::to_string(r.failed_at) << ": " << r.message
                    << "\nshrunk to " << steps_text(minimal) << "\n" << again.message << "\n"
                    << again.module.source.code;
      break;
    }
  }
  EXPECT_GE(compiled, wanted) << refused_by_plan << " of " << attempts
                              << " candidates refused by the GPU plan (e.g. shared memory over the limit)";
}

INSTANTIATE_TEST_SUITE_P(Ops, GpuCompileFuzz, ::testing::ValuesIn(gpu_cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.label; });

}  // namespace
}  // namespace tessera::testing

// Builder: compiles a batch of candidates to relocatable object code, in parallel on TBB.
//
// Each candidate is a DAG plus schedule steps; it is scheduled, lowered and compiled with its
// own LLVM context and target machine (thread-safe, TOOLCHAIN.md). Failures are results:
// a schedule that does not apply or lower, or LLVM refusing, is a compile error; a candidate
// whose loop nest would unroll past `max_statements` is refused up front as a compile timeout
// (LLVM's time grows with it and cannot be interrupted), and one whose compile still runs past
// `timeout_s` is reported as a compile timeout too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/measure.h"
#include "schedule/compute_dag.h"
#include "schedule/steps.h"

namespace tessera::runtime {

struct BuildInput {
  const schedule::ComputeDAG* dag = nullptr;
  std::vector<schedule::Step> steps;
  Fault fault = Fault::kNone;  // tests only
};

struct BuildOptions {
  int threads = 0;                 // 0: every core TBB sees
  double timeout_s = 20;
  int64_t max_statements = 200000;  // after unrolling
};

std::vector<BuildResult> build_batch(const std::vector<BuildInput>& inputs,
                                     const BuildOptions& options = {});

}  // namespace tessera::runtime

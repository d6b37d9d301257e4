// Correctness check of a compiled kernel against the reference evaluator.
//
// Inputs are random (seeded); outputs are poisoned with NaN before the run so an element the
// kernel never writes is caught. Small outputs are compared in full; an output with more than
// `max_points` elements is compared on a seeded random sample of that many points plus its
// first and last elements, which keeps the check of a large kernel fast.
#pragma once

#include <cstdint>

#include "runtime/kernel.h"
#include "schedule/compute_dag.h"
#include "schedule/reference.h"

namespace tessera::runtime {

struct CheckOptions {
  uint64_t seed = 1;
  int64_t max_points = 1 << 16;
};

struct CheckResult {
  schedule::Comparison comparison;  // worst over all outputs
  int64_t points_checked = 0;
  std::string worst_output;
};

// Errors are failures to check (reference or run errors), not wrong answers: a wrong answer is
// a CheckResult whose comparison is not ok.
Result<CheckResult> check_kernel(const schedule::ComputeDAG& dag, const Kernel& kernel,
                                 const CheckOptions& options = {});

}  // namespace tessera::runtime

// Reference evaluator: computes a DAG's outputs straight from its tensor expressions.
//
// It never looks at a schedule, the LoopNest IR or generated code, so it is an independent
// oracle for every correctness check. It evaluates in double precision, point by point, on the
// expressions compiled once into index-linked ops (no name lookup per point): about 35 ns per
// term of a convolution's reduction on a Zen 5, so the 65,536 sampled points that check a
// ResNet-50 convolution take a few seconds, and a network's preparation is mostly this. Select
// is evaluated lazily, so padded reads outside a tensor are never performed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "schedule/compute_dag.h"
#include "schedule/result.h"

namespace tessera::schedule {

using TensorValues = std::map<std::string, std::vector<float>>;

// Uniform values in [-1, 1) for every input, from `seed` (the same on every machine).
TensorValues random_inputs(const ComputeDAG& dag, uint64_t seed);

// Every computed stage's values, given every input's. Missing or wrongly sized inputs and
// out-of-bounds reads are Errors.
Result<TensorValues> evaluate_reference(const ComputeDAG& dag, const TensorValues& inputs);

// The output stage `output` at the given flat indices only; intermediate stages are evaluated
// on demand at the points those need (memoized): a cheap check of a large kernel on a sample
// of its outputs.
Result<std::vector<float>> evaluate_reference_at(const ComputeDAG& dag, const TensorValues& inputs,
                                                 const std::string& output,
                                                 const std::vector<int64_t>& points);

// Tolerance for comparing a float32 kernel with the reference.
// Error model: float32 has unit roundoff u = 2^-24; a sum of L terms accumulated in any order
// (any split, reorder or vectorization) typically errs by about sqrt(L)·u·(magnitude of the
// terms) and at worst by L·u·(sum of |terms|); libm-style exp/erf/tanh add a few ulp. We allow
// |out - ref| <= tol · (1 + |ref|) with tol = 8·u·max(L, 16), where L is the total length of the
// reductions on the longest path through the DAG — well above the typical error, far below
// the error of any wrong index or missing term.
double tolerance_for(const ComputeDAG& dag);

struct Comparison {
  bool ok = true;
  double max_error = 0;    // max |out - ref| / (1 + |ref|)
  int64_t worst_index = -1;
  int64_t mismatches = 0;  // elements past the tolerance (NaN counts)
};
Comparison compare(const std::vector<float>& actual, const std::vector<float>& expected,
                   double tolerance);

}  // namespace tessera::schedule

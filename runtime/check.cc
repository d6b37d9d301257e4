// Kernel vs reference comparison (see check.h).
#include "runtime/check.h"

#include <cmath>
#include <memory>
#include <random>

namespace tessera::runtime {

Result<CheckResult> check_kernel(const schedule::ComputeDAG& dag, const Kernel& kernel,
                                 const CheckOptions& options) {
  schedule::TensorValues inputs = schedule::random_inputs(dag, options.seed);
  std::vector<std::unique_ptr<AlignedBuffer>> storage;
  std::vector<float*> pointers;
  for (const schedule::Tensor& t : dag.arguments()) {
    storage.push_back(std::make_unique<AlignedBuffer>(static_cast<size_t>(t.num_elements())));
    float* p = storage.back()->data();
    auto it = inputs.find(t->name);
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      p[i] = it != inputs.end() ? it->second[static_cast<size_t>(i)] : NAN;
    }
    pointers.push_back(p);
  }
  if (auto r = kernel.run(pointers); !r) return r.error();

  bool sample_any = false;
  for (const schedule::Tensor& out : dag.outputs()) sample_any |= out.num_elements() > options.max_points;
  schedule::TensorValues full;
  if (!sample_any) {
    auto reference = schedule::evaluate_reference(dag, inputs);
    if (!reference) return reference.error();
    full = std::move(*reference);
  }

  CheckResult result;
  bool all_ok = true;
  double tolerance = schedule::tolerance_for(dag);
  size_t first_output = dag.inputs().size();
  for (size_t o = 0; o < dag.outputs().size(); ++o) {
    const schedule::Tensor& out = dag.outputs()[o];
    const float* actual = pointers[first_output + o];
    std::vector<float> got, expected;
    if (!sample_any) {
      got.assign(actual, actual + out.num_elements());
      expected = full.at(out->name);
    } else {
      std::vector<int64_t> points{0, out.num_elements() - 1};
      std::mt19937_64 rng(options.seed ^ 0x9e3779b97f4a7c15ull);
      std::uniform_int_distribution<int64_t> pick(0, out.num_elements() - 1);
      while (static_cast<int64_t>(points.size()) < std::min(options.max_points, out.num_elements())) {
        points.push_back(pick(rng));
      }
      auto reference = schedule::evaluate_reference_at(dag, inputs, out->name, points);
      if (!reference) return reference.error();
      expected = std::move(*reference);
      for (int64_t p : points) got.push_back(actual[p]);
    }
    schedule::Comparison c = schedule::compare(got, expected, tolerance);
    result.points_checked += static_cast<int64_t>(got.size());
    if (o == 0 || c.max_error > result.comparison.max_error) {
      result.comparison = c;
      result.worst_output = out->name;
    }
    all_ok &= c.ok;
  }
  result.comparison.ok = all_ok;
  return result;
}

}  // namespace tessera::runtime

// A matmul kernel next to OpenBLAS on the same inputs (see measure.h).
#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "bench/measure.h"
#include "schedule/reference.h"

namespace tessera::bench {

nlohmann::json compare_with_openblas(const schedule::ComputeDAG& dag, int64_t n,
                                     const CompiledSchedule& compiled) {
  runtime::AlignedBuffer a(n * n), b(n * n), c(n * n), c_blas(n * n);
  schedule::TensorValues inputs = schedule::random_inputs(dag, 7);
  std::copy(inputs["A"].begin(), inputs["A"].end(), a.data());
  std::copy(inputs["B"].begin(), inputs["B"].end(), b.data());
  std::vector<void*> args{a.data(), b.data(), c.data()};
  const int ni = static_cast<int>(n);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, a.data(), ni,
                b.data(), ni, 0.0f, c_blas.data(), ni);
  };
  compiled.kernel->prepare_unchecked(args.data());  // constants packed at load, untimed
  auto ours = [&] { compiled.kernel->run_unchecked(args.data()); };
  ours();
  blas();
  double worst = 0;
  for (int64_t i = 0; i < n * n; ++i) {
    worst = std::max(worst, std::fabs(c.data()[i] - c_blas.data()[i]) / (1.0 + std::fabs(c_blas.data()[i])));
  }
  if (!(worst <= schedule::tolerance_for(dag))) {
    return error_json("Tessera and OpenBLAS disagree: max difference " + std::to_string(worst));
  }
  nlohmann::json line = result_json(dag.flop_count(), time_alternately(ours, blas), "openblas", compiled);
  line["baseline_kernel"] = openblas_get_corename();
  line["shape"] = dag.summary();
  return line;
}

}  // namespace tessera::bench

// SGEMM: the hand-scheduled Tessera kernel next to OpenBLAS, timed alternately in one process
// so both see the same machine state; the Tessera kernel is checked against the reference
// (sampled) and against OpenBLAS's result before any number is reported.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "bench/cases.h"
#include "runtime/check.h"
#include "runtime/kernel.h"
#include "runtime/parallel_runtime.h"
#include "runtime/timing.h"
#include "schedule/hand_schedules.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/state.h"

namespace tessera::bench {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

nlohmann::json error(const std::string& message) { return {{"error", message}}; }

}  // namespace

nlohmann::json run_sgemm(int64_t n, int threads, bool cache_write) {
  auto dag = schedule::matmul(n, n, n);
  if (!dag) return error(dag.error().message);
  schedule::State state(*dag);
  auto steps = cache_write ? schedule::matmul_cache_write_schedule(n, n, n)
                           : schedule::matmul_hand_schedule(n, n, n);
  if (auto r = state.apply_all(steps); !r) {
    return error(r.error().message);
  }
  auto func = schedule::lower(state, "sgemm");
  if (!func) return error(func.error().message);

  std::vector<double> compile_ms;
  std::unique_ptr<runtime::Kernel> kernel;
  for (int i = 0; i < 7; ++i) {
    auto k = runtime::compile_cpu(*func);
    if (!k) return error(k.error().message);
    compile_ms.push_back(k->compile_ms());
    kernel = std::make_unique<runtime::Kernel>(std::move(*k));
  }

  runtime::set_num_threads(threads);
  openblas_set_num_threads(threads);
  auto check = runtime::check_kernel(*dag, *kernel);
  if (!check) return error(check.error().message);
  if (!check->comparison.ok) {
    return error("wrong answer: max error " + std::to_string(check->comparison.max_error));
  }

  runtime::AlignedBuffer a(n * n), b(n * n), c(n * n), c_blas(n * n);
  schedule::TensorValues inputs = schedule::random_inputs(*dag, 7);
  std::copy(inputs["A"].begin(), inputs["A"].end(), a.data());
  std::copy(inputs["B"].begin(), inputs["B"].end(), b.data());
  std::vector<float*> buffers{a.data(), b.data(), c.data()};
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n),
                static_cast<int>(n), static_cast<int>(n), 1.0f, a.data(), static_cast<int>(n),
                b.data(), static_cast<int>(n), 0.0f, c_blas.data(), static_cast<int>(n));
  };
  if (auto r = kernel->run(buffers); !r) return error(r.error().message);
  blas();
  double worst = 0;
  for (int64_t i = 0; i < n * n; ++i) {
    worst = std::max(worst, std::fabs(c.data()[i] - c_blas.data()[i]) / (1.0 + std::fabs(c_blas.data()[i])));
  }
  if (!(worst <= schedule::tolerance_for(*dag))) {
    return error("Tessera and OpenBLAS disagree: max difference " + std::to_string(worst));
  }

  // Alternate the two, several rounds, so drifts in machine load hit both alike.
  runtime::TimingOptions options;
  options.repeats = 3;
  options.min_repeat_ms = 100;
  std::vector<double> ours, theirs;
  for (int round = 0; round < 5; ++round) {
    for (double s : runtime::time_kernel(*kernel, buffers, options).seconds) ours.push_back(s);
    for (double s : runtime::time_callable(blas, options).seconds) theirs.push_back(s);
  }
  double flops = dag->flop_count();
  double tessera_gflops = flops / median(ours) * 1e-9;
  double blas_gflops = flops / median(theirs) * 1e-9;
  return {{"tessera_gflops", std::round(tessera_gflops * 10) / 10},
          {"baseline", "openblas"},
          {"baseline_kernel", openblas_get_corename()},
          {"baseline_gflops", std::round(blas_gflops * 10) / 10},
          {"ratio", std::round(tessera_gflops / blas_gflops * 1000) / 1000},
          {"compile_ms", std::round(median(compile_ms) * 10) / 10},
          {"threads", threads},
          {"shape", dag->summary()},
          {"checked_points", check->points_checked},
          {"max_error", check->comparison.max_error}};
}

}  // namespace tessera::bench

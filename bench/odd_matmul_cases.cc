// odd_matmul_suite and fused_epilogue (issue 19): harl tunes matmuls whose extents have few
// divisors (1009^3, 509x1000x777; 1000^3 beside them) and dense + bias + gelu 128x3072x768
// through the builder and isolated runner; the best is compiled here, checked against the
// reference and against OpenBLAS's result (with bias and gelu applied in double for the fused
// case), then timed alternately with cblas_sgemm of the same shape (without the epilogue) on
// one thread. `ratio` is OpenBLAS's time over Tessera's; GFLOP/s count 2mnk for both.
// odd_matmul_probe compiles one schedule by hand (or the default rule's) of a matmul, or of a
// batch of them (TESSERA_PROBE_BATCH: attention's [heads, tokens, tokens] products), against
// one cblas_sgemm per batch entry.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>

#include "bench/cases.h"
#include "runtime/fingerprint.h"
#include "runtime/kernel.h"
#include "runtime/parallel_runtime.h"
#include "schedule/lower.h"
#include "schedule/reference.h"
#include "schedule/sketch.h"

namespace tessera::bench {
namespace {

struct GemmShape {
  int64_t m, n, k;
  int64_t batch = 1;
};

std::string shape_name(const GemmShape& s) {
  return (s.batch > 1 ? std::to_string(s.batch) + "x" : "") + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

// `compiled` (a kernel of `dag`, whose inputs are A [batch, m, k] and B [batch, k, n], or X
// [m, k], W [n, k] and bias [n] when `epilogue`) against sgemm on the same inputs, one call per
// batch entry.
nlohmann::json compare(const schedule::ComputeDAG& dag, const GemmShape& s, const CompiledSchedule& compiled,
                       bool epilogue) {
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  schedule::TensorValues values = schedule::random_inputs(dag, 7);
  std::deque<runtime::AlignedBuffer> inputs;  // not movable: a deque never relocates them
  std::vector<void*> args;
  for (const auto& t : dag.inputs()) {
    inputs.emplace_back(t.num_elements());
    std::copy(values[t->name].begin(), values[t->name].end(), inputs.back().data());
    args.push_back(inputs.back().data());
  }
  const int64_t outputs = s.batch * s.m * s.n;
  runtime::AlignedBuffer out(outputs), blas_out(outputs);
  args.push_back(out.data());
  const float* a = inputs[0].data();
  const float* b = inputs[1].data();
  auto blas = [&] {
    for (int64_t e = 0; e < s.batch; ++e) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, epilogue ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a + e * m * k,
                  k, b + e * k * n, epilogue ? k : n, 0.0f, blas_out.data() + e * m * n, n);
    }
  };
  compiled.kernel->prepare_unchecked(args.data());  // constant inputs packed once, as at load
  auto ours = [&] { compiled.kernel->run_unchecked(args.data()); };
  ours();
  blas();
  double worst = 0;
  for (int64_t i = 0; i < outputs; ++i) {
    double want = blas_out.data()[i];
    if (epilogue) {
      want += inputs[2].data()[i % s.n];
      want = 0.5 * want * (1 + std::erf(want / std::sqrt(2.0)));
    }
    worst = std::max(worst, std::fabs(out.data()[i] - want) / (1.0 + std::fabs(want)));
  }
  if (!(worst <= schedule::tolerance_for(dag))) {
    return error_json("Tessera and OpenBLAS disagree on " + shape_name(s) + ": max difference " + std::to_string(worst));
  }
  Medians t = time_alternately(ours, blas);
  const double flops = 2.0 * static_cast<double>(s.batch * s.m * s.n * s.k);
  auto round1 = [](double x) { return std::round(x * 10) / 10; };
  return {{"shape", shape_name(s)},
          {"tessera_gflops", round1(flops / t.tessera_seconds * 1e-9)},
          {"baseline", epilogue ? "openblas sgemm (no epilogue)" : "openblas sgemm"},
          {"baseline_kernel", openblas_get_corename()},
          {"baseline_gflops", round1(flops / t.baseline_seconds * 1e-9)},
          {"ratio", std::round(t.baseline_seconds / t.tessera_seconds * 1000) / 1000},
          {"tessera_ms", std::round(t.tessera_seconds * 1e5) / 100},
          {"baseline_ms", std::round(t.baseline_seconds * 1e5) / 100},
          {"max_diff_vs_openblas", worst},
          {"compile_ms", round1(compiled.compile_ms)},
          {"checked_points", compiled.checked_points},
          {"max_error", compiled.max_error},
          {"threads", 1},
          {"cpu", runtime::host_fingerprint().cpu_model}};
}

nlohmann::json run_one(const schedule::ComputeDAG& dag, const GemmShape& s, bool epilogue, int trials,
                       const std::string& records) {
  runtime::set_num_threads(1);
  openblas_set_num_threads(1);
  nlohmann::json search;
  auto compiled = search_and_compile(dag, "harl", trials, records, search);
  if (!compiled) return error_json(shape_name(s) + ": " + compiled.error().message);
  nlohmann::json line = compare(dag, s, *compiled, epilogue);
  line.update(search);  // agent, trials, search_seconds, best sketch and knobs, curve
  line["workload"] = dag.summary();
  std::fprintf(stderr, "%s\n", line.dump().c_str());
  return line;
}

}  // namespace

nlohmann::json run_odd_matmul_suite(int trials) {
  nlohmann::json lines = nlohmann::json::array();
  for (const GemmShape& s : {GemmShape{1009, 1009, 1009}, GemmShape{509, 1000, 777}, GemmShape{1000, 1000, 1000}}) {
    auto dag = schedule::matmul(s.m, s.n, s.k);
    if (!dag) return error_json(dag.error().message);
    lines.push_back(run_one(*dag, s, false, trials, "odd_matmul_harl_" + shape_name(s)));
  }
  return lines;
}

nlohmann::json run_odd_matmul_probe() {
  const char* shape = std::getenv("TESSERA_PROBE_SHAPE");
  const char* sketch_id = std::getenv("TESSERA_PROBE_SKETCH");
  const char* knobs = std::getenv("TESSERA_PROBE_KNOBS");
  const char* batch = std::getenv("TESSERA_PROBE_BATCH");
  GemmShape s{};
  if (!shape || !sketch_id || !knobs || std::sscanf(shape, "%ld,%ld,%ld", &s.m, &s.n, &s.k) != 3) {
    return error_json("set TESSERA_PROBE_SHAPE=m,n,k, TESSERA_PROBE_SKETCH=id and TESSERA_PROBE_KNOBS={json} or default"
                      " (and TESSERA_PROBE_BATCH=b for a batch of b matmuls)");
  }
  if (batch && (std::sscanf(batch, "%ld", &s.batch) != 1 || s.batch < 1)) {
    return error_json(std::string("TESSERA_PROBE_BATCH: want a positive count, got '") + batch + "'");
  }
  auto dag = s.batch > 1 ? schedule::batch_matmul(s.batch, s.m, s.n, s.k) : schedule::matmul(s.m, s.n, s.k);
  if (!dag) return error_json(dag.error().message);
  for (const schedule::Sketch& sketch : schedule::generate_sketches(*dag)) {
    if (sketch.id != sketch_id) continue;
    auto knob_json = probe_knobs(*dag, sketch, knobs);
    if (!knob_json) return error_json("TESSERA_PROBE_KNOBS: " + knob_json.error().message);
    auto values = sketch.knobs.from_json(*knob_json);
    if (!values) return error_json(values.error().message);
    const char* object_path = std::getenv("TESSERA_PROBE_OBJECT");
    if (std::getenv("TESSERA_PROBE_IR") || object_path) {
      auto state = schedule::apply_candidate(*dag, sketch, *values);
      if (!state) return error_json(state.error().message);
      auto func = schedule::lower(*state);
      if (!func) return error_json(func.error().message);
      if (std::getenv("TESSERA_PROBE_IR")) std::fprintf(stderr, "%s\n", schedule::to_string(*func).c_str());
      if (object_path) {  // for objdump -d
        auto object = runtime::compile_object(*func);
        if (!object) return error_json(object.error().message);
        std::ofstream(object_path, std::ios::binary) << object->bytes;
      }
    }
    runtime::set_num_threads(1);
    openblas_set_num_threads(1);
    auto compiled = compile_and_check(*dag, sketch.steps(*values), 1);
    if (!compiled) return error_json(compiled.error().message);
    nlohmann::json line = compare(*dag, s, *compiled, false);
    line["sketch"] = sketch.id;
    line["knobs"] = *knob_json;
    return line;
  }
  return no_sketch_json(*dag, sketch_id, dag->summary());
}

nlohmann::json run_fused_epilogue(int trials) {
  const GemmShape s{128, 3072, 768};
  auto dag = schedule::dense_bias_gelu(s.m, s.n, s.k);
  if (!dag) return error_json(dag.error().message);
  return run_one(*dag, s, true, trials, "fused_epilogue_harl_" + shape_name(s));
}

}  // namespace tessera::bench

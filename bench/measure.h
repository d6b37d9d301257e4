// Shared benchmark machinery: compile a scheduled DAG (median JIT time over several compiles),
// check it against the reference, and time it alternately with a baseline in the same process.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/kernel.h"
#include "runtime/timing.h"
#include "schedule/compute_dag.h"
#include "schedule/sketch.h"
#include "schedule/steps.h"

namespace tessera::bench {

using runtime::median;
using runtime::seconds_since;
nlohmann::json error_json(const std::string& message);


struct CompiledSchedule {
  std::unique_ptr<runtime::Kernel> kernel;
  double compile_ms = 0;       // median over the compiles
  int64_t checked_points = 0;  // outputs compared with the reference
  double max_error = 0;
};

// Applies `steps`, lowers, compiles `compiles` times, then checks the kernel against the
// reference (sampled for large outputs). A wrong answer is an Error.
Result<CompiledSchedule> compile_and_check(const schedule::ComputeDAG& dag,
                                           const std::vector<schedule::Step>& steps,
                                           int compiles = 7);

struct Medians {
  double tessera_seconds;
  double baseline_seconds;
};

// Times the two alternately for `rounds` rounds (3 repeats of >= 100 ms each per round), so
// drifts in machine load hit both alike; returns the median seconds per call of each. With
// `before_tessera` / `before_baseline` (e.g. evicting each side's weights), that hook runs
// before every call of its side, outside the timed span (runtime::TimingOptions::before_each_call).
Medians time_alternately(const std::function<void()>& tessera, const std::function<void()>& baseline,
                         int rounds = 5, const std::function<void()>& before_tessera = {},
                         const std::function<void()>& before_baseline = {});

// SGEMM n x n x n by `compiled` (a matmul kernel) against OpenBLAS cblas_sgemm with the same
// inputs: checks that both agree, then the result line of time_alternately.
nlohmann::json compare_with_openblas(const schedule::ComputeDAG& dag, int64_t n,
                                     const CompiledSchedule& compiled);

// A probe's knobs for `sketch` of `dag`: `text` parsed as JSON, or, when it is "default", the
// default rule's values for that sketch (runtime/default_schedule.h; for weights from memory,
// as a network runs them, when TESSERA_PROBE_COLD is set); an error says which.
Result<nlohmann::json> probe_knobs(const schedule::ComputeDAG& dag, const schedule::Sketch& sketch,
                                   const std::string& text);

// "no sketch ID for WHAT (it has: ...)": the error of a probe whose named sketch `dag` lacks.
nlohmann::json no_sketch_json(const schedule::ComputeDAG& dag, const std::string& id, const std::string& what);

// The standard result line: tessera_gflops, baseline, baseline_gflops, ratio, compile_ms.
nlohmann::json result_json(double flops, const Medians& medians, const std::string& baseline,
                           const CompiledSchedule& compiled);

}  // namespace tessera::bench

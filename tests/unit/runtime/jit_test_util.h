// Shared helpers for JIT tests: apply steps, lower, compile and compare with the reference.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/check.h"
#include "runtime/kernel.h"
#include "schedule/lower.h"
#include "schedule/state.h"
#include "schedule/step_json.h"

namespace tessera::testing {

// The steps as JSON, for failure messages that reproduce the case.
inline std::string steps_text(const std::vector<schedule::Step>& steps) {
  return schedule::steps_to_json(steps).dump();
}

// Applies `steps`, lowers, compiles and checks every output element against the reference.
inline ::testing::AssertionResult MatchesReference(const schedule::ComputeDAG& dag,
                                                   const std::vector<schedule::Step>& steps) {
  schedule::State state(dag);
  std::string where = dag.summary() + " with steps " + steps_text(steps);
  if (auto r = state.apply_all(steps); !r) {
    return ::testing::AssertionFailure() << where << ": schedule refused: " << r.error().message;
  }
  auto func = schedule::lower(state, "kernel");
  if (!func) return ::testing::AssertionFailure() << where << ": lowering: " << func.error().message;
  auto kernel = runtime::compile_cpu(*func);
  if (!kernel) {
    return ::testing::AssertionFailure() << where << ": compile: " << kernel.error().message
                                         << "\n" << schedule::to_string(*func);
  }
  auto check = runtime::check_kernel(dag, *kernel);
  if (!check) return ::testing::AssertionFailure() << where << ": check: " << check.error().message;
  if (!check->ok()) {
    return ::testing::AssertionFailure()
           << where << ": wrong answer in " << check->worst_output << ", max error "
           << check->comparison.max_error << " at " << check->comparison.worst_index << " ("
           << check->comparison.mismatches << " mismatches, tolerance "
           << schedule::tolerance_for(dag) << ")\n"
           << schedule::to_string(*func);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tessera::testing

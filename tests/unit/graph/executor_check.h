// The graph tests' end-to-end check: a prepared network compiled by runtime::NetworkExecutor
// (default schedules) against the double-precision interpreter on the original model.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "graph/interpret.h"
#include "graph/prepare.h"
#include "runtime/network_executor.h"

namespace tessera::graph::testing {

struct OutputError {
  std::string name;
  double max_error = 0;  // the largest |executor - interpreter| over the output
  double scale = 0;      // the largest |interpreter|: what float rounding grows with
};

// Uniform [-1, 1) values from `seed` for every input of `g`.
inline std::map<std::string, std::vector<float>> uniform_inputs(const Graph& g, unsigned seed) {
  std::map<std::string, std::vector<float>> inputs;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const std::string& name : g.inputs)
    for (int64_t i = 0; i < g.info(name)->num_elements(); ++i) inputs[name].push_back(dist(rng));
  return inputs;
}

// Runs `prepared` with uniform [-1, 1) inputs from `seed` and compares each of `raw`'s outputs
// with the interpreter's values on `raw`; empty (with a test failure) when something fails.
inline std::vector<OutputError> executor_errors(const Graph& raw, const PreparedNetwork& prepared, unsigned seed) {
  auto executor = runtime::NetworkExecutor::build(prepared.graph, prepared.tasks, {});
  EXPECT_TRUE(executor.ok()) << (executor ? "" : executor.error().message);
  if (!executor) return {};
  const auto inputs = uniform_inputs(raw, seed);
  auto want = interpret(raw, inputs);
  EXPECT_TRUE(want.ok()) << (want ? "" : want.error().message);
  auto got = executor->run(inputs, 1);
  EXPECT_TRUE(got.ok()) << (got ? "" : got.error().message);
  if (!want || !got) return {};
  std::vector<OutputError> errors;
  for (const std::string& out : raw.outputs) {
    const auto& w = want->at(out).data;
    const auto& g = got->at(out);
    EXPECT_EQ(g.size(), w.size()) << out;
    OutputError e{out};
    for (size_t i = 0; i < std::min(g.size(), w.size()); ++i) {
      e.max_error = std::max(e.max_error, std::abs(g[i] - w[i]));
      e.scale = std::max(e.scale, std::abs(w[i]));
    }
    errors.push_back(e);
  }
  return errors;
}

}  // namespace tessera::graph::testing

// The graph tests' oracle: import a model, interpret it node by node in double precision,
// fold and fuse it, evaluate every task occurrence with the reference evaluator in data-flow
// order (task outputs feed later tasks, as an executor would), and compare every task output
// with the interpreter's value of the same graph tensor.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "graph/fold.h"
#include "graph/fuse.h"
#include "graph/interpret.h"
#include "graph/onnx/import.h"
#include "schedule/lower.h"
#include "schedule/reference.h"
#include "schedule/sketch.h"

namespace tessera::graph::testing {

struct Checked {
  Graph raw, folded;
  NetworkTasks tasks;
  int compared = 0;  // task outputs compared with the interpreter
};

inline Checked check_network(const std::string& bytes, double tolerance = 1e-4) {
  Checked c;
  auto raw = import_onnx_bytes(bytes, "model.onnx");
  EXPECT_TRUE(raw.ok()) << (raw ? "" : raw.error().message);
  if (!raw) return c;
  c.raw = *raw;
  std::map<std::string, std::vector<float>> inputs;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const std::string& name : c.raw.inputs) {
    auto& v = inputs[name];
    for (int64_t i = 0; i < c.raw.info(name)->num_elements(); ++i) v.push_back(dist(rng));
  }
  auto expected = interpret(c.raw, inputs);
  EXPECT_TRUE(expected.ok()) << (expected ? "" : expected.error().message);
  auto folded = fold_constants(c.raw);
  EXPECT_TRUE(folded.ok()) << (folded ? "" : folded.error().message);
  if (!expected || !folded) return c;
  c.folded = *folded;
  auto tasks = fuse(c.folded);
  EXPECT_TRUE(tasks.ok()) << (tasks ? "" : tasks.error().message);
  if (!tasks) return c;
  c.tasks = *tasks;
  // Every task fits the search space: it lowers as it is, it has sketches, and a sampled
  // candidate of each sketch applies and lowers.
  std::mt19937_64 knob_rng(11);
  for (const FusedTask& task : c.tasks.tasks) {
    auto plain = schedule::lower(schedule::State(task.dag), task.name);
    EXPECT_TRUE(plain.ok()) << task.name << ": " << (plain ? "" : plain.error().message);
    const auto sketches = schedule::generate_sketches(task.dag);
    EXPECT_FALSE(sketches.empty()) << task.name;
    for (const schedule::Sketch& sketch : sketches) {
      auto state = schedule::apply_candidate(task.dag, sketch, sketch.knobs.sample(knob_rng));
      EXPECT_TRUE(state.ok()) << task.name << " " << sketch.id << ": "
                              << (state ? "" : state.error().message);
      if (!state) continue;
      auto func = schedule::lower(*state, task.name);
      EXPECT_TRUE(func.ok()) << task.name << " " << sketch.id << ": "
                             << (func ? "" : func.error().message);
    }
  }

  std::map<std::string, std::vector<float>> values = inputs;
  for (const auto& [name, k] : c.folded.constants) {
    std::vector<float>& v = values[name];
    for (int64_t i = 0; i < k.info.num_elements(); ++i) v.push_back(static_cast<float>(k.at(i)));
  }
  for (auto [t, o] : c.tasks.order) {
    const FusedTask& task = c.tasks.tasks[t];
    const TaskOccurrence& occ = task.occurrences[o];
    schedule::TensorValues in;
    for (size_t i = 0; i < occ.inputs.size(); ++i) {
      EXPECT_EQ(task.input_is_constant[i], c.folded.is_constant(occ.inputs[i])) << task.name;
      in[task.dag.inputs()[i]->name] = values.at(occ.inputs[i]);
    }
    auto out = schedule::evaluate_reference(task.dag, in);
    EXPECT_TRUE(out.ok()) << task.name << ": " << (out ? "" : out.error().message);
    if (!out) return c;
    for (size_t i = 0; i < occ.outputs.size(); ++i) {
      const std::vector<float>& got = out->at(task.dag.outputs()[i]->name);
      values[occ.outputs[i]] = got;
      const Value& want = expected->at(occ.outputs[i]);
      if (got.size() != want.data.size()) {
        ADD_FAILURE() << task.name << " " << occ.outputs[i] << ": size " << got.size() << " vs "
                      << want.data.size();
        continue;
      }
      std::vector<float> want_f(want.data.begin(), want.data.end());
      auto cmp = schedule::compare(got, want_f, tolerance);
      EXPECT_TRUE(cmp.ok) << task.name << " output " << occ.outputs[i] << ": max error "
                          << cmp.max_error << " at " << cmp.worst_index;
      ++c.compared;
    }
  }
  for (const std::string& out : c.folded.outputs)
    EXPECT_TRUE(values.count(out)) << "graph output " << out << " never computed";
  return c;
}

// The op types of every task, e.g. {"Conv,Relu", "MaxPool"} (tasks in order).
inline std::vector<std::string> task_ops(const NetworkTasks& n) {
  std::vector<std::string> result;
  for (const FusedTask& t : n.tasks) {
    std::string ops;
    for (const std::string& op : t.ops) ops += (ops.empty() ? "" : ",") + op;
    result.push_back(ops);
  }
  return result;
}

}  // namespace tessera::graph::testing

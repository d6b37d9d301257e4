// The graph tests' oracle: import a model, interpret it node by node in double precision,
// fold and fuse it, evaluate every task occurrence with the reference evaluator in data-flow
// order (task outputs feed later tasks, as an executor would), and compare every task output
// with the interpreter's value of the same graph tensor. In NHWC (graph/channels_last.h) a
// tensor `x__nhwc` is compared with the interpreter's `x` transposed to NHWC, so the NHWC
// lowering is checked against the plain NCHW operators of the unrewritten graph.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "graph/channels_last.h"
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

// The interpreter's value of graph tensor `name`: an NHWC tensor `x__nhwc` from `x`'s.
inline const Value* expected_value(const std::map<std::string, Value>& expected, const std::string& name,
                                   Value* scratch) {
  auto it = expected.find(name);
  if (it != expected.end()) return &it->second;
  const std::string suffix = "__nhwc";
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return nullptr;
  it = expected.find(name.substr(0, name.size() - suffix.size()));
  if (it == expected.end() || it->second.shape.size() != 4) return nullptr;
  Node transpose;
  transpose.op_type = "Transpose";
  transpose.attrs["perm"] = std::vector<int64_t>{0, 2, 3, 1};
  auto nhwc = evaluate_node(transpose, {&it->second}, /*opset=*/17);
  if (!nhwc) return nullptr;
  *scratch = nhwc->front();
  return scratch;
}

inline Checked check_network(const std::string& bytes, double tolerance = 1e-4, bool channels_last = false) {
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
  if (channels_last) {
    auto rewritten = to_channels_last(c.folded);
    EXPECT_TRUE(rewritten.ok()) << (rewritten ? "" : rewritten.error().message);
    if (!rewritten) return c;
    c.folded = *rewritten;
  }
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
      Value scratch;
      const Value* found = expected_value(*expected, occ.outputs[i], &scratch);
      if (!found) {
        ADD_FAILURE() << task.name << " " << occ.outputs[i] << ": no interpreter value";
        continue;
      }
      const Value& want = *found;
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

// A real network (TESSERA_ONNX_MODEL=path.onnx, e.g. from scripts/export_models.py; skipped
// when unset, as in CI): every task occurrence is evaluated by the reference evaluator at a
// sample of output points, its inputs taken from the graph interpreter, and compared with the
// interpreter's values there, so each task is checked at the network's real shapes, in both
// activation layouts (graph/prepare.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "graph/interpret.h"
#include "graph/onnx/import.h"
#include "graph/prepare.h"
#include "schedule/reference.h"

namespace tessera::graph {
namespace {

TEST(RealModel, EveryTaskMatchesTheInterpreterOnSamples) {
  const char* path = std::getenv("TESSERA_ONNX_MODEL");
  if (!path) GTEST_SKIP() << "set TESSERA_ONNX_MODEL=model.onnx to check a real network";
  auto raw = import_onnx(path);
  ASSERT_TRUE(raw.ok()) << raw.error().message;
  std::map<std::string, std::vector<float>> inputs;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const std::string& name : raw->inputs) {
    for (int64_t i = 0; i < raw->info(name)->num_elements(); ++i) inputs[name].push_back(dist(rng));
  }
  for (ActivationLayout layout : {ActivationLayout::kNCHW, ActivationLayout::kNHWC}) {
    SCOPED_TRACE(layout_name(layout));
    auto prepared = prepare_network(*raw, layout);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    const Graph* folded = &prepared->graph;
    const NetworkTasks* network = &prepared->tasks;
    // The rewritten graph interpreted (an NHWC node is the NCHW operator between transposes).
    auto values = interpret(*folded, inputs);
    ASSERT_TRUE(values.ok()) << values.error().message;
    auto as_float = [&](const std::string& name) {
      if (folded->is_constant(name)) {
        const Constant& c = folded->constants.at(name);
        std::vector<float> v;
        for (int64_t i = 0; i < c.info.num_elements(); ++i) v.push_back(static_cast<float>(c.at(i)));
        return v;
      }
      const Value& v = values->at(name);
      return std::vector<float>(v.data.begin(), v.data.end());
    };
    for (auto [t, o] : network->order) {
      const FusedTask& task = network->tasks[t];
      const TaskOccurrence& occ = task.occurrences[o];
      schedule::TensorValues in;
      for (size_t i = 0; i < occ.inputs.size(); ++i) in[task.dag.inputs()[i]->name] = as_float(occ.inputs[i]);
      for (size_t i = 0; i < occ.outputs.size(); ++i) {
        const Value& want = values->at(occ.outputs[i]);
        std::vector<int64_t> points{0, static_cast<int64_t>(want.data.size()) - 1};
        std::uniform_int_distribution<int64_t> pick(0, static_cast<int64_t>(want.data.size()) - 1);
        for (int k = 0; k < 24; ++k) points.push_back(pick(rng));
        auto got = schedule::evaluate_reference_at(task.dag, in, task.dag.outputs()[i]->name, points);
        ASSERT_TRUE(got.ok()) << task.name << ": " << got.error().message;
        std::vector<float> expected;
        for (int64_t p : points) expected.push_back(static_cast<float>(want.data[p]));
        auto cmp = schedule::compare(*got, expected, 1e-4);
        EXPECT_TRUE(cmp.ok) << task.name << " occurrence " << o << " output " << occ.outputs[i]
                            << ": max error " << cmp.max_error;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::graph

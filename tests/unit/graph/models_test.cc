// Every supported operator in a small model built in code: imported, folded, fused, each task
// evaluated by the reference evaluator and compared with the node-by-node interpreter
// (network_check.h), plus the fusion structure each model should get.
#include <gtest/gtest.h>

#include "network_check.h"
#include "onnx_model_builder.h"
#include "test_models.h"

namespace tessera::graph::testing {
namespace {

using B = ModelBuilder;

// conv (bias) -> BN -> relu: BN folds into the conv (a wrong fold changes the values; a
// missing one leaves a BatchNormalization the fusion refuses), relu fuses into the conv.
TEST(GraphModels, ConvBatchNormReluIsOneTask) {
  for (int variant = 0; variant < 4; ++variant) {
    B m;
    m.input("x", {1, 4, 9, 8});
    m.weight("w", {6, variant == 1 ? 2 : 4, 3, 3});
    m.weight("b", {6});
    m.weight("scale", {6}), m.weight("shift", {6}), m.weight("mean", {6}),
        m.weight("var", {6}, 0.5, 2);
    auto* conv = m.node("Conv", {"x", "w", "b"}, {"c"});
    if (variant == 0) B::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
    if (variant == 1)
      B::attr(conv, "group", int64_t{2}), B::attr(conv, "strides", std::vector<int64_t>{2, 1});
    if (variant == 2) B::attr(conv, "pads", std::vector<int64_t>{0, 1, 2, 0});  // asymmetric
    if (variant == 3)
      B::attr(conv, "dilations", std::vector<int64_t>{2, 2}),
          B::attr(conv, "pads", std::vector<int64_t>{2, 0, 1, 3});
    auto* bn = m.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"bn"});
    B::attr(bn, "epsilon", 1e-3f);
    m.node("Relu", {"bn"}, {"y"});
    m.output("y");
    Checked c = check_network(m.bytes());
    EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"Conv,Relu"})) << variant;
    EXPECT_EQ(c.compared, 1);
    ASSERT_EQ(c.tasks.tasks.size(), 1u);
    EXPECT_EQ(c.tasks.tasks[0].input_is_constant, (std::vector<bool>{false, true, true}));
  }
}

// A BatchNormalization with no conv before it becomes Mul + Add by constants.
TEST(GraphModels, StandaloneBatchNorm) {
  B m;
  m.input("x", {2, 3, 4, 5});
  m.weight("scale", {3}), m.weight("shift", {3}), m.weight("mean", {3}),
      m.weight("var", {3}, 0.5, 2);
  m.node("BatchNormalization", {"x", "scale", "shift", "mean", "var"}, {"y"});
  m.output("y");
  Checked c = check_network(m.bytes());
  EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"Mul,Add"}));
}

// A ResNet-style network: stem conv, max pool, two identical residual blocks (one task of
// weight 2 each), global pool, flatten, gemm.
TEST(GraphModels, ResidualBlocksShareTasks) {
  Checked c = check_network(residual_blocks_model());
  // Flatten joins the pool's group (injective after a reduction), so the gemm stands alone.
  EXPECT_EQ(task_ops(c.tasks),
            (std::vector<std::string>{"Conv,Relu", "MaxPool", "Conv,Relu", "Conv,Add,Relu",
                                      "GlobalAveragePool,Flatten", "Gemm"}));
  ASSERT_EQ(c.tasks.tasks.size(), 6u);
  EXPECT_EQ(c.tasks.tasks[2].weight, 2);  // the blocks' 3x3 conv+relu
  EXPECT_EQ(c.tasks.tasks[3].weight, 2);  // the blocks' 1x1 conv+bias+add+relu
  EXPECT_EQ(c.tasks.order.size(), 8u);
  for (const FusedTask& t : c.tasks.tasks) {
    int anchors = 0;
    for (const std::string& op : t.ops) anchors += op == "Conv" || op == "Gemm" || op == "MatMul";
    EXPECT_LE(anchors, 1) << t.name;
  }
}

// MobileNet-style: depthwise conv + Clip(0, 6) by inputs, 1x1 conv, average pool without
// counting padding, concat.
TEST(GraphModels, DepthwiseClipAveragePoolConcat) {
  B m;
  m.input("x", {1, 4, 7, 7});
  m.weight("dw", {4, 1, 3, 3}), m.weight("pw", {6, 4, 1, 1});
  auto* dw = m.node("Conv", {"x", "dw"}, {"d"});
  B::attr(dw, "group", int64_t{4}), B::attr(dw, "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.floats("lo", {}, {0.0f}), m.floats("hi", {}, {0.25f});
  m.node("Clip", {"d", "lo", "hi"}, {"dc"});
  m.node("Conv", {"dc", "pw"}, {"p"});
  auto* ap = m.node("AveragePool", {"p"}, {"a"});
  B::attr(ap, "kernel_shape", std::vector<int64_t>{3, 3}),
      B::attr(ap, "strides", std::vector<int64_t>{2, 2});
  B::attr(ap, "pads", std::vector<int64_t>{1, 1, 1, 1});
  auto* ap2 = m.node("AveragePool", {"p"}, {"a2"});
  B::attr(ap2, "kernel_shape", std::vector<int64_t>{3, 3}),
      B::attr(ap2, "strides", std::vector<int64_t>{2, 2});
  B::attr(ap2, "pads", std::vector<int64_t>{1, 1, 1, 1}),
      B::attr(ap2, "count_include_pad", int64_t{1});
  B::attr(m.node("Concat", {"a", "a2"}, {"y"}), "axis", int64_t{1});
  m.output("y");
  Checked c = check_network(m.bytes());
  // The 1x1 conv has two readers, so each pool starts a group; concat joins the first.
  EXPECT_EQ(task_ops(c.tasks),
            (std::vector<std::string>{"Conv,Clip", "Conv", "AveragePool", "AveragePool,Concat"}));
}

// Clip with min/max attributes (opset 10) and Sigmoid, Tanh.
TEST(GraphModels, ClipAttributesSigmoidTanh) {
  B m(10);
  m.input("x", {2, 6});
  auto* clip = m.node("Clip", {"x"}, {"c"});
  B::attr(clip, "min", -0.5f), B::attr(clip, "max", 0.3f);
  m.node("Sigmoid", {"c"}, {"s"});
  m.node("Tanh", {"x"}, {"t"});
  m.node("Mul", {"s", "t"}, {"y"});
  m.output("y");
  Checked c = check_network(m.bytes());
  // tanh reads the graph input beside clip: its own group, which the mul does not merge.
  EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"Tanh", "Clip,Sigmoid,Mul"}));
}

// A BERT-style encoder layer in plain ops: projections (MatMul with a 2-D weight + bias),
// heads split with the Shape/Gather/Unsqueeze/Concat chain torch.onnx.export emits, batched
// attention matmuls, scaled softmax, residual, layer-norm decomposition, erf-GELU.
TEST(GraphModels, EncoderLayer) {
  const int64_t s = 4, h = 8, heads = 2, d = 4;
  B m;
  m.input("x", {1, s, h});
  auto proj = [&](const std::string& in, const std::string& name, int64_t out) {
    m.weight(name + "_w", {h, out}), m.weight(name + "_b", {out});
    m.node("MatMul", {in, name + "_w"}, {name + "_m"});
    m.node("Add", {name + "_m", name + "_b"}, {name});
  };
  // [1,s,h] -> [1,heads,s,d] via a computed shape.
  auto split = [&](const std::string& in, const std::string& name, std::vector<int64_t> perm) {
    m.node("Shape", {in}, {name + "_shape"});
    m.ints(name + "_i0", {}, {0}), m.ints(name + "_i1", {}, {1});
    m.node("Gather", {name + "_shape", name + "_i0"}, {name + "_b"});
    m.node("Gather", {name + "_shape", name + "_i1"}, {name + "_s"});
    m.ints(name + "_ax", {1}, {0});
    m.node("Unsqueeze", {name + "_b", name + "_ax"}, {name + "_bu"});
    m.node("Unsqueeze", {name + "_s", name + "_ax"}, {name + "_su"});
    m.ints(name + "_hd", {2}, {heads, d});
    B::attr(m.node("Concat", {name + "_bu", name + "_su", name + "_hd"}, {name + "_dims"}), "axis",
            int64_t{0});
    m.node("Reshape", {in, name + "_dims"}, {name + "_r"});
    B::attr(m.node("Transpose", {name + "_r"}, {name}), "perm", perm);
  };
  proj("x", "q", h), proj("x", "k", h), proj("x", "v", h);
  split("q", "qh", {0, 2, 1, 3}), split("k", "kh", {0, 2, 3, 1}), split("v", "vh", {0, 2, 1, 3});
  m.node("MatMul", {"qh", "kh"}, {"scores"});
  m.constant("scale", {}, {2.0f});
  m.node("Div", {"scores", "scale"}, {"scaled"});
  B::attr(m.node("Softmax", {"scaled"}, {"probs"}), "axis", int64_t{-1});
  m.node("MatMul", {"probs", "vh"}, {"ctx"});
  B::attr(m.node("Transpose", {"ctx"}, {"ctx_t"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  m.ints("merged", {3}, {1, s, -1});
  m.node("Reshape", {"ctx_t", "merged"}, {"ctx_m"});
  proj("ctx_m", "o", h);
  m.node("Add", {"o", "x"}, {"res"});
  // Layer norm, decomposed.
  B::attr(m.node("ReduceMean", {"res"}, {"mu"}), "axes", std::vector<int64_t>{-1});
  m.node("Sub", {"res", "mu"}, {"dev"});
  m.floats("two", {}, {2.0f});
  m.node("Pow", {"dev", "two"}, {"sq"});
  B::attr(m.node("ReduceMean", {"sq"}, {"var"}), "axes", std::vector<int64_t>{-1});
  m.floats("eps", {}, {1e-5f});
  m.node("Add", {"var", "eps"}, {"vare"});
  m.node("Sqrt", {"vare"}, {"std"});
  m.node("Div", {"dev", "std"}, {"norm"});
  m.weight("gamma", {h}), m.weight("beta", {h});
  m.node("Mul", {"norm", "gamma"}, {"ng"});
  m.node("Add", {"ng", "beta"}, {"ln"});
  // GELU (erf form) on a projection.
  proj("ln", "f", 2 * h);
  m.floats("sqrt2", {}, {1.41421356f}), m.floats("one", {}, {1.0f}), m.floats("half", {}, {0.5f});
  m.node("Div", {"f", "sqrt2"}, {"fd"});
  m.node("Erf", {"fd"}, {"fe"});
  m.node("Add", {"fe", "one"}, {"fe1"});
  m.node("Mul", {"f", "fe1"}, {"fm"});
  m.node("Mul", {"fm", "half"}, {"y"});
  m.output("y");
  Checked c = check_network(m.bytes());
  const auto ops = task_ops(c.tasks);
  EXPECT_NE(std::find(ops.begin(), ops.end(), "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add"),
            ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "MatMul,Add,Div,Erf,Add,Mul,Mul"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "Softmax"), ops.end());
  // q, k, v and o projections: q, v and o are identical tasks ([1,4,8] x [8,8] + bias).
  for (const Node& n : c.folded.nodes) {
    EXPECT_NE(n.op_type, "Shape");
    EXPECT_NE(n.op_type, "Constant");
  }
  EXPECT_GE(c.compared, 8);
}

// Gemm without transB, with a broadcast [1, N] bias and MatMul broadcasting a batched lhs.
TEST(GraphModels, GemmAndBroadcastMatMul) {
  B m;
  m.input("x", {3, 5});
  m.input("z", {2, 3, 5});
  m.weight("w", {5, 4}), m.weight("c", {1, 4}), m.weight("w2", {5, 2});
  m.node("Gemm", {"x", "w", "c"}, {"g"});
  m.node("MatMul", {"z", "w2"}, {"mm"});
  m.node("Sub", {"mm", "z"}, {"bad"});  // shapes [2,3,2] - [2,3,5] do not broadcast: removed below
  m.graph().mutable_node()->RemoveLast();
  // transA and transB with a scalar C (an immediate, not an input).
  m.input("at", {5, 3});
  m.weight("bt", {4, 5}), m.floats("c0", {}, {0.25f});
  auto* gt = m.node("Gemm", {"at", "bt", "c0"}, {"gt"});
  B::attr(gt, "transA", int64_t{1}), B::attr(gt, "transB", int64_t{1}), B::attr(gt, "beta", 3.0f);
  m.node("Add", {"g", "gt"}, {"sum"});
  m.output("sum"), m.output("mm");
  Checked c = check_network(m.bytes());
  // Tasks come in data-flow order: the Add's group waits for the transposed Gemm.
  EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"MatMul", "Gemm", "Gemm,Add"}));
  ASSERT_EQ(c.tasks.tasks.size(), 3u);
  EXPECT_EQ(c.tasks.tasks[1].input_is_constant, (std::vector<bool>{false, true}));  // c0: immediate
  EXPECT_EQ(c.tasks.tasks[2].input_is_constant, (std::vector<bool>{false, true, true, false}));
}

// Opset 17's LayerNormalization (how torch exports nn.LayerNorm there) after a residual add:
// a reduction task that takes in the add, as the decomposition's task does.
TEST(GraphModels, LayerNormalizationOp) {
  B m(17, 8);
  m.input("x", {2, 3, 8});
  m.input("r", {2, 3, 8});
  m.node("Add", {"x", "r"}, {"s"});
  m.weight("gamma", {8}), m.weight("beta", {8});
  auto* ln = m.node("LayerNormalization", {"s", "gamma", "beta"}, {"y"});
  B::attr(ln, "epsilon", 1e-3f);
  m.output("y");
  Checked c = check_network(m.bytes());
  EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"Add,LayerNormalization"}));
  EXPECT_EQ(c.compared, 1);
}

// A group must stay convex: sub reads relu's output and, through the matmul, relu again, so
// joining relu's group would make that group and the matmul's read each other.
TEST(GraphModels, FusionKeepsGroupsConvex) {
  B m;
  m.input("x", {4, 6});
  m.weight("w", {6, 6});
  m.node("Relu", {"x"}, {"a"});
  m.node("MatMul", {"a", "w"}, {"mm"});
  m.node("Sub", {"a", "mm"}, {"d"});
  m.node("Sigmoid", {"mm"}, {"e"});
  m.output("d"), m.output("e");
  Checked c = check_network(m.bytes());
  EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"Relu", "MatMul", "Sub", "Sigmoid"}));
  EXPECT_EQ(c.compared, 4);
}

// Identity is bypassed inside the graph and kept where it names a graph output; a Constant
// node feeds a broadcast Mul as a tensor (not a scalar) placeholder marked constant.
TEST(GraphModels, IdentityAndConstantNodes) {
  B m;
  m.input("x", {2, 3});
  m.node("Identity", {"x"}, {"i"});
  m.constant("k", {3}, {1.0f, -2.0f, 0.5f});
  m.node("Mul", {"i", "k"}, {"y"});
  m.node("Identity", {"y"}, {"out"});
  m.output("out");
  Checked c = check_network(m.bytes());
  EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"Mul,Identity"}));
  ASSERT_EQ(c.tasks.tasks.size(), 1u);
  EXPECT_EQ(c.tasks.tasks[0].input_is_constant, (std::vector<bool>{false, true}));
  EXPECT_EQ(c.tasks.tasks[0].occurrences[0].inputs, (std::vector<std::string>{"x", "k"}));
  EXPECT_EQ(c.tasks.tasks[0].occurrences[0].outputs, (std::vector<std::string>{"out"}));
}

}  // namespace
}  // namespace tessera::graph::testing

// The graph interpreter (the oracle of the model tests) against values worked out by hand, so
// that a mistake it shares with the tensor-expression lowering cannot hide.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/interpret.h"

namespace tessera::graph {
namespace {

Value run(const Node& node, std::vector<Value> in, int opset = 13) {
  std::vector<const Value*> ptrs;
  for (const Value& v : in) ptrs.push_back(&v);
  auto out = evaluate_node(node, ptrs, opset);
  EXPECT_TRUE(out.ok()) << (out ? "" : out.error().message);
  return out ? (*out)[0] : Value{};
}

Node node(std::string op, std::map<std::string, AttrValue> attrs = {}) {
  Node n;
  n.op_type = std::move(op);
  n.attrs = std::move(attrs);
  n.outputs = {"y"};
  return n;
}

TEST(Interpret, AveragePoolCountsPaddingOnlyWhenAsked) {
  Value ones{{1, 1, 3, 3}, std::vector<double>(9, 1.0)};
  std::map<std::string, AttrValue> attrs{{"kernel_shape", std::vector<int64_t>{3, 3}},
                                         {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
  Value exclude = run(node("AveragePool", attrs), {ones});
  EXPECT_EQ(exclude.shape, (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_DOUBLE_EQ(exclude.data[0], 1.0);  // corner: 4 real inputs, divided by 4
  attrs["count_include_pad"] = int64_t{1};
  Value include = run(node("AveragePool", attrs), {ones});
  EXPECT_DOUBLE_EQ(include.data[0], 4.0 / 9.0);
  EXPECT_DOUBLE_EQ(include.data[4], 1.0);
}

TEST(Interpret, ConvAsymmetricPadsAndGroups) {
  // x = 1..4 on a 1x2x1x2 input; group 2, 1x2 kernels of ones; pads left 1 only.
  Value x{{1, 2, 1, 2}, {1, 2, 3, 4}};
  Value w{{2, 1, 1, 2}, {1, 1, 1, 1}};
  Value y = run(node("Conv", {{"group", int64_t{2}}, {"pads", std::vector<int64_t>{0, 1, 0, 0}}}),
                {x, w});
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(y.data, (std::vector<double>{1, 3, 3, 7}));
}

TEST(Interpret, SoftmaxAndReduceMean) {
  Value x{{2, 2}, {0, std::log(3.0), 1, 1}};
  Value s = run(node("Softmax", {{"axis", int64_t{-1}}}), {x});
  EXPECT_NEAR(s.data[0], 0.25, 1e-12);
  EXPECT_NEAR(s.data[1], 0.75, 1e-12);
  EXPECT_NEAR(s.data[2], 0.5, 1e-12);
  Value m = run(node("ReduceMean", {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t{0}}}),
                {Value{{2, 2}, {1, 2, 3, 6}}});
  EXPECT_EQ(m.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(m.data, (std::vector<double>{2, 4}));
}

TEST(Interpret, ShapeArithmetic) {
  Value x{{2, 3, 4}, std::vector<double>(24, 0.0)};
  Value shape = run(node("Shape"), {x});
  EXPECT_EQ(shape.dtype, DType::kInt64);
  EXPECT_EQ(shape.data, (std::vector<double>{2, 3, 4}));
  Value last = run(node("Gather"), {shape, Value{{}, {-1}, DType::kInt64}});
  EXPECT_TRUE(last.shape.empty());
  EXPECT_EQ(last.data, (std::vector<double>{4}));
  Value r = run(node("Reshape"), {x, Value{{2}, {0, -1}, DType::kInt64}});
  EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 12}));
  Value t = run(node("Transpose", {{"perm", std::vector<int64_t>{1, 0}}}),
                {Value{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  EXPECT_EQ(t.data, (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(Interpret, GemmAlphaBetaAndBroadcastMatMul) {
  Value a{{1, 2}, {1, 2}}, b{{2, 2}, {1, 0, 0, 1}}, c{{2}, {10, 20}};
  Value g = run(node("Gemm", {{"alpha", 2.0}, {"beta", 0.5}, {"transB", int64_t{1}}}), {a, b, c});
  EXPECT_EQ(g.data, (std::vector<double>{7, 14}));
  Value batched{{2, 1, 2}, {1, 2, 3, 4}};
  Value m = run(node("MatMul"), {batched, Value{{2, 1}, {1, 1}}});
  EXPECT_EQ(m.shape, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(m.data, (std::vector<double>{3, 7}));
}

}  // namespace
}  // namespace tessera::graph

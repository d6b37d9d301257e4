// The op library (schedule/ops.h) and ComputeDAG (compute_dag.h): every registered op builds,
// lowers and evaluates; workload keys are stable and shape-sensitive; flop counts; and invalid
// parameters are refused with the documented messages. Reference values are in reference_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <string>

#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/reference.h"
#include "schedule/state.h"

namespace {

using namespace tessera::schedule;
using Params = std::map<std::string, int64_t>;

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Small parameters for every op the registry knows; a new op must be added here.
const std::map<std::string, Params>& small_params() {
  static const std::map<std::string, Params> params = {
      {"matmul", {{"m", 4}, {"n", 5}, {"k", 6}}},
      {"batch_matmul", {{"batch", 2}, {"m", 3}, {"n", 4}, {"k", 5}}},
      {"dense_bias", {{"m", 3}, {"n", 4}, {"k", 5}}},
      {"dense_bias_gelu", {{"m", 3}, {"n", 4}, {"k", 5}}},
      {"conv2d_bias_relu", {{"n", 1}, {"c", 3}, {"h", 6}, {"w", 5}, {"k", 2}, {"r", 3}, {"s", 3},
                            {"pad", 1}}},
      {"conv2d", {{"n", 1}, {"c", 4}, {"h", 6}, {"w", 5}, {"k", 4}, {"r", 3}, {"s", 3},
                  {"pad", 1}, {"groups", 2}}},
      {"conv2d_nhwc", {{"n", 1}, {"c", 4}, {"h", 6}, {"w", 5}, {"k", 4}, {"r", 3}, {"s", 3},
                       {"stride", 2}}},
      {"conv2d_bias_relu_nhwc", {{"n", 1}, {"c", 3}, {"h", 6}, {"w", 5}, {"k", 2}, {"r", 3}, {"s", 3},
                                 {"pad", 1}}},
      {"conv2d_winograd_nhwc", {{"n", 1}, {"c", 3}, {"h", 6}, {"w", 5}, {"k", 2}}},
      {"depthwise_conv2d", {{"n", 1}, {"c", 3}, {"h", 5}, {"w", 5}, {"r", 3}, {"s", 3},
                            {"pad", 1}}},
      {"max_pool2d", {{"n", 1}, {"c", 2}, {"h", 4}, {"w", 4}, {"r", 2}, {"s", 2}}},
      {"avg_pool2d", {{"n", 1}, {"c", 2}, {"h", 5}, {"w", 5}, {"r", 3}, {"s", 3},
                      {"stride", 2}, {"pad", 1}}},
      {"global_avg_pool2d", {{"n", 1}, {"c", 2}, {"h", 3}, {"w", 3}}},
      {"relu", {{"m", 3}, {"n", 5}}},
      {"sigmoid", {{"m", 3}, {"n", 5}}},
      {"gelu", {{"m", 3}, {"n", 5}}},
      {"add", {{"m", 3}, {"n", 5}}},
      {"mul", {{"m", 3}, {"n", 5}}},
      {"softmax", {{"m", 3}, {"n", 5}}},
      {"layer_norm", {{"m", 3}, {"n", 5}}},
  };
  return params;
}

std::string error_of(const tessera::Result<ComputeDAG>& r) {
  EXPECT_FALSE(r.ok()) << "built: " << (r.ok() ? r->summary() : "");
  return r.ok() ? std::string() : r.error().message;
}

TEST(OpsTest, EveryRegisteredOpBuildsLowersAndEvaluates) {
  const std::vector<std::string> names = op_names();
  ASSERT_EQ(names.size(), small_params().size());
  const std::regex key_format("^[a-z0-9_]+-[0-9a-f]{16}$");
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    auto it = small_params().find(name);
    ASSERT_NE(it, small_params().end()) << "no test parameters for op " << name;
    auto dag = make_op(name, it->second);
    ASSERT_TRUE(dag.ok()) << dag.error().message;
    const std::string op_word = dag->summary().substr(0, dag->summary().find(' '));
    // The key's prefix is the summary's first word: the op name, or "conv2d" for its variants.
    EXPECT_NE(name.find(op_word), std::string::npos) << dag->summary();
    EXPECT_TRUE(std::regex_match(dag->workload_key(), key_format)) << dag->workload_key();
    EXPECT_EQ(dag->workload_key(), op_word + "-" + hex16(fnv1a64(dag->canonical_text())));
    EXPECT_FALSE(dag->outputs().empty());
    EXPECT_GT(dag->flop_count(), 0);
    EXPECT_EQ(dag->arguments().size(), dag->inputs().size() + dag->outputs().size());

    auto again = make_op(name, it->second);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->workload_key(), dag->workload_key());
    EXPECT_EQ(again->canonical_text(), dag->canonical_text());

    auto func = lower(State(*dag));
    EXPECT_TRUE(func.ok()) << (func.ok() ? "" : func.error().message);

    auto values = evaluate_reference(*dag, random_inputs(*dag, 1));
    ASSERT_TRUE(values.ok()) << values.error().message;
    for (const Tensor& out : dag->outputs()) {
      const std::vector<float>& v = values->at(out->name);
      ASSERT_EQ(static_cast<int64_t>(v.size()), out.num_elements());
      for (float x : v) ASSERT_TRUE(std::isfinite(x)) << out->name;
    }
  }
}

TEST(WorkloadKeyTest, StableAndShapeSensitive) {
  auto a = matmul(64, 64, 64), b = matmul(64, 64, 64);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->workload_key(), b->workload_key());
  EXPECT_TRUE(std::regex_match(a->workload_key(), std::regex("^matmul-[0-9a-f]{16}$")));
  EXPECT_EQ(a->workload_key(), "matmul-" + hex16(fnv1a64(a->canonical_text())));

  auto via_registry = make_op("matmul", {{"m", 64}, {"n", 64}, {"k", 64}});
  ASSERT_TRUE(via_registry.ok());
  EXPECT_EQ(via_registry->workload_key(), a->workload_key());

  for (auto other : {matmul(64, 64, 32), matmul(32, 64, 64), matmul(64, 32, 64),
                     matmul(64, 64, 64, true, false), matmul(64, 64, 64, false, true)}) {
    ASSERT_TRUE(other.ok());
    EXPECT_NE(other->workload_key(), a->workload_key()) << other->summary();
  }
  // Same parameters, different layout: different computation, different key.
  Conv2dParams p{1, 4, 8, 8, 4, 3, 3};
  auto nchw = conv2d(p);
  p.layout = Layout::kNHWC;
  auto nhwc = conv2d(p);
  ASSERT_TRUE(nchw.ok() && nhwc.ok());
  EXPECT_NE(nchw->workload_key(), nhwc->workload_key());
}

TEST(WorkloadKeyTest, CanonicalTextOfMatmul) {
  auto dag = matmul(64, 64, 64);
  ASSERT_TRUE(dag.ok());
  EXPECT_EQ(dag->canonical_text(),
            "A[64,64,]:float32:input\n"
            "B[64,64,]:float32:input\n"
            "C[64,64,]:float32 r0<64 reduce=1 init=0f = (A[i, r0]*B[r0, j])\n"
            "output C\n");
  EXPECT_EQ(dag->summary(), "matmul M=64 N=64 K=64 trans_a=0 trans_b=0");
}

// compute_dag.h promises 64-bit FNV-1a: check the published test vectors, then the golden key
// of matmul(64, 64, 64) that follows from them and the canonical text above.
TEST(WorkloadKeyTest, Fnv1a64MatchesPublishedVectorsAndGoldenKey) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  auto dag = matmul(64, 64, 64);
  ASSERT_TRUE(dag.ok());
  EXPECT_EQ(dag->workload_key(), "matmul-a871d04471f2343f");
}

// GB/s counts the bytes that must move: inputs read once, outputs written once; intermediate
// stages (softmax's exp, layer norm's statistics) and re-reads are not counted.
TEST(MinBytesTest, CountsInputsAndOutputsOnce) {
  auto mm = matmul(3, 5, 7);
  ASSERT_TRUE(mm.ok());
  EXPECT_DOUBLE_EQ(mm->min_bytes(), 4.0 * (3 * 7 + 7 * 5 + 3 * 5));
  auto sm = softmax({6, 10});  // X in, softmax out; maxval, expval, expsum stay inside
  ASSERT_TRUE(sm.ok());
  EXPECT_DOUBLE_EQ(sm->min_bytes(), 4.0 * (60 + 60));
  auto ln = layer_norm({4, 16});  // X, gamma, beta in; out
  ASSERT_TRUE(ln.ok());
  EXPECT_DOUBLE_EQ(ln->min_bytes(), 4.0 * (64 + 16 + 16 + 64));
  auto add_op = elementwise(Elementwise::kAdd, {3, 5});
  ASSERT_TRUE(add_op.ok());
  EXPECT_DOUBLE_EQ(add_op->min_bytes(), 4.0 * 45);
}

TEST(FlopCountTest, CountsMultiplyAddsTwice) {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{3, 5, 7}, {64, 64, 64}, {1, 9, 2}}) {
    auto dag = matmul(m, n, k);
    ASSERT_TRUE(dag.ok());
    EXPECT_DOUBLE_EQ(dag->flop_count(), 2.0 * m * n * k);
  }
  auto bmm = batch_matmul(2, 3, 4, 5);
  ASSERT_TRUE(bmm.ok());
  EXPECT_DOUBLE_EQ(bmm->flop_count(), 2.0 * 2 * 3 * 4 * 5);
  auto dense = dense_bias(3, 5, 7);  // the bias add is one flop per element
  ASSERT_TRUE(dense.ok());
  EXPECT_DOUBLE_EQ(dense->flop_count(), 2.0 * 3 * 5 * 7 + 3 * 5);
  auto relu = elementwise(Elementwise::kRelu, {3, 5});
  ASSERT_TRUE(relu.ok());
  EXPECT_DOUBLE_EQ(relu->flop_count(), 15);
  // softmax: max over rows, exp, sum over rows, divide: one each per element.
  auto sm = softmax({4, 8});
  ASSERT_TRUE(sm.ok());
  EXPECT_DOUBLE_EQ(sm->flop_count(), 4 * 32);
  Conv2dParams p{1, 4, 5, 7, 6, 3, 3, 2, 2, 0, 0, 1, 1, 2};  // out 2 x 3, 2 channels per group
  auto conv = conv2d(p);
  ASSERT_TRUE(conv.ok());
  EXPECT_DOUBLE_EQ(conv->flop_count(), 2.0 * (1 * 6 * 2 * 3) * (2 * 3 * 3));
}

TEST(OpsErrorTest, NonPositiveExtents) {
  EXPECT_EQ(error_of(matmul(0, 4, 4)), "matmul: m (0) must be positive");
  EXPECT_EQ(error_of(make_op("matmul", {{"m", 4}, {"n", -1}, {"k", 4}})),
            "matmul: n (-1) must be positive");
  EXPECT_EQ(error_of(batch_matmul(0, 1, 1, 1)), "batch_matmul: batch (0) must be positive");
  EXPECT_EQ(error_of(softmax({4, 0})), "softmax: shape[1] (0) must be positive");
  EXPECT_EQ(error_of(elementwise(Elementwise::kRelu, {})),
            "relu: shape must have at least one dimension");
  Conv2dParams p{1, 4, 8, 8, 4, 3, 3};
  p.stride_h = 0;
  EXPECT_EQ(error_of(conv2d(p)), "conv2d: stride_h (0) must be >= 1");
  std::string eps = error_of(layer_norm({2, 4}, 0.0));
  EXPECT_EQ(eps.rfind("layer_norm: eps (", 0), 0u) << eps;
  EXPECT_NE(eps.find("must be positive and finite"), std::string::npos) << eps;
}

TEST(OpsErrorTest, GroupsMustDivideChannels) {
  Conv2dParams p{1, 3, 8, 8, 4, 3, 3};
  p.groups = 2;
  EXPECT_EQ(error_of(conv2d(p)), "conv2d: in_channels (3) is not divisible by groups (2)");
  p.in_channels = 4;
  p.out_channels = 3;
  EXPECT_EQ(error_of(conv2d(p)), "conv2d: out_channels (3) is not divisible by groups (2)");
  p.out_channels = 6;
  EXPECT_TRUE(conv2d(p).ok());
}

TEST(OpsErrorTest, KernelLargerThanPaddedInput) {
  Conv2dParams p{1, 1, 2, 8, 1, 5, 3};
  p.pad_h = p.pad_w = 1;
  EXPECT_EQ(error_of(conv2d(p)), "conv2d: kernel_h (5) is larger than the padded height (4)");
  p.pad_h = 2;  // 2 + 2*2 = 6 >= 5 fits
  EXPECT_TRUE(conv2d(p).ok());
  Conv2dParams d{1, 1, 5, 5, 1, 3, 3};
  d.dilation_h = 3;
  EXPECT_EQ(error_of(conv2d(d)),
            "conv2d: kernel_h (3, spanning 7 at dilation 3) is larger than the padded height (5)");
  EXPECT_EQ(error_of(make_op("max_pool2d", {{"n", 1}, {"c", 1}, {"h", 2}, {"w", 8}, {"r", 3},
                                           {"s", 2}})),
            "max_pool2d: kernel_h (3) is larger than the padded height (2)");
  EXPECT_EQ(error_of(max_pool2d(Pool2dParams{1, 1, 8, 8, 2, 2, 2, 2, 2, 0})),
            "max_pool2d: pad_h (2) must be at most half of kernel_h (2)");
}

TEST(OpsErrorTest, RegistryNamesWhatItExpected) {
  std::string unknown = error_of(make_op("matmull", {{"m", 4}}));
  EXPECT_EQ(unknown.rfind("unknown op 'matmull' (known: matmul, batch_matmul, ", 0), 0u) << unknown;
  for (const std::string& name : op_names()) {
    EXPECT_NE(unknown.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(error_of(make_op("matmul", {{"m", 4}, {"n", 4}})),
            "matmul: missing parameter 'k' (expected m, n, k)");
  EXPECT_EQ(error_of(make_op("matmul", {{"m", 4}, {"n", 4}, {"k", 4}, {"x", 1}})),
            "matmul: unknown parameter 'x' (expected m, n, k, trans_a, trans_b)");
  EXPECT_EQ(error_of(make_op("depthwise_conv2d", {{"n", 1}, {"c", 2}, {"h", 4}, {"w", 4},
                                                  {"r", 3}, {"s", 3}, {"k", 2}})),
            "depthwise_conv2d: unknown parameter 'k' (expected n, c, h, w, r, s, stride, pad, "
            "dilation)");
  EXPECT_EQ(error_of(make_op("matmul", {{"m", 4}, {"n", 4}, {"k", 4}, {"trans_a", 2}})),
            "matmul: trans_a (2) must be 0 or 1");
  // Optional parameters are accepted and used.
  auto t = make_op("matmul", {{"m", 2}, {"n", 3}, {"k", 4}, {"trans_b", 1}});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->inputs()[1]->shape, (std::vector<int64_t>{3, 4}));
}

TEST(ComputeDagTest, StageQueriesAndValidation) {
  auto dag = dense_bias(2, 3, 4);
  ASSERT_TRUE(dag.ok());
  EXPECT_EQ(dag->stage_index("dense"), 2);  // post-order from Y: X, W, dense, bias, Y
  EXPECT_EQ(dag->stage_index("nope"), -1);
  EXPECT_TRUE(dag->is_output("Y"));
  EXPECT_FALSE(dag->is_output("dense"));
  EXPECT_EQ(dag->consumers("dense"), (std::vector<int>{dag->stage_index("Y")}));
  EXPECT_EQ(dag->consumers("X"), (std::vector<int>{dag->stage_index("dense")}));

  Tensor a = placeholder("A", {4});
  Tensor b = compute("B", {4}, {a}, [&](const std::vector<Expr>& ax) { return a(ax) * 2.0; });
  EXPECT_NE(
      error_of(ComputeDAG::make("tiny", {}, {b})).find("placeholder 'A' is not a declared input"),
      std::string::npos);
  EXPECT_NE(error_of(ComputeDAG::make("tiny", {a}, {})).find("a DAG needs at least one output"),
            std::string::npos);
  Tensor a2 = placeholder("A", {4});
  Tensor c = compute("C", {4}, {a, a2},
                     [&](const std::vector<Expr>& ax) { return a(ax) + a2(ax); });
  EXPECT_NE(error_of(ComputeDAG::make("tiny", {a, a2}, {c})).find("two stages are named 'A'"),
            std::string::npos);
}

}  // namespace

// Lowering (schedule/lower.h) of schedule States to the LoopNest IR, read through its printer
// (loop_nest.cc): loop nests and init stores, guards from non-dividing splits, annotations as
// loop kinds, auto-unroll, inlining, intermediate allocations and the kernel's arguments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/state.h"

namespace {

using namespace tessera::schedule;

// Lowers `dag` after `steps`; the printed kernel, or "" with a test failure.
std::string lowered_text(const tessera::Result<ComputeDAG>& dag, const std::vector<Step>& steps,
                         LoweredFunc* out = nullptr) {
  EXPECT_TRUE(dag.ok());
  if (!dag.ok()) return "";
  State state(*dag);
  auto applied = state.apply_all(steps);
  EXPECT_TRUE(applied.ok()) << (applied.ok() ? "" : applied.error().message);
  auto func = lower(state, "kernel");
  EXPECT_TRUE(func.ok()) << (func.ok() ? "" : func.error().message);
  if (!func.ok()) return "";
  if (out) *out = *func;
  return to_string(*func);
}

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

int count_stmts(const Stmt& body, StmtKind kind, const std::string& buffer = "") {
  int n = 0;
  visit(body, [&](const StmtNode& s) {
    if (s.kind == kind && (buffer.empty() || s.buffer == buffer)) ++n;
  });
  return n;
}

TEST(LowerTest, DefaultMatmulNest) {
  LoweredFunc func;
  std::string text = lowered_text(matmul(16, 24, 32), {}, &func);
  EXPECT_EQ(text,
            "kernel kernel(A: float32[512], B: float32[768], C: float32[384])\n"
            "for (i, 0, 16) {\n"
            "  for (j, 0, 24) {\n"
            "    C[((i*24) + j)] = 0f\n"
            "    for (r0, 0, 32) {\n"
            "      C[((i*24) + j)] = (C[((i*24) + j)] + (A[((i*32) + r0)]*B[((r0*24) + j)]))\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(count_stmts(func.body, StmtKind::kFor), 3);
  EXPECT_EQ(count_stmts(func.body, StmtKind::kStore, "C"), 2);
  EXPECT_EQ(count_stmts(func.body, StmtKind::kAllocate), 0);
  EXPECT_EQ(count_stmts(func.body, StmtKind::kIfThenElse), 0);
}

TEST(LowerTest, KernelArgumentsAreInputsThenOutputs) {
  LoweredFunc func;
  lowered_text(dense_bias(4, 6, 8), {}, &func);
  ASSERT_EQ(func.arguments.size(), 4u);
  const std::vector<std::string> names{"X", "W", "bias", "Y"};
  const std::vector<int64_t> sizes{32, 48, 6, 24};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(func.arguments[i].name, names[i]);
    EXPECT_EQ(func.arguments[i].size, sizes[i]) << names[i];
    EXPECT_EQ(func.arguments[i].dtype, DType::kFloat32);
    EXPECT_EQ(func.arguments[i].is_output, i == 3) << names[i];
  }
  EXPECT_EQ(func.name, "kernel");
  auto dag = matmul(2, 3, 4);
  ASSERT_TRUE(dag.ok());
  auto named = lower(State(*dag), "mm");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(to_string(*named).rfind("kernel mm(A: float32[8], B: float32[12], C: float32[6])\n", 0),
            0u);
}

TEST(LowerTest, InitSitsJustOutsideTheOutermostReductionLoop) {
  std::string text = lowered_text(matmul(16, 24, 32), {ReorderStep{"C", {"i", "r0", "j"}}});
  EXPECT_TRUE(contains(text,
                       "for (i, 0, 16) {\n"
                       "  for (j, 0, 24) {\n"
                       "    C[((i*24) + j)] = 0f\n"
                       "  }\n"
                       "  for (r0, 0, 32) {\n"
                       "    for (j, 0, 24) {\n"
                       "      C[((i*24) + j)] = (C[((i*24) + j)] + "))
      << text;
}

TEST(LowerTest, NonDividingSplitLowersToAGuard) {
  const std::vector<Step> split{SplitStep{"C", "i", {4}}};
  std::string text = lowered_text(matmul(10, 8, 8), split);
  EXPECT_TRUE(contains(text, "for (i.0, 0, 3) {")) << text;
  EXPECT_TRUE(contains(text, "if ((((i.0*4) + i.1) < 10)) {")) << text;
  // The guard sits inside i.1 (the innermost loop it uses), around j.
  EXPECT_TRUE(contains(text,
                       "  for (i.1, 0, 4) {\n"
                       "    if ((((i.0*4) + i.1) < 10)) {\n"
                       "      for (j, 0, 8) {\n"))
      << text;
  // Indices are flattened and simplified in the new loop variables.
  EXPECT_TRUE(contains(text, "C[(((i.0*32) + (i.1*8)) + j)] = 0f")) << text;
  // A dividing split needs no guard.
  std::string exact = lowered_text(matmul(12, 8, 8), split);
  EXPECT_FALSE(contains(exact, "if (")) << exact;
  EXPECT_TRUE(contains(exact, "for (i.0, 0, 3) {")) << exact;
}

// Loop partitioning (partition.h): a vectorized loop whose split does not divide gets a
// guard-free main part and a guarded remainder; without a vector loop the guard stays put.
TEST(LowerTest, NonDividingVectorLoopGetsAGuardFreeMainPart) {
  const std::vector<Step> steps{SplitStep{"Y", "j", {16}}, AnnotateStep{"Y", "j.1", "vectorize"}};
  LoweredFunc func;
  std::string text = lowered_text(elementwise(Elementwise::kRelu, {5, 37}), steps, &func);
  // 37 = 2 full vectors + 5: the first two iterations of j.0 need no guard.
  EXPECT_TRUE(contains(text,
                       "  for (j.0, 0, 2) {\n"
                       "    vectorized (j.1, 0, 16) {\n"
                       "      Y[(((i*37) + (j.0*16)) + j.1)] = "))
      << text;
  EXPECT_EQ(count_stmts(func.body, StmtKind::kIfThenElse), 1) << text;  // in the remainder only
  // The remainder, one iteration here, is emitted in place with its guard (a lane mask).
  EXPECT_TRUE(contains(text,
                       "  vectorized (j.1, 0, 16) {\n"
                       "    if (((j.1 + 32) < 37)) {\n"
                       "      Y[(((i*37) + j.1) + 32)] = "))
      << text;
  // Several remainder iterations get their own loop.
  std::string longer = lowered_text(elementwise(Elementwise::kRelu, {5, 37}),
                                    {SplitStep{"Y", "j", {4, 4}}, AnnotateStep{"Y", "j.2", "vectorize"}});
  EXPECT_TRUE(contains(longer, "for (j.1.rest, 0, ")) << longer;
  // A scalar inner loop keeps its guard where it was (nothing is duplicated).
  std::string scalar = lowered_text(elementwise(Elementwise::kRelu, {5, 37}), {SplitStep{"Y", "j", {16}}});
  EXPECT_FALSE(contains(scalar, ".rest")) << scalar;
  // A dividing split has nothing to partition.
  std::string exact = lowered_text(elementwise(Elementwise::kRelu, {5, 32}), steps);
  EXPECT_FALSE(contains(exact, ".rest")) << exact;
  EXPECT_FALSE(contains(exact, "if (")) << exact;
}

TEST(LowerTest, GuardOnASplitReductionStaysOutOfTheInit) {
  LoweredFunc func;
  std::string text = lowered_text(matmul(4, 4, 10), {SplitStep{"C", "r0", {4}}}, &func);
  EXPECT_EQ(count_stmts(func.body, StmtKind::kIfThenElse), 1) << text;
  EXPECT_TRUE(contains(text, "C[((i*4) + j)] = 0f\n    for (r0.0, 0, 3) {")) << text;
  EXPECT_TRUE(contains(text, "if ((((r0.0*4) + r0.1) < 10)) {")) << text;
}

TEST(LowerTest, AnnotationsBecomeLoopKinds) {
  std::string text =
      lowered_text(matmul(16, 24, 32),
                   {SplitStep{"C", "j", {8}}, AnnotateStep{"C", "i", "parallel"},
                    AnnotateStep{"C", "j.1", "vectorize"}, AnnotateStep{"C", "j.0", "unroll"}});
  EXPECT_TRUE(contains(text, "parallel (i, 0, 16) {")) << text;
  EXPECT_TRUE(contains(text, "unrolled (j.0, 0, 3) {")) << text;
  EXPECT_TRUE(contains(text, "vectorized (j.1, 0, 8) {")) << text;
  EXPECT_TRUE(contains(text, "for (r0, 0, 32) {")) << text;
  EXPECT_FALSE(contains(text, "for (i, 0, 16)")) << text;
}

TEST(LowerTest, AutoUnrollUnrollsSmallInnerNests) {
  std::string text = lowered_text(matmul(4, 4, 4), {AutoUnrollStep{"C", 4}});
  EXPECT_TRUE(contains(text, "unrolled (r0, 0, 4) {")) << text;  // 4 steps
  EXPECT_TRUE(contains(text, "for (j, 0, 4) {")) << text;        // 16 steps
  EXPECT_TRUE(contains(text, "for (i, 0, 4) {")) << text;
  std::string all = lowered_text(matmul(4, 4, 4), {AutoUnrollStep{"C", 64}});
  EXPECT_TRUE(contains(all, "unrolled (i, 0, 4) {")) << all;
  EXPECT_TRUE(contains(all, "unrolled (j, 0, 4) {")) << all;
  EXPECT_FALSE(contains(all, "for (")) << all;
}

TEST(LowerTest, IntermediatesAreAllocated) {
  LoweredFunc func;
  std::string text = lowered_text(softmax({4, 8}), {}, &func);
  EXPECT_EQ(text.rfind("kernel kernel(X: float32[32], softmax: float32[32])\n"
                       "allocate maxval[float32 * 4], global\n"
                       "allocate expval[float32 * 32], global\n"
                       "allocate expsum[float32 * 4], global\n",
                       0),
            0u)
      << text;
  EXPECT_FALSE(contains(text, "allocate softmax")) << text;
  EXPECT_EQ(count_stmts(func.body, StmtKind::kAllocate), 3);
  EXPECT_TRUE(contains(text, "expval[((i*8) + j)] = exp((X[((i*8) + j)] - maxval[i]))")) << text;
  EXPECT_TRUE(contains(text, "maxval[i] = -inff")) << text;
  EXPECT_TRUE(contains(text, "maxval[i] = max(maxval[i], X[((i*8) + r0)])")) << text;
  ASSERT_EQ(func.arguments.size(), 2u);
  EXPECT_FALSE(func.arguments[0].is_output);
  EXPECT_TRUE(func.arguments[1].is_output);
}

TEST(LowerTest, InliningRemovesTheStoreAndTheAllocation) {
  LoweredFunc func;
  std::string text = lowered_text(softmax({4, 8}), {ComputeInlineStep{"expval"}}, &func);
  EXPECT_FALSE(contains(text, "allocate expval")) << text;
  EXPECT_EQ(count_stmts(func.body, StmtKind::kStore, "expval"), 0) << text;
  EXPECT_EQ(count_stmts(func.body, StmtKind::kAllocate), 2) << text;
  EXPECT_FALSE(contains(text, "expval[")) << text;
  // Its expression now appears in both consumers, at their own indices.
  EXPECT_TRUE(contains(text, "expsum[i] = (expsum[i] + exp((X[((i*8) + r0)] - maxval[i])))"))
      << text;
  EXPECT_TRUE(
      contains(text, "softmax[((i*8) + j)] = (exp((X[((i*8) + j)] - maxval[i]))/expsum[i])"))
      << text;
}

TEST(LowerTest, InliningAHandBuiltChain) {
  Tensor a = placeholder("A", {8});
  Tensor b = compute("B", {8}, {a}, [&](const std::vector<Expr>& ax) { return a(ax) * 2.0; });
  Tensor c = compute("C", {8}, {b}, [&](const std::vector<Expr>& ax) { return b(ax) + 1.0; });
  auto dag = ComputeDAG::make("tiny shape=8", {a}, {c});
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  EXPECT_EQ(lowered_text(dag, {}),
            "kernel kernel(A: float32[8], C: float32[8])\n"
            "allocate B[float32 * 8], global\n"
            "for (i, 0, 8) {\n"
            "  B[i] = (A[i]*2f)\n"
            "}\n"
            "for (i, 0, 8) {\n"
            "  C[i] = (B[i] + 1f)\n"
            "}\n");
  EXPECT_EQ(lowered_text(dag, {ComputeInlineStep{"B"}}),
            "kernel kernel(A: float32[8], C: float32[8])\n"
            "for (i, 0, 8) {\n"
            "  C[i] = ((A[i]*2f) + 1f)\n"
            "}\n");
}

TEST(LowerTest, PaddedConvolutionInlinesItsPadStage) {
  Conv2dParams p{1, 2, 4, 4, 2, 3, 3};
  p.pad_h = p.pad_w = 1;
  LoweredFunc func;
  std::string text = lowered_text(conv2d(p), {}, &func);
  EXPECT_TRUE(contains(text, "allocate pad[float32 * 72], global")) << text;  // 1*2*6*6
  std::string inlined = lowered_text(conv2d(p), {ComputeInlineStep{"pad"}}, &func);
  EXPECT_FALSE(contains(inlined, "pad[")) << inlined;
  EXPECT_TRUE(contains(inlined, "select(")) << inlined;
  EXPECT_EQ(count_stmts(func.body, StmtKind::kAllocate), 0) << inlined;
}

}  // namespace

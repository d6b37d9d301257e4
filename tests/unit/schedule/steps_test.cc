// State and the schedule steps of schedule/steps.h that succeed: split (dividing and guarded),
// reorder, fuse, annotate, compute_inline and auto_unroll; value semantics of State; atomicity of
// apply/apply_all; describe_step. Refused steps are table-driven in tests/reject/.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedule/ops.h"
#include "schedule/simplify.h"
#include "schedule/state.h"
#include "schedule/steps.h"

namespace {

using namespace tessera::schedule;

State matmul_state(int64_t m = 64, int64_t n = 64, int64_t k = 64) {
  auto dag = matmul(m, n, k);
  EXPECT_TRUE(dag.ok());
  return State(*dag);
}

const StageState& stage_named(const State& s, const std::string& name) {
  int index = s.dag().stage_index(name);
  EXPECT_GE(index, 0) << name;
  return s.stage(index);
}

std::vector<std::string> names_of(const StageState& s) {
  std::vector<std::string> names;
  for (const Loop& l : s.loops) names.push_back(l.name);
  return names;
}

std::vector<int64_t> extents_of(const StageState& s) {
  std::vector<int64_t> extents;
  for (const Loop& l : s.loops) extents.push_back(l.extent);
  return extents;
}

void apply_ok(State& s, const Step& step) {
  auto r = s.apply(step);
  ASSERT_TRUE(r.ok()) << describe_step(step) << ": " << r.error().message;
}

TEST(StateTest, InitialStateHasOneLoopPerAxis) {
  State s = matmul_state(8, 16, 32);
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(names_of(c), (std::vector<std::string>{"i", "j", "r0"}));
  EXPECT_EQ(extents_of(c), (std::vector<int64_t>{8, 16, 32}));
  EXPECT_EQ(c.loops[0].kind, IterKind::kSpatial);
  EXPECT_EQ(c.loops[2].kind, IterKind::kReduce);
  EXPECT_TRUE(c.guards.empty());
  EXPECT_TRUE(stage_named(s, "A").loops.empty());
  EXPECT_EQ(s.describe(), "C: i(8) j(16) r0(32, reduce)\n");
  EXPECT_TRUE(s.history().empty());
}

TEST(SplitTest, DividingSplitNamesAndSizesTheParts) {
  State s = matmul_state();
  apply_ok(s, SplitStep{"C", "i", {8}});
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(names_of(c), (std::vector<std::string>{"i.0", "i.1", "j", "r0"}));
  EXPECT_EQ(extents_of(c), (std::vector<int64_t>{8, 8, 64, 64}));
  EXPECT_TRUE(c.guards.empty());
  EXPECT_EQ(to_string(c.axis_value[0]), "((i.0*8) + i.1)");

  apply_ok(s, SplitStep{"C", "j", {4, 2}});
  const StageState& c2 = stage_named(s, "C");
  EXPECT_EQ(names_of(c2), (std::vector<std::string>{"i.0", "i.1", "j.0", "j.1", "j.2", "r0"}));
  EXPECT_EQ(extents_of(c2), (std::vector<int64_t>{8, 8, 8, 4, 2, 64}));
  EXPECT_EQ(to_string(c2.axis_value[1]), "((((j.0*4) + j.1)*2) + j.2)");
  EXPECT_EQ(s.history().size(), 2u);
}

TEST(SplitTest, SplittingAReductionKeepsItsKind) {
  State s = matmul_state();
  apply_ok(s, SplitStep{"C", "r0", {16}});
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(names_of(c), (std::vector<std::string>{"i", "j", "r0.0", "r0.1"}));
  EXPECT_EQ(c.loops[2].kind, IterKind::kReduce);
  EXPECT_EQ(c.loops[3].kind, IterKind::kReduce);
  EXPECT_EQ(s.describe(), "C: i(64) j(64) r0.0(4, reduce) r0.1(16, reduce)\n");
}

TEST(SplitTest, NonDividingSplitAddsAGuard) {
  State s = matmul_state(10, 8, 8);
  apply_ok(s, SplitStep{"C", "i", {4}});
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(extents_of(c), (std::vector<int64_t>{3, 4, 8, 8}));  // ceil(10 / 4) = 3
  ASSERT_EQ(c.guards.size(), 1u);
  EXPECT_EQ(to_string(c.guards[0]), "(((i.0*4) + i.1) < 10)");
  // A later split of a part rewrites the guard in the new loop variables.
  apply_ok(s, SplitStep{"C", "i.1", {2}});
  const StageState& c2 = stage_named(s, "C");
  ASSERT_EQ(c2.guards.size(), 1u);
  EXPECT_EQ(to_string(c2.guards[0]), "(((i.0*4) + ((i.1.0*2) + i.1.1)) < 10)");
  // A split whose factors multiply to the extent exactly adds none.
  State exact = matmul_state(12, 8, 8);
  apply_ok(exact, SplitStep{"C", "i", {3, 4}});
  EXPECT_TRUE(stage_named(exact, "C").guards.empty());
  EXPECT_EQ(extents_of(stage_named(exact, "C")), (std::vector<int64_t>{1, 3, 4, 8, 8}));
}

TEST(ReorderTest, PutsLoopsInTheGivenOrder) {
  State s = matmul_state();
  apply_ok(s, SplitStep{"C", "i", {8}});
  apply_ok(s, ReorderStep{"C", {"r0", "i.1", "j", "i.0"}});
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(names_of(c), (std::vector<std::string>{"r0", "i.1", "j", "i.0"}));
  EXPECT_EQ(c.loops[0].kind, IterKind::kReduce);
  // Reordering moves loops; it does not change what each axis is.
  EXPECT_EQ(to_string(c.axis_value[0]), "((i.0*8) + i.1)");
}

TEST(FuseTest, FusedLoopHasProductExtentAndJoinedName) {
  State s = matmul_state(16, 8, 4);
  apply_ok(s, FuseStep{"C", {"i", "j"}});
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(names_of(c), (std::vector<std::string>{"i@j", "r0"}));
  EXPECT_EQ(extents_of(c), (std::vector<int64_t>{128, 4}));
  EXPECT_EQ(c.loops[0].kind, IterKind::kSpatial);
  EXPECT_EQ(to_string(c.axis_value[0]), "(i@j/8)");
  EXPECT_EQ(to_string(c.axis_value[1]), "(i@j % 8)");
}

TEST(FuseTest, FusesThreeLoopsAndRecoversEachAxis) {
  auto dag = batch_matmul(2, 3, 4, 5);
  ASSERT_TRUE(dag.ok());
  State s(*dag);
  apply_ok(s, FuseStep{"C", {"i", "j", "k"}});
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(names_of(c), (std::vector<std::string>{"i@j@k", "r0"}));
  EXPECT_EQ(c.loops[0].extent, 24);
  EXPECT_EQ(to_string(c.axis_value[0]), "(i@j@k/12)");
  EXPECT_EQ(to_string(c.axis_value[1]), "((i@j@k/4) % 3)");
  EXPECT_EQ(to_string(c.axis_value[2]), "(i@j@k % 4)");
}

TEST(FuseTest, FuseThenSplitSimplifiesBackToTheParts) {
  State s = matmul_state(16, 8, 4);
  apply_ok(s, FuseStep{"C", {"i", "j"}});
  apply_ok(s, SplitStep{"C", "i@j", {8}});
  const StageState& c = stage_named(s, "C");
  ASSERT_EQ(names_of(c), (std::vector<std::string>{"i@j.0", "i@j.1", "r0"}));
  RangeMap ranges;
  for (const Loop& l : c.loops) ranges.emplace_back(l.var.get(), Interval{0, l.extent - 1});
  EXPECT_TRUE(simplify(c.axis_value[0], ranges).same_as(c.loops[0].var));
  EXPECT_TRUE(simplify(c.axis_value[1], ranges).same_as(c.loops[1].var));
  EXPECT_TRUE(simplify(c.axis_value[2], ranges).same_as(c.loops[2].var));
}

TEST(AnnotateTest, MarksLoops) {
  State s = matmul_state(64, 64, 600);
  apply_ok(s, AnnotateStep{"C", "i", "parallel"});
  apply_ok(s, AnnotateStep{"C", "j", "vectorize"});  // exactly kMaxVectorLanes
  const StageState& c = stage_named(s, "C");
  EXPECT_EQ(c.loops[0].annotation, Annotation::kParallel);
  EXPECT_EQ(c.loops[1].annotation, Annotation::kVectorize);
  EXPECT_EQ(c.loops[2].annotation, Annotation::kNone);
  EXPECT_EQ(s.describe(), "C: i(64, parallel) j(64, vectorize) r0(600, reduce)\n");
  // Reduction loops may be unrolled (up to kMaxUnrollExtent), after splitting this one.
  apply_ok(s, SplitStep{"C", "r0", {kMaxUnrollExtent / 2}});
  apply_ok(s, AnnotateStep{"C", "r0.1", "unroll"});
  EXPECT_EQ(stage_named(s, "C").loops[3].annotation, Annotation::kUnroll);
}

TEST(ComputeInlineTest, InlinesAnElementwiseProducer) {
  auto dag = softmax({4, 8});
  ASSERT_TRUE(dag.ok());
  State s(*dag);
  apply_ok(s, ComputeInlineStep{"expval"});
  EXPECT_EQ(stage_named(s, "expval").location, ComputeLocation::kInlined);
  EXPECT_EQ(stage_named(s, "expsum").location, ComputeLocation::kRoot);
  EXPECT_NE(s.describe().find("expval: inlined\n"), std::string::npos) << s.describe();
  EXPECT_NE(s.describe().find("softmax: i(4) j(8)\n"), std::string::npos) << s.describe();
}

TEST(ComputeInlineTest, InlinesAStageOfAHandBuiltDag) {
  Tensor a = placeholder("A", {8});
  Tensor b = compute("B", {8}, {a}, [&](const std::vector<Expr>& ax) { return a(ax) * 2.0; });
  Tensor c = compute("C", {8}, {b}, [&](const std::vector<Expr>& ax) { return b(ax) + 1.0; });
  auto dag = ComputeDAG::make("tiny shape=8", {a}, {c});
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  State s(*dag);
  EXPECT_EQ(s.describe(), "B: i(8)\nC: i(8)\n");
  apply_ok(s, ComputeInlineStep{"B"});
  EXPECT_EQ(s.describe(), "B: inlined\nC: i(8)\n");
  // A reorder that keeps the loops intact does not prevent inlining.
  State t(*dag);
  apply_ok(t, ReorderStep{"B", {"i"}});
  apply_ok(t, ComputeInlineStep{"B"});
}

TEST(AutoUnrollTest, SetsTheStageLimit) {
  State s = matmul_state();
  apply_ok(s, AutoUnrollStep{"C", 16});
  EXPECT_EQ(stage_named(s, "C").auto_unroll_max_step, 16);
  EXPECT_EQ(s.describe(), "C: i(64) j(64) r0(64, reduce) auto_unroll<=16\n");
  apply_ok(s, AutoUnrollStep{"C", 0});
  EXPECT_EQ(stage_named(s, "C").auto_unroll_max_step, 0);
  apply_ok(s, AutoUnrollStep{"C", 4096});
  EXPECT_EQ(stage_named(s, "C").auto_unroll_max_step, 4096);
}

TEST(StateValueTest, ApplyingToACopyLeavesTheOriginal) {
  State original = matmul_state();
  const std::string before = original.describe();
  State copy = original;
  apply_ok(copy, SplitStep{"C", "i", {8}});
  apply_ok(copy, AnnotateStep{"C", "i.0", "parallel"});
  EXPECT_EQ(original.describe(), before);
  EXPECT_TRUE(original.history().empty());
  EXPECT_EQ(stage_named(original, "C").loops.size(), 3u);
  EXPECT_EQ(copy.history().size(), 2u);
  EXPECT_NE(copy.describe(), before);
}

TEST(StateValueTest, FailedStepLeavesTheStateUnchanged) {
  State s = matmul_state();
  apply_ok(s, SplitStep{"C", "i", {8}});
  const std::string before = s.describe();
  auto r = s.apply(SplitStep{"C", "j", {4, 32}});  // 128 > 64
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(s.describe(), before);
  EXPECT_EQ(s.history().size(), 1u);
  EXPECT_EQ(stage_named(s, "C").loops.size(), 4u);
}

TEST(StateValueTest, ApplyAllIsAllOrNothing) {
  State s = matmul_state();
  std::vector<Step> steps = {SplitStep{"C", "i", {8}}, AnnotateStep{"C", "r0", "parallel"}};
  auto r = s.apply_all(steps);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("step 1 (parallel C.r0): ", 0), 0u) << r.error().message;
  EXPECT_TRUE(s.history().empty());  // the first, valid step is not kept either
  EXPECT_EQ(s.describe(), "C: i(64) j(64) r0(64, reduce)\n");

  steps[1] = AnnotateStep{"C", "i.0", "parallel"};
  ASSERT_TRUE(s.apply_all(steps).ok());
  EXPECT_EQ(s.history().size(), 2u);
  EXPECT_EQ(s.describe(), "C: i.0(8, parallel) i.1(8) j(64) r0(64, reduce)\n");
}

TEST(DescribeStepTest, OneLinePerStepKind) {
  EXPECT_EQ(describe_step(SplitStep{"C", "i", {32, 8}}), "split C.i by [32, 8]");
  EXPECT_EQ(describe_step(ReorderStep{"C", {"j", "i", "r0"}}), "reorder C to (j, i, r0)");
  EXPECT_EQ(describe_step(FuseStep{"C", {"i", "j"}}), "fuse C (i, j)");
  EXPECT_EQ(describe_step(AnnotateStep{"C", "i", "parallel"}), "parallel C.i");
  EXPECT_EQ(describe_step(ComputeInlineStep{"expval"}), "compute_inline expval");
  EXPECT_EQ(describe_step(AutoUnrollStep{"C", 16}), "auto_unroll C max_step=16");
}

// Layouts as records and `tessera best` show them: a layout packed at load says so, one copied
// in every call does not. Fails if the pack step is missed or credited to the wrong stage.
TEST(DescribeLayouts, NamesEachLayoutAndWhetherItIsPackedAtLoad) {
  std::vector<Step> steps{CacheReadStep{"W", "conv", "global"}, LayoutStep{"W.local", {"0/16", "1", "0%16"}},
                          PackStep{"W.local"}, CacheReadStep{"X", "conv", "global"},
                          LayoutStep{"X.local", {"1/8", "0", "1%8"}}};
  EXPECT_EQ(describe_layouts(steps), "W.local [0/16, 1, 0%16] packed at load; X.local [1/8, 0, 1%8]");
  EXPECT_EQ(describe_layouts({SplitStep{"C", "i", {4}}}), "as given");
}

}  // namespace

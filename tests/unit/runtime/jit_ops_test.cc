// Every op of the library, under its default schedule and several hand schedules, compiled by
// the LLVM backend and compared element by element with the reference evaluator.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "jit_test_util.h"
#include "op_cases.h"
#include "schedule/ops.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

// Schedules written against whatever loops a stage has, so one recipe fits every op.
using Recipe = std::function<std::vector<Step>(const State&)>;

std::vector<const StageState*> compute_stages(const State& state) {
  std::vector<const StageState*> out;
  for (const StageState& s : state.stages()) {
    if (!s.op->is_placeholder) out.push_back(&s);
  }
  return out;
}

// Splits the innermost spatial loop by `factor` and moves its inner part innermost, vectorized.
std::vector<Step> vectorize_inner(const StageState& s, int64_t factor) {
  const std::string name = s.op->name;
  const Axis& last = s.op->axes.back();
  std::vector<Step> steps{SplitStep{name, last.name, {std::min(factor, last.extent)}}};
  std::vector<std::string> order;
  for (const Loop& l : s.loops) {
    if (l.name == last.name) order.push_back(last.name + ".0");
    else order.push_back(l.name);
  }
  order.push_back(last.name + ".1");
  steps.push_back(ReorderStep{name, order});
  steps.push_back(AnnotateStep{name, last.name + ".1", "vectorize"});
  return steps;
}

std::vector<Step> append(std::vector<Step> a, const std::vector<Step>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::pair<std::string, Recipe>> recipes() {
  return {
      {"default", [](const State&) { return std::vector<Step>{}; }},
      {"vectorize_inner_4", [](const State& st) {
         std::vector<Step> steps;
         for (const StageState* s : compute_stages(st)) steps = append(steps, vectorize_inner(*s, 4));
         return steps;
       }},
      {"vectorize_inner_16", [](const State& st) {
         std::vector<Step> steps;
         for (const StageState* s : compute_stages(st)) steps = append(steps, vectorize_inner(*s, 16));
         return steps;
       }},
      {"parallel_outer_unroll", [](const State& st) {
         std::vector<Step> steps;
         for (const StageState* s : compute_stages(st)) {
           const Axis& first = s->op->axes.front();
           steps.push_back(SplitStep{s->op->name, first.name, {std::min<int64_t>(2, first.extent)}});
           steps.push_back(AnnotateStep{s->op->name, first.name + ".0", "parallel"});
           steps.push_back(AnnotateStep{s->op->name, first.name + ".1", "unroll"});
           steps.push_back(AutoUnrollStep{s->op->name, 16});
         }
         return steps;
       }},
      {"fuse_split_parallel", [](const State& st) {
         std::vector<Step> steps;
         for (const StageState* s : compute_stages(st)) {
           const std::string name = s->op->name;
           std::vector<std::string> spatial;
           for (const Axis& a : s->op->axes) spatial.push_back(a.name);
           std::string fused = spatial.front();
           if (spatial.size() > 1) {
             steps.push_back(FuseStep{name, spatial});
             fused.clear();
             for (const auto& n : spatial) fused += (fused.empty() ? "" : "@") + n;
           }
           steps.push_back(SplitStep{name, fused, {std::min<int64_t>(3, s->op.num_elements())}});
           steps.push_back(AnnotateStep{name, fused + ".0", "parallel"});
         }
         return steps;
       }},
      {"reduction_outermost_inline", [](const State& st) {
         std::vector<Step> steps;
         const ComputeDAG& dag = st.dag();
         for (const StageState* s : compute_stages(st)) {
           const std::string name = s->op->name;
           if (s->op->reduce == ReduceKind::kNone && !dag.is_output(name)) {
             steps.push_back(ComputeInlineStep{name});
             continue;
           }
           if (s->op->reduce_axes.empty()) continue;
           const Axis& r = s->op->reduce_axes.front();
           steps.push_back(SplitStep{name, r.name, {std::min<int64_t>(2, r.extent)}});
           std::vector<std::string> order{r.name + ".0"};
           for (const Loop& l : s->loops) {
             if (l.name == r.name) order.push_back(r.name + ".1");
             else order.push_back(l.name);
           }
           steps.push_back(ReorderStep{name, order});
         }
         return steps;
       }},
  };
}

struct JitCase {
  OpCase op;
  std::string recipe_name;
  Recipe recipe;
};

// Keeps ctest's listing readable (the test name already says op and recipe).
void PrintTo(const JitCase& c, std::ostream* os) { *os << c.op.label << " / " << c.recipe_name; }

class JitOps : public ::testing::TestWithParam<JitCase> {};

TEST_P(JitOps, MatchesReference) {
  const JitCase& c = GetParam();
  auto dag = c.op.make();
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  State initial(*dag);
  EXPECT_TRUE(MatchesReference(*dag, c.recipe(initial)));
}

std::vector<JitCase> all_cases() {
  std::vector<JitCase> cases;
  for (const OpCase& op : op_cases()) {
    for (const auto& [name, recipe] : recipes()) cases.push_back({op, name, recipe});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllOps, JitOps, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<JitCase>& info) {
                           return info.param.op.label + "__" + info.param.recipe_name;
                         });

}  // namespace
}  // namespace tessera::testing

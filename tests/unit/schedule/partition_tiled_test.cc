// Loop partitioning in tiled nests (schedule/partition.h) with ceil tiles (knobs.h): a matmul
// of prime extents, tiled by the sketch's cache_write rule with tiles that do not divide,
// lowers to a nest whose vectorized loops run guard-free on every full tile; only the edge
// tiles run the guarded (masked) copy. Counted by walking the nest's control flow with the
// loop variables' values, as the kernel would run it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/simplify.h"
#include "schedule/sketch.h"

namespace {

using namespace tessera::schedule;

struct VectorLoopRuns {
  int64_t total = 0;    // entries into a vectorized loop
  int64_t guarded = 0;  // ... whose body tests a condition per lane
};

bool has_guard(const Stmt& s) {
  bool found = false;
  visit(s, [&](const StmtNode& n) { found |= n.kind == StmtKind::kIfThenElse; });
  return found;
}

// Runs the control flow of `s` (loops and conditions, no stores) with `values` bound.
void run(const Stmt& s, RangeMap& values, VectorLoopRuns& runs) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::kFor:
      if (s->for_kind == ForKind::kVectorized) {
        ++runs.total;
        runs.guarded += has_guard(s->body) ? 1 : 0;
        return;
      }
      for (int64_t v = 0; v < s->extent; ++v) {
        values.insert(values.begin(), {s->loop_var.get(), Interval::point(v)});
        run(s->body, values, runs);
        values.erase(values.begin());
      }
      return;
    case StmtKind::kIfThenElse: {
      int64_t truth = 0;
      EXPECT_TRUE(is_const_int(simplify(s->condition, values), &truth)) << to_string(s->condition);
      run(truth ? s->then_case : s->else_case, values, runs);
      return;
    }
    case StmtKind::kAllocate: run(s->body, values, runs); return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) run(c, values, runs);
      return;
    case StmtKind::kStore: return;
  }
}

TEST(PartitionTiled, FullTilesOfAPrimeMatmulRunGuardFreeVectorLoops) {
  auto dag = matmul(67, 67, 67).value();
  std::vector<Sketch> sketches = generate_sketches(dag);
  auto sketch = std::find_if(sketches.begin(), sketches.end(),
                             [](const Sketch& s) { return s.id.find(":tile_cache") != std::string::npos; });
  ASSERT_NE(sketch, sketches.end());
  // 67 rows in 5 tiles of 16 (4 x 4 register tiles), 67 columns in 5 of 16, k in 5 steps of 16.
  auto values = sketch->knobs.from_json(nlohmann::json{
      {"C.i", {5, 1, 4, 4}}, {"C.j", {5, 1, 1, 16}}, {"C.r0", {5, 16}}, {"C.parallel", 2}, {"C.unroll", 0}});
  ASSERT_TRUE(values) << values.error().message;
  auto state = apply_candidate(dag, *sketch, *values);
  ASSERT_TRUE(state) << state.error().message;
  auto func = lower(*state, "kernel");
  ASSERT_TRUE(func) << func.error().message;
  RangeMap bound;
  VectorLoopRuns runs;
  run(func->body, bound, runs);
  ASSERT_GT(runs.total, 0) << to_string(*func);
  // 25 tiles of the same work, 9 of them on an edge: at most their share of the runs is
  // guarded (unpartitioned, every run is: the guards sit inside the cache_write allocation of
  // each tile, under a parallel loop).
  EXPECT_LE(runs.guarded * 25, runs.total * 9) << runs.guarded << " of " << runs.total << "\n" << to_string(*func);
  EXPECT_LT(runs.guarded, runs.total);
}

}  // namespace

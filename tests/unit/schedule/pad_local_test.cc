// Padded local tiles (schedule/pad_local.h): in a cache_write matmul with ceil tiles, the edge
// tiles accumulate into their whole local tile without guards (their reads carry the guards
// instead), every read still lands inside its buffer at every point the nest runs, and guards
// on stores to global buffers stay. The nests are walked point by point with the loop
// variables' values bound, as the kernel would run them.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/pad_local.h"
#include "schedule/simplify.h"
#include "schedule/sketch.h"
#include "nest_eval.h"

namespace {

using namespace tessera::schedule;
using tessera::schedule::testing::eval;

LoweredFunc lowered(const ComputeDAG& dag, const std::string& sketch_tag, const nlohmann::json& knobs) {
  std::vector<Sketch> sketches = generate_sketches(dag);
  auto sketch = std::find_if(sketches.begin(), sketches.end(), [&](const Sketch& s) { return s.id == sketch_tag; });
  EXPECT_NE(sketch, sketches.end());
  auto values = sketch->knobs.from_json(knobs);
  EXPECT_TRUE(values) << values.error().message;
  auto state = apply_candidate(dag, *sketch, *values);
  EXPECT_TRUE(state) << state.error().message;
  auto func = lower(*state, "kernel");
  EXPECT_TRUE(func) << func.error().message;
  return *func;
}

// Stores to each buffer: how many, and how many sit under a guard (an if without else).
struct StoreCounts {
  int total = 0, guarded = 0;
};
void count_stores(const Stmt& s, bool under_guard, std::map<std::string, StoreCounts>& out) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::kStore:
      ++out[s->buffer].total;
      out[s->buffer].guarded += under_guard ? 1 : 0;
      return;
    case StmtKind::kIfThenElse:
      if (int64_t truth = 1; is_const_int(s->condition, &truth) && !truth) return;  // never runs
      count_stores(s->then_case, under_guard || !s->else_case, out);
      count_stores(s->else_case, under_guard, out);
      return;
    case StmtKind::kFor: case StmtKind::kAllocate: count_stores(s->body, under_guard, out); return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) count_stores(c, under_guard, out);
      return;
  }
}

// Every read in `e` that runs with `values` bound (a select runs one side) lands in its buffer.
void check_reads(const Expr& e, const RangeMap& values, const std::map<std::string, int64_t>& sizes, int64_t& reads) {
  if (e->kind == ExprKind::kSelect) {
    check_reads(e->operands[0], values, sizes, reads);
    check_reads(e->operands[eval(e->operands[0], values) ? 1 : 2], values, sizes, reads);
    return;
  }
  for (const Expr& op : e->operands) check_reads(op, values, sizes, reads);
  if (e->kind != ExprKind::kLoad) return;
  const int64_t at = eval(e->operands[0], values);
  ASSERT_TRUE(at >= 0 && at < sizes.at(e->name)) << e->name << "[" << at << "] of " << sizes.at(e->name) << ": " << to_string(e);
  ++reads;
}

// Runs the nest's control flow (every iteration, vector lanes included) checking the reads.
void run(const Stmt& s, RangeMap& values, std::map<std::string, int64_t>& sizes, int64_t& reads) {
  if (!s || ::testing::Test::HasFatalFailure()) return;
  switch (s->kind) {
    case StmtKind::kFor:
      for (int64_t v = 0; v < s->extent; ++v) {
        values.insert(values.begin(), {s->loop_var.get(), Interval::point(v)});
        run(s->body, values, sizes, reads);
        values.erase(values.begin());
      }
      return;
    case StmtKind::kIfThenElse:
      run(eval(s->condition, values) ? s->then_case : s->else_case, values, sizes, reads);
      return;
    case StmtKind::kAllocate:
      sizes[s->buffer] = s->size;
      run(s->body, values, sizes, reads);
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) run(c, values, sizes, reads);
      return;
    case StmtKind::kStore: check_reads(s->value, values, sizes, reads); return;
  }
}

// 67 rows in 5 tiles of 16 (4 x 4 register tiles), 250 columns in 4 tiles of 64 (6 padded),
// k 67 in 5 steps of 16.
const nlohmann::json kPaddedTiles{
    {"C.i", {5, 1, 4, 4}}, {"C.j", {4, 1, 1, 64}}, {"C.r0", {5, 16}}, {"C.parallel", 2}, {"C.unroll", 0}};

// Bug caught: edge tiles of a ceil split kept a guard per row and a lane mask per vector around
// every accumulator update (masked loads and stores each iteration, broadcast reads turned into
// gathers); they ran many times slower than a full tile (a 1009^3 matmul at a tenth of 1024^3).
TEST(PadLocal, EdgeTilesAccumulateIntoTheirLocalTileWithoutGuards) {
  LoweredFunc func = lowered(matmul(67, 250, 67).value(), "C:tile_cache", kPaddedTiles);
  std::map<std::string, StoreCounts> stores;
  count_stores(func.body, false, stores);
  ASSERT_GT(stores["C.local"].total, 0) << to_string(func);
  EXPECT_EQ(stores["C.local"].guarded, 0) << to_string(func);
  // The copy out of an edge tile writes only the points inside C.
  EXPECT_GT(stores["C"].guarded, 0) << to_string(func);
}

// Bug caught: a read whose guard moved off its store must still never leave its buffer (the
// last rows of A and the last columns of B's last row sit right at the end of each).
TEST(PadLocal, ReadsOfPaddedEdgeTilesStayInsideTheirBuffers) {
  for (auto [m, n, k, knobs] : {
           std::tuple{13, 250, 29, nlohmann::json{{"C.i", {4, 1, 1, 4}}, {"C.j", {4, 1, 1, 64}}, {"C.r0", {2, 16}},
                                                  {"C.parallel", 2}, {"C.unroll", 0}}},
           std::tuple{13, 61, 29, nlohmann::json{{"C.i", {2, 1, 2, 4}}, {"C.j", {4, 1, 1, 16}}, {"C.r0", {2, 16}},
                                                 {"C.parallel", 1}, {"C.unroll", 0}}}}) {
    LoweredFunc func = lowered(matmul(m, n, k).value(), "C:tile_cache", knobs);
    std::map<std::string, int64_t> sizes;
    for (const KernelArgument& a : func.arguments) sizes[a.name] = a.size;
    RangeMap values;
    int64_t reads = 0;
    run(func.body, values, sizes, reads);
    EXPECT_GE(reads, int64_t{m} * n * k) << knobs.dump();  // every product read
  }
}

// Bug caught: a depthwise conv fused into its consumer, its 28 output columns in two tiles of 16,
// kept a lane mask on every accumulator update of the edge tile (masked stores then loads of the
// local tile, each a failed store forward): the weight read, outside the padding select, was
// treated as if that select (which tests the lane) guarded it, so no corner was taken for the lane.
TEST(PadLocal, DepthwiseEdgeTilesAccumulateWithoutGuards) {
  Conv2dParams p{1, 4, 56, 56, 4, 3, 3};
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1;
  p.groups = 4;
  LoweredFunc func = lowered(conv2d_bias_relu(p).value(), "conv:tile_fuse(Y)",
                             {{"conv.n", {1, 1, 1, 1}}, {"conv.c", {4, 1, 1, 1}}, {"conv.h", {14, 1, 1, 2}},
                              {"conv.w", {2, 1, 1, 16}}, {"conv.r0", {1, 1}}, {"conv.r1", {1, 3}},
                              {"conv.r2", {1, 3}}, {"conv.parallel", 1}, {"conv.unroll", 512}});
  std::map<std::string, StoreCounts> stores;
  count_stores(func.body, false, stores);
  ASSERT_GT(stores["conv"].total, 0) << to_string(func);
  EXPECT_EQ(stores["conv"].guarded, 0) << to_string(func);
  EXPECT_GT(stores["Y"].guarded, 0) << to_string(func);  // the copy out still writes only columns < 28
  std::map<std::string, int64_t> sizes;
  for (const KernelArgument& a : func.arguments) sizes[a.name] = a.size;
  RangeMap values;
  int64_t reads = 0;
  run(func.body, values, sizes, reads);
  EXPECT_GE(reads, int64_t{4} * 28 * 28 * 9);
}

// Bug caught: a guard around a store to a global buffer must stay (dropping it writes past C).
TEST(PadLocal, InPlaceTilesKeepTheirGuards) {
  LoweredFunc func = lowered(matmul(67, 250, 67).value(), "C:tile", kPaddedTiles);
  std::map<std::string, StoreCounts> stores;
  count_stores(func.body, false, stores);
  EXPECT_GT(stores["C"].guarded, 0) << to_string(func);
}

// Bug caught: a read under a select whose condition tests a loop the read's index does not use
// ran at that loop's corner, where the select would not have let it run: here A[i - 1] is read
// only where i + j >= 10, which inside the guard j < 10 means i >= 1; with j taken at 0 for the
// padded slots (j >= 10) the guard seemed to hold at i = 0 and A[-1] was read.
TEST(PadLocal, ReadsUnderASelectKeepTheSelectsLoopsAsTheyAre) {
  Expr i = var("i"), j = var("j");
  Stmt store = make_store("L", i * 16 + j, select(i + j >= 10, load("A", {i - 1}), float_imm(0.0)));
  Stmt nest = make_allocate("L", 64, DType::kFloat32, StorageScope::kLocal,
                            make_for(i, 4, ForKind::kSerial, make_for(j, 16, ForKind::kSerial, make_if(j < 10, store))));
  Stmt padded = pad_local_guards(nest);
  std::map<std::string, StoreCounts> stores;
  count_stores(padded, false, stores);
  EXPECT_EQ(stores["L"].guarded, 0) << to_string(padded);  // the guard still moved onto the read
  std::map<std::string, int64_t> sizes{{"A", 3}};
  RangeMap values;
  int64_t reads = 0;
  run(padded, values, sizes, reads);
  EXPECT_GT(reads, 0);
}

}  // namespace

// The default rule's register block (runtime/default_schedule.cc) where the rows have no
// divisor that fits it but 1 (a prime row count such as ViT's 197 tokens): rows whose knob has
// ceil tiles take one; elsewhere the vector widens to the accumulators instead of leaving one
// row of two registers, and the rows stream through each chunk of the panel. Row counts that
// do fill the block keep their rows and their order; rows whose only small divisor is 2 take a
// vector of four registers; a batch's prime rows take ceil tiles rather than rows across the
// batch. Sized for both cores the rule knows (AVX2's 8 lanes, AVX-512's 16), and the new
// blocks compiled against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit_test_util.h"
#include "runtime/default_schedule.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

const runtime::CoreShape kAvx2{8, int64_t{512} << 10};
const runtime::CoreShape kAvx512{16, int64_t{1} << 20};

// The rule's candidate of sketch `id` for `dag` on `core` (empty, and a failure, where none).
runtime::ScheduleChoice default_of(const schedule::ComputeDAG& dag, const runtime::CoreShape& core,
                                   const std::string& id = "dense:packed:tile_fuse(Y)") {
  const auto choices = runtime::default_schedules(dag, core);
  auto it = std::find_if(choices.begin(), choices.end(), [&](const runtime::ScheduleChoice& c) { return c.sketch == id; });
  EXPECT_NE(it, choices.end()) << "no default of sketch " << id;
  return it == choices.end() ? runtime::ScheduleChoice{} : *it;
}

struct RowsLanes {
  int64_t rows = 0, lanes = 0;       // the innermost factors of the row and vector tiles
  std::vector<int64_t> row_tiles;    // the row axis's factors, outer to inner
  std::vector<int64_t> reduce_tiles; // the reduction's (outer, inner)
};

RowsLanes block_of(const runtime::ScheduleChoice& choice) {
  RowsLanes b;
  if (choice.knobs.contains("dense.i")) {
    b.row_tiles = choice.knobs["dense.i"].get<std::vector<int64_t>>();
    b.rows = b.row_tiles.back();
  }
  if (choice.knobs.contains("dense.j")) b.lanes = choice.knobs["dense.j"].back().get<int64_t>();
  if (choice.knobs.contains("dense.r0")) b.reduce_tiles = choice.knobs["dense.r0"].get<std::vector<int64_t>>();
  return b;
}

// 197 rows: the largest divisor within AVX2's 4-row budget is 1. Before the widening the block
// was 1 row of 16 lanes (2 registers, 2 FMA chains); it fails if the vector stays that narrow,
// or if the rows stay outside the reduction's 64-step chunks (tile level 2 is inside them).
TEST(DefaultBlock, PrimeRowCountWidensTheVector) {
  auto dag = schedule::dense_bias(197, 768, 768);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  for (const runtime::CoreShape& core : {kAvx2, kAvx512}) {
    SCOPED_TRACE("register floats " + std::to_string(core.register_floats));
    const runtime::ScheduleChoice choice = default_of(*dag, core);
    const RowsLanes b = block_of(choice);
    EXPECT_EQ(b.rows, 1) << choice.knobs.dump();
    EXPECT_EQ(b.lanes, 64) << choice.knobs.dump();  // 8 AVX2 registers; 4 AVX-512 ones (the knob's widest)
    EXPECT_EQ(b.row_tiles, (std::vector<int64_t>{1, 1, 197, 1})) << choice.knobs.dump();
    EXPECT_EQ(b.reduce_tiles, (std::vector<int64_t>{12, 64})) << choice.knobs.dump();
  }
}

// 192 rows fill the block with rows (4 on AVX2, 12 on AVX-512): the vector stays at two
// registers. Fails if the widening also takes blocks whose rows already fill them.
TEST(DefaultBlock, RowsThatFillTheBlockKeepTheirVector) {
  auto dag = schedule::dense_bias(192, 768, 768);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  for (const runtime::CoreShape& core : {kAvx2, kAvx512}) {
    SCOPED_TRACE("register floats " + std::to_string(core.register_floats));
    const runtime::ScheduleChoice choice = default_of(*dag, core);
    const RowsLanes b = block_of(choice);
    EXPECT_EQ(b.lanes, 2 * core.register_floats) << choice.knobs.dump();
    EXPECT_GT(b.rows, 1) << choice.knobs.dump();
    ASSERT_EQ(b.row_tiles.size(), 4u);
    EXPECT_EQ(b.row_tiles[2], 1) << choice.knobs.dump();  // not streamed
  }
}

// The widened block computes the reference's answer: 13 rows (prime) by 128 columns in two
// 64-lane tiles per row. Compiled for the machine the test runs on, whatever its vectors.
TEST(DefaultBlock, WidenedBlockMatchesTheReference) {
  auto dag = schedule::dense_bias(13, 128, 96);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const runtime::ScheduleChoice choice = default_of(*dag, kAvx2);
  EXPECT_EQ(block_of(choice).lanes, 64) << choice.knobs.dump();
  EXPECT_TRUE(MatchesReference(*dag, choice.steps)) << choice.knobs.dump();
}

// The generic sketch's row knobs take ceil tiles (schedule/knobs.h), so its 197 rows become 50
// tiles of 4 (the last padded) by 16 lanes: 8 accumulators, as at 196 rows, instead of the one
// row a divisor allows. Fails if the rule keeps to divisors there (rows [197, 1, 1, 1]).
TEST(DefaultBlock, PrimeRowCountTakesACeilTileWhereTheKnobHasOne) {
  auto dag = schedule::matmul(197, 197, 64);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const runtime::ScheduleChoice generic = default_of(*dag, kAvx2, "C:tile_cache");
  ASSERT_TRUE(generic.knobs.contains("C.i"));
  const auto rows = generic.knobs["C.i"].get<std::vector<int64_t>>();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows.back(), 4) << generic.knobs.dump();
  EXPECT_EQ(rows[0] * rows[1] * rows[2] * rows[3], 200) << generic.knobs.dump();
  EXPECT_EQ(generic.knobs["C.j"].back().get<int64_t>(), 16) << generic.knobs.dump();
}

// A ceil row tile computes the reference's answer: 13 rows as 4 tiles of 4, 40 columns as 3
// vectors of 16 (both edges padded), on the machine the test runs on.
TEST(DefaultBlock, CeilRowTileMatchesTheReference) {
  auto dag = schedule::matmul(13, 40, 24);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const runtime::ScheduleChoice generic = default_of(*dag, kAvx2, "C:tile_cache");
  ASSERT_TRUE(generic.knobs.contains("C.i"));
  EXPECT_EQ(generic.knobs["C.i"].back().get<int64_t>(), 4) << generic.knobs.dump();
  EXPECT_TRUE(MatchesReference(*dag, generic.steps)) << generic.knobs.dump();
}

// 50 rows (CLIP's tokens): within AVX2's 4-row budget of a two-register vector their largest
// divisor is 2 (4 registers), and a one-register vector takes 5 rows (5 registers); a vector of
// four registers by 2 rows fills all 8. Fails if the rule keeps to two- and one-register vectors
// (5 rows of 8 lanes). On AVX-512 the two-register vector's 10 rows fill as many registers (20)
// as four registers' 5 rows would, so there it must not change: fails if the wider vector
// displaces a block that is as full.
TEST(DefaultBlock, RowsOfTwoFillTheBlockWithAWiderVector) {
  auto dag = schedule::dense_bias(50, 768, 768);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const RowsLanes avx2 = block_of(default_of(*dag, kAvx2));
  EXPECT_EQ(avx2.rows, 2);
  EXPECT_EQ(avx2.lanes, 32);
  const RowsLanes avx512 = block_of(default_of(*dag, kAvx512));
  EXPECT_EQ(avx512.rows, 10);
  EXPECT_EQ(avx512.lanes, 32);
}

// Attention's per-head products at 197 tokens (a batch of 12): the rows (tokens) are prime and
// the batch axis has divisors, but each head's rows would load a vector of their own, so the
// token rows take a ceil tile of 4 where the knob has one, sharing one vector of 16 lanes, and
// the heads take none. Fails on the rule before it, which gave one token row by a wide vector
// (rows [197, 1, 1, 1], 32 lanes), or if the heads still take rows.
TEST(DefaultBlock, BatchedPrimeRowsTakeACeilTileOverTheBatch) {
  for (const auto& [n, k] : {std::pair<int64_t, int64_t>{64, 197}, {197, 64}}) {
    auto dag = schedule::batch_matmul(12, 197, n, k);
    ASSERT_TRUE(dag.ok()) << dag.error().message;
    SCOPED_TRACE(dag->summary());
    const runtime::ScheduleChoice generic = default_of(*dag, kAvx2, "C:tile_cache");
    // The batch matmul's axes: i the heads, j the rows (tokens), k the columns.
    ASSERT_TRUE(generic.knobs.contains("C.i") && generic.knobs.contains("C.j") && generic.knobs.contains("C.k"))
        << generic.knobs.dump();
    EXPECT_EQ(generic.knobs["C.j"].back().get<int64_t>(), 4) << generic.knobs.dump();
    EXPECT_EQ(generic.knobs["C.i"].back().get<int64_t>(), 1) << generic.knobs.dump();
    EXPECT_EQ(generic.knobs["C.k"].back().get<int64_t>(), 16) << generic.knobs.dump();
  }
}

// Both new blocks compute the reference's answer on the machine the test runs on: a batch of 3
// products of 13 (prime) rows in ceil tiles, and 10 rows as 2 by 32 lanes.
TEST(DefaultBlock, BatchedCeilRowsAndWideVectorMatchTheReference) {
  auto batched = schedule::batch_matmul(3, 13, 40, 24);
  ASSERT_TRUE(batched.ok()) << batched.error().message;
  const runtime::ScheduleChoice generic = default_of(*batched, kAvx2, "C:tile_cache");
  ASSERT_TRUE(generic.knobs.contains("C.j"));
  EXPECT_EQ(generic.knobs["C.j"].back().get<int64_t>(), 4) << generic.knobs.dump();
  EXPECT_TRUE(MatchesReference(*batched, generic.steps)) << generic.knobs.dump();
  auto dense = schedule::dense_bias(10, 64, 48);
  ASSERT_TRUE(dense.ok()) << dense.error().message;
  const runtime::ScheduleChoice wide = default_of(*dense, kAvx2);
  EXPECT_EQ(block_of(wide).lanes, 32) << wide.knobs.dump();
  EXPECT_TRUE(MatchesReference(*dense, wide.steps)) << wide.knobs.dump();
}

}  // namespace
}  // namespace tessera::testing

// evaluate_int: index and guard expressions evaluated at one point of the loops (the LLVM
// backend's test of where a masked read may point, runtime/llvm/emit_expr.cc).
#include <gtest/gtest.h>

#include "schedule/evaluate_int.h"

namespace tessera::schedule {
namespace {

// Bug caught: C++'s truncating `/` and `%` in place of the floor semantics ExprKind promises
// (a padded read one row above the image, index -5 in rows of 4, lands in row -2, not -1).
TEST(EvaluateInt, DividesAndTakesRemaindersByTheFloor) {
  Expr i = var("i");
  EXPECT_EQ(evaluate_int(i / 4, {{i.get(), -5}}), -2);
  EXPECT_EQ(evaluate_int(i % 4, {{i.get(), -5}}), 3);
  EXPECT_EQ(evaluate_int(i / 4, {{i.get(), 7}}), 1);
  EXPECT_EQ(evaluate_int(i % 4, {{i.get(), 7}}), 3);
  Expr zero = var("zero");
  EXPECT_EQ(evaluate_int(i / zero, {{i.get(), 7}, {zero.get(), 0}}), std::nullopt);
}

// The guard of a padded read and the index it points at, at a border and inside.
// Bug caught: a comparison or conjunction that evaluates the wrong way round (a border read
// taken for an inside one, so its select is left out), or a select that takes the wrong arm.
TEST(EvaluateInt, EvaluatesGuardsIndicesAndSelects) {
  Expr row = var("row"), col = var("col");
  Expr inside = (Expr(0) <= row - 1) && (row - 1 < 4) && (Expr(0) <= col - 1) && (col - 1 < 4);
  Expr index = ((row - 1) * 4 + (col - 1)) * 8;
  EXPECT_EQ(evaluate_int(inside, {{row.get(), 0}, {col.get(), 2}}), 0);
  EXPECT_EQ(evaluate_int(index, {{row.get(), 0}, {col.get(), 2}}), -24);
  EXPECT_EQ(evaluate_int(inside, {{row.get(), 2}, {col.get(), 2}}), 1);
  EXPECT_EQ(evaluate_int(index, {{row.get(), 2}, {col.get(), 2}}), 40);
  EXPECT_EQ(evaluate_int(!inside, {{row.get(), 2}, {col.get(), 2}}), 0);
  EXPECT_EQ(evaluate_int(min(row, col) + max(row, col), {{row.get(), 3}, {col.get(), 9}}), 12);
  EXPECT_EQ(evaluate_int(select(row < 2, row, col), {{row.get(), 3}, {col.get(), 9}}), 9);
}

// Bug caught: a variable the point does not give read as 0 (the read would be judged at a
// point of the loops that is not there), or a load's value taken for an index.
TEST(EvaluateInt, IsUnknownWhereThePointGivesNoValue) {
  Expr i = var("i"), j = var("j");
  EXPECT_EQ(evaluate_int(i + j, {{i.get(), 1}}), std::nullopt);
  Expr namesake = var("i");
  EXPECT_EQ(evaluate_int(namesake, {{i.get(), 1}}), std::nullopt);
  EXPECT_EQ(evaluate_int(load("A", {i}) * 2.0, {{i.get(), 1}}), std::nullopt);
}

}  // namespace
}  // namespace tessera::schedule

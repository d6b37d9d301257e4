// simplify(), bound(), linear_coefficient() and extreme_corner() from schedule/simplify.h, plus substitute() and
// to_string() from schedule/expr.h: constant folding with floor semantics, canonical linear
// forms, range-driven div/mod and comparison resolution, and expression printing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "schedule/expr.h"
#include "schedule/simplify.h"

namespace {

using namespace tessera::schedule;

// The value of an integer (or bool) constant; fails the test when `e` is not one.
int64_t const_value(const Expr& e) {
  int64_t v = 0;
  EXPECT_TRUE(is_const_int(e, &v)) << "not a constant: " << to_string(e);
  return v;
}

RangeMap ranges_of(std::initializer_list<std::pair<Expr, Interval>> entries) {
  RangeMap ranges;
  for (const auto& [v, r] : entries) ranges.emplace_back(v.get(), r);
  return ranges;
}

TEST(SimplifyTest, FoldsIntegerConstants) {
  EXPECT_EQ(const_value(simplify(Expr(3) + Expr(4))), 7);
  EXPECT_EQ(const_value(simplify(Expr(3) * Expr(5) - Expr(2))), 13);
  EXPECT_EQ(const_value(simplify(min(Expr(3), Expr(9)))), 3);
  EXPECT_EQ(const_value(simplify(max(Expr(3), Expr(9)))), 9);
  EXPECT_EQ(const_value(simplify((Expr(2) + Expr(6)) / Expr(4))), 2);
}

TEST(SimplifyTest, FoldsWithFloorSemantics) {
  EXPECT_EQ(const_value(simplify(Expr(-7) / Expr(2))), -4);
  EXPECT_EQ(const_value(simplify(Expr(-7) % Expr(2))), 1);
  EXPECT_EQ(const_value(simplify(Expr(7) / Expr(2))), 3);
  EXPECT_EQ(const_value(simplify(Expr(7) % Expr(2))), 1);
  EXPECT_EQ(const_value(simplify(Expr(-1) % Expr(8))), 7);
  EXPECT_EQ(const_value(simplify(Expr(-8) / Expr(2))), -4);
  EXPECT_EQ(const_value(simplify(Expr(-8) % Expr(4))), 0);
}

TEST(SimplifyTest, FoldsBooleansAndFloats) {
  Expr t = simplify(Expr(1) < Expr(2));
  EXPECT_EQ(t->dtype, DType::kBool);
  EXPECT_EQ(const_value(t), 1);
  Expr f = simplify(!(Expr(1) < Expr(2)));
  EXPECT_EQ(f->dtype, DType::kBool);
  EXPECT_EQ(const_value(f), 0);

  Expr product = simplify(Expr(1.5) * Expr(2.0));
  ASSERT_EQ(product->kind, ExprKind::kFloatImm);
  EXPECT_DOUBLE_EQ(product->float_value, 3.0);
  Expr x = load("X", {var("i")});
  EXPECT_TRUE(simplify(x + Expr(0.0)).same_as(x));
  EXPECT_TRUE(simplify(Expr(1.0) * x).same_as(x));
  EXPECT_FALSE(simplify(x * Expr(2.0)).same_as(x));
}

TEST(SimplifyTest, LinearFormMergesTerms) {
  Expr i = var("i"), j = var("j");
  // (i*4 + j) - i*4 is exactly j: the very same variable node, not a copy.
  EXPECT_TRUE(simplify((i * 4 + j) - i * 4).same_as(j));
  EXPECT_EQ(const_value(simplify(i * 3 - i * 3)), 0);
  EXPECT_EQ(to_string(simplify(i + i)), "(i*2)");
  EXPECT_EQ(to_string(simplify(Expr(2) * (i + 1) - 2)), "(i*2)");
  EXPECT_EQ(to_string(simplify(j + i * 2 + j)), "((j*2) + (i*2))");
  EXPECT_EQ(to_string(simplify(i - j - 5)), "((i - j) - 5)");
  // Non-linear atoms that are structurally equal still cancel.
  EXPECT_EQ(const_value(simplify(i / 4 - i / 4)), 0);
  // A different variable with the same name is a different atom.
  Expr other_i = var("i");
  EXPECT_EQ(to_string(simplify(i - other_i)), "(i - i)");
}

// A sum already in canonical form comes back as the very same node; any other tree is rebuilt.
// Bug caught: the canonical-form check accepting a tree that differs from the canonical one
// (a constant on the left, a negative constant added, a product by 1, a sign on the wrong side),
// so that simplify returns it unsimplified.
TEST(SimplifyTest, ACanonicalSumComesBackAsItself) {
  Expr i = var("i"), j = var("j"), k = var("k");
  for (const Expr& e : {i * 4 + j - 3 + k * 2, Expr(0) - i * 2 + j, j - i + 7, i * 3}) {
    Expr canonical = simplify(e);
    EXPECT_TRUE(simplify(canonical).same_as(canonical)) << to_string(canonical);
  }
  EXPECT_EQ(to_string(simplify(Expr(3) + i)), "(i + 3)");
  EXPECT_EQ(to_string(simplify(i + Expr(-3))), "(i - 3)");
  EXPECT_EQ(to_string(simplify(i - Expr(-3))), "(i + 3)");
  EXPECT_TRUE(simplify(i * 1).same_as(i));
  EXPECT_EQ(to_string(simplify(i * 1 + j)), "(i + j)");
  EXPECT_EQ(to_string(simplify(j * -1 + i)), "((0 - j) + i)");
}

TEST(SimplifyTest, ResolvesDivModWithRanges) {
  Expr i0 = var("i.0"), i1 = var("i.1");
  RangeMap ranges = ranges_of({{i0, {0, 15}}, {i1, {0, 7}}});
  EXPECT_TRUE(simplify((i0 * 8 + i1) / 8, ranges).same_as(i0));
  EXPECT_TRUE(simplify((i0 * 8 + i1) % 8, ranges).same_as(i1));
  // Constant offsets move between quotient and remainder.
  EXPECT_EQ(const_value(simplify((i1 + 8) / 8, ranges)), 1);
  EXPECT_TRUE(simplify((i1 + 8) % 8, ranges).same_as(i1));
  EXPECT_EQ(const_value(simplify((i1 - 8) / 8, ranges)), -1);
  EXPECT_TRUE(simplify((i1 - 8) % 8, ranges).same_as(i1));
  // The example of simplify.h: ((i.0*8 + i.1)*64 + j) / 64 -> i.0*8 + i.1.
  Expr j = var("j");
  ranges.emplace_back(j.get(), Interval{0, 63});
  EXPECT_EQ(to_string(simplify(((i0 * 8 + i1) * 64 + j) / 64, ranges)), "((i.0*8) + i.1)");
  EXPECT_TRUE(simplify(((i0 * 8 + i1) * 64 + j) % 64, ranges).same_as(j));
  // A quotient that resolves to a sum joins the sum around it, whose terms then cancel.
  EXPECT_EQ(const_value(simplify(((i0 * 8 + i1) * 64 + j) / 64 - i1 - i0 * 8, ranges)), 0);
  EXPECT_EQ(to_string(simplify(Expr(3) * (((i0 * 8 + i1) * 64 + j) / 64) - i0 * 24, ranges)), "(i.1*3)");
}

TEST(SimplifyTest, KeepsDivModTheRangesDoNotDecide) {
  Expr i0 = var("i.0"), i1 = var("i.1");
  // Without ranges the remainder is unbounded: only the exact quotient part comes out.
  EXPECT_EQ(to_string(simplify((i0 * 8 + i1) / 8)), "(i.0 + (i.1/8))");
  EXPECT_EQ(to_string(simplify((i0 * 8 + i1) % 8)), "(i.1 % 8)");
  // i.1 + 3 in [3, 10] straddles a multiple of 8.
  RangeMap wide = ranges_of({{i1, {0, 7}}});
  EXPECT_EQ(to_string(simplify((i1 + 3) / 8, wide)), "((i.1 + 3)/8)");
  RangeMap narrow = ranges_of({{i1, {0, 4}}});
  EXPECT_EQ(const_value(simplify((i1 + 3) / 8, narrow)), 0);
  // Division by a non-positive constant is left alone.
  Expr d = simplify(i0 / Expr(-2));
  EXPECT_EQ(d->kind, ExprKind::kDiv);
}

TEST(SimplifyTest, UndoesFuseThenSplit) {
  // Fuse i (16) and j (8) into f (128): i = f / 8, j = f % 8. Then split f by 8.
  Expr f = var("i@j");
  Expr i_of_f = f / 8, j_of_f = f % 8;
  Expr f0 = var("i@j.0"), f1 = var("i@j.1");
  VarMap split{{f.get(), f0 * 8 + f1}};
  RangeMap ranges = ranges_of({{f0, {0, 15}}, {f1, {0, 7}}});
  EXPECT_TRUE(simplify(substitute(i_of_f, split), ranges).same_as(f0));
  EXPECT_TRUE(simplify(substitute(j_of_f, split), ranges).same_as(f1));

  // Split f by [2, 4] instead: f = (f0*2 + f1)*4 + f2.
  Expr g0 = var("g.0"), g1 = var("g.1"), g2 = var("g.2");
  VarMap split3{{f.get(), (g0 * 2 + g1) * 4 + g2}};
  RangeMap ranges3 = ranges_of({{g0, {0, 15}}, {g1, {0, 1}}, {g2, {0, 3}}});
  EXPECT_TRUE(simplify(substitute(i_of_f, split3), ranges3).same_as(g0));
  EXPECT_EQ(to_string(simplify(substitute(j_of_f, split3), ranges3)), "((g.1*4) + g.2)");
}

TEST(SimplifyTest, RangesDecideComparisons) {
  Expr i = var("i"), j = var("j");
  RangeMap ranges = ranges_of({{i, {0, 15}}, {j, {0, 7}}});
  auto is_bool = [](const Expr& e, bool value) {
    int64_t v;
    return e->dtype == DType::kBool && is_const_int(e, &v) && v == (value ? 1 : 0);
  };
  EXPECT_TRUE(is_bool(simplify(i < 16, ranges), true));
  EXPECT_TRUE(is_bool(simplify(i >= 0, ranges), true));
  EXPECT_TRUE(is_bool(simplify(i > 20, ranges), false));
  EXPECT_TRUE(is_bool(simplify(i <= 15, ranges), true));
  EXPECT_TRUE(is_bool(simplify(eq(i * 2 + 1, 0), ranges), false));
  EXPECT_TRUE(is_bool(simplify(ne(i * 2 + 1, 0), ranges), true));
  EXPECT_TRUE(is_bool(simplify(i * 8 + j < 128, ranges), true));
  // Undecided comparisons stay comparisons.
  Expr open = simplify(i < 15, ranges);
  EXPECT_EQ(open->kind, ExprKind::kLT);
  EXPECT_EQ(simplify(i * 8 + j < 100, ranges)->kind, ExprKind::kLT);
  // Unknown variables decide nothing.
  Expr k = var("k");
  EXPECT_EQ(simplify(k < 16, ranges)->kind, ExprKind::kLT);
  // ...unless they cancel: k * k is on both sides (fails if a cancelled term, unbounded, still
  // counts in the difference's bound).
  EXPECT_TRUE(is_bool(simplify(k * k + i < k * k + 16, ranges), true));
  // A decided conjunct disappears from a conjunction.
  EXPECT_EQ(to_string(simplify((i < 16) && (j < 3), ranges)), "(j < 3)");
  EXPECT_TRUE(is_bool(simplify((i < 16) && (j < 8), ranges), true));
  EXPECT_TRUE(is_bool(simplify((i > 20) && (j < 3), ranges), false));
  // select with a decided condition picks a side.
  Expr a = load("A", {i}), b = load("B", {i});
  EXPECT_TRUE(simplify(select(i < 16, a, b), ranges).same_as(a));
}

TEST(BoundTest, IntervalsOfIntegerExpressions) {
  Expr i = var("i"), j = var("j"), k = var("k");
  RangeMap ranges = ranges_of({{i, {0, 15}}, {j, {0, 7}}});
  auto expect = [&](const Expr& e, int64_t lo, int64_t hi) {
    Interval b = bound(e, ranges);
    EXPECT_TRUE(b.bounded()) << to_string(e);
    EXPECT_EQ(b.min, lo) << to_string(e);
    EXPECT_EQ(b.max, hi) << to_string(e);
  };
  expect(i, 0, 15);
  expect(Expr(5), 5, 5);
  expect(i * 4 + 3, 3, 63);
  expect(i - j, -7, 15);
  expect(i * -2, -30, 0);
  expect(i / 4, 0, 3);
  expect(i % 4, 0, 3);
  expect(i % 32, 0, 15);
  expect(min(i, Expr(5)), 0, 5);
  expect(max(i, j + 10), 10, 17);
  expect(Expr(-7) / Expr(2), -4, -4);
  expect(i * 8 + j, 0, 127);
  EXPECT_FALSE(bound(k, ranges).bounded());
  EXPECT_FALSE(bound(i + k, ranges).bounded());
  EXPECT_FALSE(bound(i / k, ranges).bounded());
  // A modulo bounds even an unknown dividend.
  Interval m = bound(k % 8, ranges);
  EXPECT_EQ(m.min, 0);
  EXPECT_EQ(m.max, 7);
}

TEST(LinearCoefficientTest, RecognisesAccessPatterns) {
  Expr i = var("i"), j = var("j"), k = var("k");
  int64_t c = -1;
  ASSERT_TRUE(linear_coefficient(i * 64 + j, j.get(), &c));
  EXPECT_EQ(c, 1);  // contiguous
  ASSERT_TRUE(linear_coefficient(i * 64 + j, i.get(), &c));
  EXPECT_EQ(c, 64);
  ASSERT_TRUE(linear_coefficient(i * 64, j.get(), &c));
  EXPECT_EQ(c, 0);  // broadcast
  ASSERT_TRUE(linear_coefficient(j * 3 + i, j.get(), &c));
  EXPECT_EQ(c, 3);  // strided
  ASSERT_TRUE(linear_coefficient(i + i * 2 + k, i.get(), &c));
  EXPECT_EQ(c, 3);  // terms merge
  EXPECT_FALSE(linear_coefficient(i / 4, i.get(), &c));  // not affine in i
  EXPECT_FALSE(linear_coefficient(j * j, j.get(), &c));
  EXPECT_FALSE(linear_coefficient(k + i % 8, i.get(), &c));
  // i * j cancels, so the form is affine in i (fails if the cancelled term is kept and read as
  // a product with i).
  ASSERT_TRUE(linear_coefficient(i + i * j - i * j, i.get(), &c));
  EXPECT_EQ(c, 1);
}

// Bugs caught: a corner taken by the wrong sign (a padding guard that skips points inside the
// image, a hoisted guard that holds at one corner only), an unused variable bound, a non-linear
// expression given a corner.
TEST(ExtremeCornerTest, EachVariableAtTheEndItsCoefficientPicks) {
  Expr i = var("i"), j = var("j"), k = var("k");
  const LoopBox box = {{i.get(), 4}, {j.get(), 8}, {k.get(), 16}};
  const Expr e = i * 2 - j;  // does not use k
  auto largest = extreme_corner(e, box, true);
  ASSERT_TRUE(largest);
  ASSERT_EQ(largest->size(), 2u);
  int64_t v = 0;
  ASSERT_TRUE(is_const_int(simplify(substitute(e, *largest)), &v));
  EXPECT_EQ(v, 6);  // i = 3, j = 0
  auto smallest = extreme_corner(e, box, false);
  ASSERT_TRUE(smallest);
  ASSERT_TRUE(is_const_int(simplify(substitute(e, *smallest)), &v));
  EXPECT_EQ(v, -7);  // i = 0, j = 7
  EXPECT_FALSE(extreme_corner(i * j, box, true));
}

TEST(SubstituteTest, ReplacesVariablesByIdentity) {
  Expr i = var("i"), j = var("j"), k = var("k");
  Expr e = i * 4 + j;
  Expr replaced = substitute(e, {{i.get(), k + 1}});
  EXPECT_EQ(to_string(replaced), "(((k + 1)*4) + j)");
  EXPECT_EQ(to_string(e), "((i*4) + j)");  // the original is untouched
  EXPECT_EQ(to_string(simplify(replaced)), "(((k*4) + j) + 4)");
  EXPECT_TRUE(substitute(e, {}).same_as(e));
  // A variable that merely shares the name is not replaced.
  Expr namesake = var("i");
  EXPECT_TRUE(substitute(e, {{namesake.get(), Expr(0)}}).same_as(e));
  // Substitution reaches load indices.
  Expr l = load("A", {i * 4 + j});
  EXPECT_EQ(to_string(substitute(l, {{j.get(), Expr(2)}})), "A[((i*4) + 2)]");
  EXPECT_TRUE(uses_var(e, i.get()));
  EXPECT_FALSE(uses_var(replaced, i.get()));
}

TEST(ExprPrintTest, PrintsLoadsAndOperators) {
  Expr i = var("i"), j = var("j"), k = var("k");
  EXPECT_EQ(to_string(load("A", {i * 1024 + k})), "A[((i*1024) + k)]");
  EXPECT_EQ(to_string(load("B", {i, j})), "B[i, j]");
  EXPECT_EQ(to_string(float_imm(0.5)), "0.5f");
  EXPECT_EQ(to_string(exp(load("X", {i}))), "exp(X[i])");
  EXPECT_EQ(to_string(i + 1.5), "(float32(i) + 1.5f)");
  EXPECT_EQ(to_string(select(i < 4, load("A", {i}), Expr(0.0))), "select((i < 4), A[i], 0f)");
  EXPECT_EQ(to_string(i % 8), "(i % 8)");
  EXPECT_EQ(to_string(min(i, j)), "min(i, j)");
  EXPECT_EQ(to_string(Expr()), "<undefined>");
  Expr l = load("A", {i, j});
  EXPECT_EQ(l->kind, ExprKind::kLoad);
  EXPECT_EQ(l->name, "A");
  EXPECT_EQ(l->dtype, DType::kFloat32);
  EXPECT_TRUE(contains_load(l * 2.0));
  EXPECT_FALSE(contains_load(i * 2));
}

}  // namespace

// Padding skips (schedule/padding_skip.h): a padded conv's tap loops skip the blocks that read
// only padding, exactly those, and never test inside the register tile; with the padding
// inlined, the blocks that read none run a plain read, exactly those. The nests are walked
// iteration by iteration (vector lanes included) and the accumulating stores counted.
#include <gtest/gtest.h>

#include "nest_eval.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/state.h"

namespace tessera::schedule {
namespace {

using testing::eval;

// 6x6 NHWC input, 64 channels, 8 output channels, 3x3 taps, padding 1.
Conv2dParams padded_conv() {
  Conv2dParams p{1, 64, 6, 6, 8, 3, 3};
  p.pad_h = p.pad_w = 1;
  p.layout = Layout::kNHWC;
  return p;
}

struct Walk {
  int64_t updates = 0;          // stores to the conv buffer that ran
  int skips = 0;                // padding skips in the nest
  int skips_in_tile = 0;        // of those, inside a vectorized or unrolled loop
  int64_t plain_updates = 0;    // updates that ran reading the input without a select
};

bool has_select(const Expr& e) {
  if (e->kind == ExprKind::kSelect) return true;
  for (const Expr& o : e->operands) {
    if (has_select(o)) return true;
  }
  return false;
}

void walk(const Stmt& s, RangeMap& values, bool in_tile, Walk& out) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::kFor: {
      const bool tile = in_tile || s->for_kind == ForKind::kVectorized || s->for_kind == ForKind::kUnrolled;
      for (int64_t v = 0; v < s->extent; ++v) {
        values.insert(values.begin(), {s->loop_var.get(), Interval::point(v)});
        walk(s->body, values, tile, out);
        values.erase(values.begin());
      }
      return;
    }
    case StmtKind::kIfThenElse:
      walk(eval(s->condition, values) ? s->then_case : s->else_case, values, in_tile, out);
      return;
    case StmtKind::kAllocate: walk(s->body, values, in_tile, out); return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) walk(c, values, in_tile, out);
      return;
    case StmtKind::kStore:
      if (s->buffer == "conv" && contains_load(s->value)) {  // not the init
        ++out.updates;
        out.plain_updates += !has_select(s->value);
      }
      return;
  }
}

Walk run(const std::vector<Step>& steps) {
  auto dag = conv2d(padded_conv());
  EXPECT_TRUE(dag.ok()) << dag.error().message;
  State state(*dag);
  auto applied = state.apply_all(steps);
  EXPECT_TRUE(applied) << applied.error().message;
  auto func = lower(state, "kernel");
  EXPECT_TRUE(func) << func.error().message;
  Walk out;
  visit(func->body, [&](const StmtNode& n) { out.skips += n.kind == StmtKind::kIfThenElse && n.skips_padding; });
  std::function<void(const Stmt&, bool)> count_tile = [&](const Stmt& s, bool in_tile) {
    if (!s) return;
    if (s->kind == StmtKind::kIfThenElse && s->skips_padding && in_tile) ++out.skips_in_tile;
    const bool tile = in_tile || (s->kind == StmtKind::kFor && (s->for_kind == ForKind::kVectorized ||
                                                                s->for_kind == ForKind::kUnrolled));
    for (const Stmt& c : {s->body, s->then_case, s->else_case}) count_tile(c, tile);
    for (const Stmt& c : s->children) count_tile(c, tile);
  };
  count_tile(func->body, false);
  RangeMap values;
  walk(func->body, values, false, out);
  return out;
}

// The conv stage's loop names: axes n, oh, ow, k; reduce axes kh, kw, c.
std::vector<std::string> conv_axes() {
  auto dag = conv2d(padded_conv());
  State state(*dag);
  const TensorNode& conv = *state.stage(state.stage_index("conv")).op;
  std::vector<std::string> names;
  for (const Axis& a : conv.axes) names.push_back(a.name);
  for (const Axis& a : conv.reduce_axes) names.push_back(a.name);
  return names;
}

// Real taps per output row (or column) over the 6 of them: 3 each, less one at each border.
constexpr int64_t kRealTapsPerSide = 6 * 3 - 2;
constexpr int64_t kLanesTimesChannels = 8 * 64;

// The pad stage stays a buffer here (the skip reads its definition through the load).
// Bug caught: without the skips every tap of the border pixels runs (36 * 9 * 512 updates); a
// guard that skipped a block holding a real tap would count fewer than the real taps.
TEST(PaddingSkip, ConvRunsOnlyItsRealTapsWhenTheTapLoopsAreOutsideTheTile) {
  const auto a = conv_axes();  // n, oh, ow, k, kh, kw, c
  Walk w = run({ReorderStep{"conv", {a[0], a[1], a[2], a[4], a[5], a[6], a[3]}},
                AnnotateStep{"conv", a[3], "vectorize"}});
  EXPECT_GT(w.skips, 0);
  EXPECT_EQ(w.skips_in_tile, 0);
  EXPECT_EQ(w.updates, kRealTapsPerSide * kRealTapsPerSide * kLanesTimesChannels);
}

// Output rows unrolled inside the tap loops (around the channels): a block then holds all six rows, of which some
// read real input at every tap, so no row is skipped (and no test sits inside the tile); the
// columns, outside the tile, still are.
// Bug caught: a skip placed inside the unrolled rows (a branch per register-tile row), or one
// that skipped the whole block when only its first row was padding.
TEST(PaddingSkip, RowsInTheRegisterTileAreNeverSkippedOneByOne) {
  const auto a = conv_axes();
  Walk w = run({ComputeInlineStep{"pad"}, ReorderStep{"conv", {a[0], a[2], a[4], a[5], a[1], a[6], a[3]}},
                AnnotateStep{"conv", a[1], "unroll"}, AnnotateStep{"conv", a[3], "vectorize"}});
  EXPECT_EQ(w.skips_in_tile, 0);
  EXPECT_EQ(w.updates, 6 * 3 * kRealTapsPerSide * kLanesTimesChannels);
}

// Padding inlined, the output columns unrolled inside the taps: at kw = 0 the block of a row
// holds column 0, which reads the left border, and at kw = 2 column 5, which reads the right;
// only the kw = 1 blocks read no padding, and only they run the plain read.
// Bug caught: a test taken at the block's smallest corner (the plain read would run over the
// border: more plain updates), or no unswitch at all (none).
TEST(PaddingSkip, InlinedPaddingIsReadPlainlyExactlyWhereABlockReadsNone) {
  const auto a = conv_axes();  // n, oh, ow, k, kh, kw, c
  Walk w = run({ComputeInlineStep{"pad"}, ReorderStep{"conv", {a[0], a[1], a[4], a[5], a[6], a[2], a[3]}},
                AnnotateStep{"conv", a[2], "unroll"}, AnnotateStep{"conv", a[3], "vectorize"}});
  EXPECT_EQ(w.updates, kRealTapsPerSide * 3 * 6 * kLanesTimesChannels);
  EXPECT_EQ(w.plain_updates, kRealTapsPerSide * 1 * 6 * kLanesTimesChannels);
}

// Bug caught: a skip over a handful of statements (its test costs more than it saves), or an
// unswitch of blocks of one reduction step (kMinUnswitchedSteps: a depthwise conv's taps).
TEST(PaddingSkip, SmallBlocksAreNotTested) {
  const auto a = conv_axes();
  // Channels outermost of the taps: each (kh, kw) block is 8 lanes, under kMinSkippedSteps.
  Walk w = run({ComputeInlineStep{"pad"}, ReorderStep{"conv", {a[0], a[1], a[2], a[6], a[4], a[5], a[3]}},
                AnnotateStep{"conv", a[3], "vectorize"}});
  EXPECT_EQ(w.skips, 0);
  EXPECT_EQ(w.plain_updates, 0);
  EXPECT_EQ(w.updates, 36 * 9 * kLanesTimesChannels);
}

}  // namespace
}  // namespace tessera::schedule

// Winograd F(2x2, 3x3) convolution (Lavin & Gray 2016) as a ComputeDAG (see ops.h).
//
// A 3x3, stride-1 convolution computes each 2x2 block of outputs from a 4x4 tile of its
// input. In the Winograd domain that block costs 16 multiplies per (input, output channel)
// pair instead of 36: Y = A^T [ (G g G^T) . (B^T d B) ] A, the product elementwise. Summed over
// input channels, the 16 elementwise products become 16 independent matrix products, so the
// convolution is three stages:
//   winograd_input[e*4+f, p, c]  = (B^T d_p B)[e, f] for input tile p and channel c: each
//                                  value a signed sum of 4 input values (B has two non-zero
//                                  entries per row), the zero padding folded in;
//   winograd_gemm[e*4+f, p, k]   = sum over c of winograd_input[e*4+f, p, c] * U[e*4+f, c, k]:
//                                  16 matrix products, where the schedule's tiling rules do
//                                  the work they do for any matmul;
//   conv[n, oh, ow, k]           = (A^T m A) at the output's place in its 2x2 block: a signed
//                                  sum of 9 of the 16 products (A has three per row), an
//                                  elementwise stage that a network task's bias and relu
//                                  take in (the sketch inlines it into them).
// U = G g G^T, the weights in the Winograd domain, is a constant input: winograd_weights
// computes it once from the convolution's weights (in double precision), as a network computes
// constants at load. The multiplies drop 2.25x; the transforms add memory traffic, so the gain
// is largest where channels are many and the map is not tiny (ResNet-50's 14x14 and 28x28
// stages), and U holds 16/9 as many values as the weights it replaces.
#include <sstream>

#include "schedule/ops.h"

namespace tessera::schedule {
namespace {

using Exprs = std::vector<Expr>;

// Row e of B^T (4x4) as two signed taps of a 4-vector d: (B^T d)[e] = d[first(e)] +
// second_sign(e) * d[second(e)]. B^T = [[1,0,-1,0], [0,1,1,0], [0,-1,1,0], [0,1,0,-1]].
Expr first_tap(const Expr& e) { return select(eq(e, Expr(3)), Expr(1), e); }
Expr second_tap(const Expr& e) { return select(eq(e, Expr(2)), Expr(1), select(eq(e, Expr(3)), Expr(3), Expr(2))); }
Expr second_sign(const Expr& e) { return select(eq(e, Expr(1)), float_imm(1.0), float_imm(-1.0)); }

// A^T (2x4) = [[1,1,1,0], [0,1,-1,-1]]: output i of a block reads products e = a + i for a in
// 0..2, the first (a = 0) added and the other two with one sign, -1 exactly when i = 1.
Expr later_sign(const Expr& i) { return select(eq(i, Expr(1)), float_imm(-1.0), float_imm(1.0)); }

}  // namespace

int64_t winograd_tiles(int64_t out_extent) { return (out_extent + 1) / 2; }

Result<Tensor> conv2d_winograd_compute(const Tensor& x, const Tensor& u, const Conv2dParams& p) {
  if (p.layout != Layout::kNHWC) return make_error("conv2d_winograd: layout must be NHWC");
  if (p.kernel_h != 3 || p.kernel_w != 3) {
    return make_error("conv2d_winograd: kernel (" + std::to_string(p.kernel_h) + "x" + std::to_string(p.kernel_w) +
                      ") must be 3x3");
  }
  if (p.stride_h != 1 || p.stride_w != 1 || p.dilation_h != 1 || p.dilation_w != 1 || p.groups != 1) {
    return make_error("conv2d_winograd: stride, dilation and groups must be 1");
  }
  int64_t out_h = 0, out_w = 0;  // the rest (positive extents, an output left) as any conv
  if (auto valid = validate_conv2d(p, &out_h, &out_w); !valid) return valid.error();
  const int64_t tiles_h = winograd_tiles(out_h), tiles_w = winograd_tiles(out_w);
  const int64_t tiles = p.batch * tiles_h * tiles_w, c = p.in_channels, k = p.out_channels;
  if (x->shape != std::vector<int64_t>{p.batch, p.height, p.width, c}) {
    return make_error("conv2d_winograd: input '" + x->name + "' does not have the parameters' NHWC shape");
  }
  if (u->shape != std::vector<int64_t>{kWinogradPoints, c, k}) {
    return make_error("conv2d_winograd: weights '" + u->name + "' are not [16, C, K] (winograd_weights)");
  }

  // Input tile p's row and column origins in the unpadded input.
  auto tile_n = [&](const Expr& t) { return t / Expr(tiles_h * tiles_w); };
  auto tile_row = [&](const Expr& t) { return (t / Expr(tiles_w)) % Expr(tiles_h) * Expr(2) - Expr(p.pad_h); };
  auto tile_col = [&](const Expr& t) { return t % Expr(tiles_w) * Expr(2) - Expr(p.pad_w); };
  auto input_at = [&](const Expr& n, const Expr& row, const Expr& col, const Expr& ch) {
    Expr inside = row >= Expr(0) && row < Expr(p.height) && col >= Expr(0) && col < Expr(p.width);
    return select(inside, x(n, row, col, ch), float_imm(0.0));
  };
  // Reduction axis t (0..3) picks one of the four signed taps of B^T d B: row tap t / 2,
  // column tap t % 2.
  Tensor input = reduce("winograd_input", {kWinogradPoints, tiles, c}, {4}, ReduceKind::kSum, {x}, [&](const Exprs& ax, const Exprs& rd) {
    Expr e = ax[0] / Expr(4), f = ax[0] % Expr(4);
    Expr second_row = rd[0] / Expr(2), second_col = rd[0] % Expr(2);
    Expr row = tile_row(ax[1]) + select(eq(second_row, Expr(1)), second_tap(e), first_tap(e));
    Expr col = tile_col(ax[1]) + select(eq(second_col, Expr(1)), second_tap(f), first_tap(f));
    Expr sign = select(eq(second_row, Expr(1)), second_sign(e), float_imm(1.0)) *
                select(eq(second_col, Expr(1)), second_sign(f), float_imm(1.0));
    return sign * input_at(tile_n(ax[1]), row, col, ax[2]);
  });
  Tensor gemm = reduce("winograd_gemm", {kWinogradPoints, tiles, k}, {c}, ReduceKind::kSum, {input, u},
                       [&](const Exprs& ax, const Exprs& rd) { return input(ax[0], ax[1], rd[0]) * u(ax[0], rd[0], ax[2]); });
  // The output at (i, j) of its block sums the 9 products at e = a + i, f = b + j (a, b in
  // 0..2) with A^T's signs, written out as one elementwise stage rather than a reduction: in a
  // network task the sketch inlines it into the bias and relu that read it, so the task writes
  // its output in one pass.
  return compute("conv", {p.batch, out_h, out_w, k}, {gemm}, [&](const Exprs& ax) {
    Expr i = ax[1] % Expr(2), j = ax[2] % Expr(2);
    Expr tile = (ax[0] * Expr(tiles_h) + ax[1] / Expr(2)) * Expr(tiles_w) + ax[2] / Expr(2);
    auto product = [&](int64_t a, int64_t b) { return gemm((Expr(a) + i) * Expr(4) + Expr(b) + j, tile, ax[3]); };
    auto row = [&](int64_t a) { return product(a, 0) + later_sign(j) * (product(a, 1) + product(a, 2)); };
    return row(0) + later_sign(i) * (row(1) + row(2));
  });
}

Result<ComputeDAG> conv2d_winograd(const Conv2dParams& p) {
  Tensor x = placeholder("X", {p.batch, p.height, p.width, p.in_channels});
  Tensor u = constant_input("U", {kWinogradPoints, p.in_channels, p.out_channels});
  auto conv = conv2d_winograd_compute(x, u, p);
  if (!conv) return conv.error();
  const int64_t pad_b = pad_bottom_of(p), pad_r = pad_right_of(p);
  std::ostringstream summary;
  summary << "conv2d_winograd N=" << p.batch << " C=" << p.in_channels << " H=" << p.height << " W=" << p.width
          << " K=" << p.out_channels << " R=3 S=3 stride=1,1 pad=" << p.pad_h << "," << p.pad_w;
  if (pad_b != p.pad_h || pad_r != p.pad_w) summary << " pad_end=" << pad_b << "," << pad_r;
  summary << " layout=NHWC F(2x2,3x3)";
  return ComputeDAG::make(summary.str(), {x, u}, {*conv});
}

std::vector<float> winograd_weights(const Conv2dParams& p, const std::vector<float>& w) {
  // G (4x3) = [[1,0,0], [1/2,1/2,1/2], [1/2,-1/2,1/2], [0,0,1]]; U = G g G^T per (c, k).
  static const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const int64_t c = p.in_channels, k = p.out_channels;
  std::vector<float> u(static_cast<size_t>(kWinogradPoints * c * k));
  for (int64_t ci = 0; ci < c; ++ci) {
    for (int64_t ki = 0; ki < k; ++ki) {
      // NHWC weights are [R, S, C, K].
      auto tap = [&](int r, int s) { return static_cast<double>(w[static_cast<size_t>(((r * 3 + s) * c + ci) * k + ki)]); };
      for (int e = 0; e < 4; ++e) {
        for (int f = 0; f < 4; ++f) {
          double sum = 0;
          for (int r = 0; r < 3; ++r) {
            for (int s = 0; s < 3; ++s) sum += g[e][r] * g[f][s] * tap(r, s);
          }
          u[static_cast<size_t>(((e * 4 + f) * c + ci) * k + ki)] = static_cast<float>(sum);
        }
      }
    }
  }
  return u;
}

}  // namespace tessera::schedule

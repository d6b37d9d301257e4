// The operator library: each function builds the ComputeDAG of one deep-learning operator.
//
// Shapes are validated here: an impossible shape (a non-positive extent, a kernel larger than
// its padded input, channels not divisible by groups) is an Error naming the op and field.
// Stage names are fixed per op (inputs first: A, B, X, W, bias ...; output last) so workload
// keys are stable. All tensors are float32.
//
// Adding an op: write a builder below returning Result<ComputeDAG>; give its stages plain names;
// validate every shape parameter; add it to `make_op` (ops_registry.cc) so configs can name it;
// add it to tests/unit/schedule/ops_test.cc and reference_test.cc and to the JIT test list.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "schedule/compute_dag.h"
#include "schedule/result.h"

namespace tessera::schedule {

// C[M,N] = op(A) * op(B); A is [M,K] (or [K,M] when trans_a), B is [K,N] (or [N,K]).
Result<ComputeDAG> matmul(int64_t m, int64_t n, int64_t k, bool trans_a = false,
                          bool trans_b = false);
// C[b,M,N] = A[b,M,K] * B[b,K,N]
Result<ComputeDAG> batch_matmul(int64_t batch, int64_t m, int64_t n, int64_t k);
// Y[M,N] = X[M,K] * W[N,K]^T + bias[N]
Result<ComputeDAG> dense_bias(int64_t m, int64_t n, int64_t k);

enum class Layout { kNCHW, kNHWC };

struct Conv2dParams {
  int64_t batch = 1, in_channels = 1, height = 1, width = 1;
  int64_t out_channels = 1, kernel_h = 1, kernel_w = 1;
  // pad_h / pad_w pad the top / left; the bottom / right get the same unless pad_bottom /
  // pad_right say otherwise (>= 0: asymmetric padding, as ONNX `pads` and 1x7 convolutions).
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;  // groups == in_channels == out_channels is depthwise
  Layout layout = Layout::kNCHW;
  int64_t pad_bottom = -1, pad_right = -1;  // -1: symmetric (pad_h / pad_w)
};
// The bottom and right padding: pad_bottom / pad_right when given, else pad_h / pad_w.
int64_t pad_bottom_of(const Conv2dParams& p);
int64_t pad_right_of(const Conv2dParams& p);
// Checks every field of `p` (an Error naming the field); on success sets the output extents.
Result<void> validate_conv2d(const Conv2dParams& p, int64_t* out_h, int64_t* out_w);
// Stages: X (input), W (weights: [K, C/groups, R, S] for NCHW, [R, S, C/groups, K] for NHWC),
// pad (when padding is non-zero), conv (output). A pointwise conv (1x1, stride 1, no padding)
// in NCHW indexes its pixels as one axis "hw" (X [N, C, H*W], conv [N, K, H*W], the same
// bytes; collapse_pixels.h), as network tasks do, unless `pixels_as_one_axis` is false (for
// builders that add stages first and collapse the whole DAG after).
Result<ComputeDAG> conv2d(const Conv2dParams& p, bool pixels_as_one_axis = true);
// The conv stage (and its "pad" stage when padded) over given input and weight tensors, for
// builders that compose ops (graph/ fusion). The shapes of `x` and `w` must match `p`.
Result<Tensor> conv2d_compute(const Tensor& x, const Tensor& w, const Conv2dParams& p);

// A 3x3, stride-1 NHWC convolution by Winograd F(2x2, 3x3) (ops_winograd.cc): stages X
// [N, H, W, C], U (constant [16, C, K]: the weights in the Winograd domain, from
// winograd_weights), winograd_input [16, tiles, C], winograd_gemm [16, tiles, K] and conv
// [N, OH, OW, K], the same values as conv2d's up to float rounding. Other kernels, strides,
// dilations, groups or layouts are Errors.
Result<ComputeDAG> conv2d_winograd(const Conv2dParams& p);
// Its stages over given input [N, H, W, C] and transformed weights [16, C, K] (graph/ fusion).
Result<Tensor> conv2d_winograd_compute(const Tensor& x, const Tensor& u, const Conv2dParams& p);
// U for conv2d_winograd from NHWC weights W [3, 3, C, K]: [16, C, K], G g G^T per channel pair.
std::vector<float> winograd_weights(const Conv2dParams& p, const std::vector<float>& w);
// 2x2 output blocks along an output extent (a partial last block computes past the edge).
int64_t winograd_tiles(int64_t out_extent);
// The points of F(2x2, 3x3)'s 4x4 input tile: the leading extent of U and of the two
// Winograd-domain stages, one matrix product per point.
inline constexpr int64_t kWinogradPoints = 16;

// Fused epilogues: Y = relu(conv + bias[k]) with bias of out_channels; stages X, W, bias, pad
// (when padded), conv, Y; a pointwise conv's pixels as one axis, as conv2d.
Result<ComputeDAG> conv2d_bias_relu(const Conv2dParams& p);
// Y[M,N] = gelu(X[M,K] * W[N,K]^T + bias[N]) (exact erf form); stages X, W, bias, dense, Y.
Result<ComputeDAG> dense_bias_gelu(int64_t m, int64_t n, int64_t k);

struct Pool2dParams {
  int64_t batch = 1, channels = 1, height = 1, width = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
};
// NCHW. Max pool ignores padding; average pool divides by the full window (padding counts
// as zeros, as PyTorch's count_include_pad=True).
Result<ComputeDAG> max_pool2d(const Pool2dParams& p);
Result<ComputeDAG> avg_pool2d(const Pool2dParams& p);
// Y[N,C] = mean over H, W of X[N,C,H,W]
Result<ComputeDAG> global_avg_pool2d(int64_t batch, int64_t channels, int64_t height,
                                     int64_t width);

enum class Elementwise { kRelu, kAdd, kMul, kGelu, kSigmoid };
// Unary ops read X; binary ops read A and B of the same shape. Gelu is the exact erf form.
Result<ComputeDAG> elementwise(Elementwise op, std::vector<int64_t> shape);

// Softmax over the last axis of X (max-subtracted, numerically stable).
Result<ComputeDAG> softmax(std::vector<int64_t> shape);
// Layer norm over the last axis with gamma and beta of that length; eps = 1e-5.
Result<ComputeDAG> layer_norm(std::vector<int64_t> shape, double eps = 1e-5);

// Builds an op from its name and integer parameters, e.g. ("matmul", {m:64, n:64, k:64}).
// Unknown op names and missing or unknown parameters are errors that say what was expected.
Result<ComputeDAG> make_op(const std::string& name, const std::map<std::string, int64_t>& params);
// The names `make_op` accepts.
std::vector<std::string> op_names();

}  // namespace tessera::schedule

// Small instances of every op in the library, shared by the JIT tests and the fuzzer.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "schedule/ops.h"

namespace tessera::testing {

struct OpCase {
  std::string label;
  std::function<Result<schedule::ComputeDAG>()> make;
};

inline std::vector<OpCase> op_cases() {
  using namespace tessera::schedule;
  Conv2dParams conv{1, 4, 9, 9, 6, 3, 3};
  conv.pad_h = conv.pad_w = 1;
  Conv2dParams strided = conv;
  strided.stride_h = strided.stride_w = 2;
  strided.dilation_h = strided.dilation_w = 2;
  strided.groups = 2;
  strided.pad_h = 2;
  strided.pad_w = 0;
  Conv2dParams depthwise{1, 4, 8, 7, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4};
  Conv2dParams nhwc = conv;
  nhwc.layout = Layout::kNHWC;
  Conv2dParams nhwc_grouped = strided;
  nhwc_grouped.layout = Layout::kNHWC;
  Pool2dParams pool{1, 3, 9, 8, 3, 3, 2, 2, 1, 1};
  return {
      {"matmul", [] { return matmul(13, 17, 9); }},
      {"matmul_ta", [] { return matmul(16, 32, 8, true, false); }},
      {"matmul_tb", [] { return matmul(8, 16, 12, false, true); }},
      // Odd and prime extents for the transposed forms too (the others have theirs above).
      {"matmul_ta_odd", [] { return matmul(11, 21, 7, true, false); }},
      {"matmul_tb_odd", [] { return matmul(9, 19, 13, false, true); }},
      {"batch_matmul", [] { return batch_matmul(2, 5, 16, 7); }},
      {"dense_bias", [] { return dense_bias(4, 20, 9); }},
      {"dense_bias_gelu", [] { return dense_bias_gelu(5, 18, 7); }},
      {"conv2d_bias_relu", [=] { return conv2d_bias_relu(conv); }},
      {"conv2d_bias_relu_nhwc", [=] { return conv2d_bias_relu(nhwc); }},
      {"conv2d", [=] { return conv2d(conv); }},
      {"conv2d_strided_dilated_grouped", [=] { return conv2d(strided); }},
      {"conv2d_depthwise", [=] { return conv2d(depthwise); }},
      {"conv2d_nhwc", [=] { return conv2d(nhwc); }},
      {"conv2d_nhwc_grouped", [=] { return conv2d(nhwc_grouped); }},
      // Odd map (9x9: a partial last 2x2 block) and channels that fill no vector evenly.
      {"conv2d_winograd_nhwc", [=] { return conv2d_winograd(nhwc); }},
      {"max_pool2d", [=] { return max_pool2d(pool); }},
      {"avg_pool2d", [=] { return avg_pool2d(pool); }},
      {"global_avg_pool2d", [] { return global_avg_pool2d(1, 3, 5, 6); }},
      {"relu", [] { return elementwise(Elementwise::kRelu, {5, 33}); }},
      {"add", [] { return elementwise(Elementwise::kAdd, {5, 33}); }},
      {"mul", [] { return elementwise(Elementwise::kMul, {2, 3, 17}); }},
      {"gelu", [] { return elementwise(Elementwise::kGelu, {5, 33}); }},
      {"sigmoid", [] { return elementwise(Elementwise::kSigmoid, {5, 33}); }},
      {"softmax", [] { return softmax({4, 37}); }},
      {"layer_norm", [] { return layer_norm({3, 40}); }},
  };
}

}  // namespace tessera::testing

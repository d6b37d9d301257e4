// LibTorch baselines of the memory-bound suite (see libtorch_ops.h). Out-variants write into the
// caller's buffer where ATen has one; at::layer_norm allocates its result on every call (its
// real cost, timed) and the copy into the caller's buffer is left out of the timing.
#include "bench/libtorch_ops.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <memory>

namespace tessera::bench {

TorchCall libtorch_op(TorchOp op, const std::vector<int64_t>& shape,
                      const std::vector<float*>& inputs, float* output) {
  at::set_num_threads(1);
  auto wrap = [&](float* data, std::vector<int64_t> sizes) {
    return at::from_blob(data, sizes, at::TensorOptions().dtype(at::kFloat));
  };
  at::Tensor out = wrap(output, shape);
  const int64_t n = shape.back();
  switch (op) {
    case TorchOp::kSoftmax: {
      at::Tensor x = wrap(inputs[0], shape);
      return {[x, out]() mutable { at::softmax_out(out, x, -1); }, [] {}};
    }
    case TorchOp::kLayerNorm: {
      at::Tensor x = wrap(inputs[0], shape), gamma = wrap(inputs[1], {n}), beta = wrap(inputs[2], {n});
      auto last = std::make_shared<at::Tensor>();
      return {[x, gamma, beta, n, last] { *last = at::layer_norm(x, {n}, gamma, beta, 1e-5); },
              [out, last]() mutable { out.copy_(*last); }};
    }
    case TorchOp::kGelu: {
      at::Tensor x = wrap(inputs[0], shape);
      return {[x, out]() mutable { at::gelu_out(out, x); }, [] {}};
    }
    case TorchOp::kAddRelu: {
      at::Tensor a = wrap(inputs[0], shape), b = wrap(inputs[1], shape);
      return {[a, b, out]() mutable {
                at::add_out(out, a, b);
                at::relu_(out);
              },
              [] {}};
    }
  }
  return {[] {}, [] {}};
}

std::string libtorch_op_name(TorchOp op) {
  const std::string version = "LibTorch " TORCH_VERSION " ";
  switch (op) {
    case TorchOp::kSoftmax: return version + "at::softmax";
    case TorchOp::kLayerNorm: return version + "at::layer_norm";
    case TorchOp::kGelu: return version + "at::gelu";
    case TorchOp::kAddRelu: return version + "at::add + at::relu_";
  }
  return version;
}

}  // namespace tessera::bench

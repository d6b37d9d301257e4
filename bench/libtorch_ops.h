// LibTorch's own kernels for the memory-bound suite (at::softmax, at::layer_norm, at::gelu,
// at::add + at::relu_), on caller-owned float buffers, one thread. The only bench code that
// includes ATen (libtorch_ops.cc, its own library): this header is plain C++, so the rest of
// tessera_bench compiles without LibTorch's headers or flags.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tessera::bench {

enum class TorchOp { kSoftmax, kLayerNorm, kGelu, kAddRelu };

// LibTorch's op over the last axis of a shape: `run` reads the inputs (softmax, gelu: x;
// layer_norm: x, gamma, beta with eps 1e-5; add_relu: a, b) and computes the result as a user's
// call would (into the output buffer where ATen has an out-variant; layer_norm returns a fresh
// tensor, as at::layer_norm does); `publish` copies the last result into the output buffer
// when `run` did not write it there. Timing calls `run` only.
struct TorchCall {
  std::function<void()> run, publish;
};
// Sets LibTorch to one thread. The buffers must outlive the returned callables.
TorchCall libtorch_op(TorchOp op, const std::vector<int64_t>& shape,
                      const std::vector<float*>& inputs, float* output);

// "LibTorch 1.13.1 at::softmax" and the like, for result lines.
std::string libtorch_op_name(TorchOp op);

}  // namespace tessera::bench

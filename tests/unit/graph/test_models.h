// Small networks built in code that more than one graph test checks.
#pragma once

#include <string>

#include "onnx_model_builder.h"

namespace tessera::graph::testing {

// A ResNet in miniature: stem conv + relu, padded 3x3/2 max pool, two identical residual blocks
// (3x3 conv + relu, 1x1 conv + bias + add + relu), global pool, flatten, gemm (transB, alpha
// 0.5, beta 2).
inline std::string residual_blocks_model() {
  using B = ModelBuilder;
  B m;
  m.input("x", {1, 3, 12, 12});
  m.weight("w0", {8, 3, 3, 3});
  B::attr(m.node("Conv", {"x", "w0"}, {"c0"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.node("Relu", {"c0"}, {"r0"});
  auto* mp = m.node("MaxPool", {"r0"}, {"p0"});
  B::attr(mp, "kernel_shape", std::vector<int64_t>{3, 3}), B::attr(mp, "strides", std::vector<int64_t>{2, 2});
  B::attr(mp, "pads", std::vector<int64_t>{1, 1, 1, 1});
  std::string x = "p0";
  for (int b = 0; b < 2; ++b) {
    std::string s = std::to_string(b);
    m.weight("wa" + s, {8, 8, 3, 3}), m.weight("wb" + s, {8, 8, 1, 1}), m.weight("bb" + s, {8});
    B::attr(m.node("Conv", {x, "wa" + s}, {"a" + s}), "pads", std::vector<int64_t>{1, 1, 1, 1});
    m.node("Relu", {"a" + s}, {"ar" + s});
    m.node("Conv", {"ar" + s, "wb" + s, "bb" + s}, {"b" + s});
    m.node("Add", {"b" + s, x}, {"s" + s});
    m.node("Relu", {"s" + s}, {"o" + s});
    x = "o" + s;
  }
  m.node("GlobalAveragePool", {x}, {"g"});
  m.node("Flatten", {"g"}, {"f"});
  m.weight("fc", {5, 8}), m.weight("fcb", {5});
  auto* gemm = m.node("Gemm", {"f", "fc", "fcb"}, {"y"});
  B::attr(gemm, "transB", int64_t{1}), B::attr(gemm, "alpha", 0.5f), B::attr(gemm, "beta", 2.0f);
  m.output("y");
  return m.bytes();
}

}  // namespace tessera::graph::testing

// The tensors of a network: a name, a static shape and an element type.
//
// Every value in a graph (input, intermediate, output, constant) has one TensorInfo; shapes
// are fully static by the time a Graph exists (ONNX import resolves or refuses dynamic dims).
// float32 carries data; int64 appears only in shape arithmetic, which folds to constants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::graph {

enum class DType : uint8_t { kFloat32, kInt64 };

struct TensorInfo {
  std::string name;
  std::vector<int64_t> shape;  // empty: a scalar
  DType dtype = DType::kFloat32;

  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

inline const char* dtype_name(DType t) { return t == DType::kFloat32 ? "float32" : "int64"; }

// "[1,3,224,224]"
inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace tessera::graph

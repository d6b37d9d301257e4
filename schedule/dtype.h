// Element types of tensors and expressions. float32 is the only tensor type for now; kInt64
// is the type of loop variables and index arithmetic, kBool of conditions. Room is left for
// float16/bfloat16/int8 tensors: add the enumerator, its size and name, and teach codegen.
#pragma once

#include <cstdint>

namespace tessera::schedule {

enum class DType : uint8_t { kBool, kInt64, kFloat32 };

inline int dtype_bytes(DType t) {
  switch (t) {
    case DType::kBool: return 1;
    case DType::kInt64: return 8;
    case DType::kFloat32: return 4;
  }
  return 0;
}

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::kBool: return "bool";
    case DType::kInt64: return "int64";
    case DType::kFloat32: return "float32";
  }
  return "?";
}

inline bool is_float(DType t) { return t == DType::kFloat32; }

}  // namespace tessera::schedule

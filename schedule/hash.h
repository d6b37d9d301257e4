// FNV-1a, 64 bits, over bytes: workload keys (ComputeDAG::workload_key) and the checksums of
// files Tessera writes and reads back (runtime/check_cache.h). `h` continues an earlier hash,
// so a hash can be built from several pieces.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::schedule {

inline constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;

inline uint64_t fnv1a64(const void* data, size_t size, uint64_t h = kFnvOffsetBasis) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

}  // namespace tessera::schedule

// Whether this machine has a GPU, and which: the GPU fingerprint records are keyed by.
//
// probe_gpu loads the CUDA driver at run time (driver_api.h: dlopen + cuGetProcAddress; no
// CUDA header here) and describes device 0, or says in one line why there is no GPU.
#pragma once

#include <string>

#include "schedule/result.h"

namespace tessera::runtime::cuda {

struct GpuInfo {
  std::string name;         // e.g. "NVIDIA H100 80GB HBM3"
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  int driver_version = 0;   // e.g. 13000
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

Result<GpuInfo> probe_gpu();

}  // namespace tessera::runtime::cuda

// NVRTC: CUDA C to a GPU image (cubin for sm_XX, PTX for compute_XX) at run time.
//
// nvrtc.cc is the only file that includes nvrtc.h; the library is linked as its own imported
// target (libnvrtc.so alone: CMake's CUDA::nvrtc drags in the driver stub, and a binary that
// links it does not start without a driver). Thread-safe: each call has its own program.
#pragma once

#include <string>
#include <vector>

#include "schedule/result.h"

namespace tessera::runtime::cuda {

// The architectures this NVRTC compiles for, e.g. "sm_90" (also "compute_90" for PTX).
const std::vector<std::string>& supported_archs();
bool is_supported_arch(const std::string& arch);

struct GpuImage {
  std::string bytes;  // cubin (ELF) or PTX text
  bool ptx = false;
  std::string log;    // NVRTC's messages (warnings), if any
};

// Compiles `code` for `arch`. A refusal is an Error carrying NVRTC's log.
Result<GpuImage> compile_cuda(const std::string& code, const std::string& arch,
                              const std::string& name = "tessera.cu");

// NVRTC's version, e.g. "13.0".
std::string nvrtc_version();

}  // namespace tessera::runtime::cuda

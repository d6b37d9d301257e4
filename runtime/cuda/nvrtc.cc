// NVRTC compilation (see nvrtc.h). The one file that includes nvrtc.h.
#include "runtime/cuda/nvrtc.h"

#include <nvrtc.h>

#include <algorithm>

namespace tessera::runtime::cuda {

const std::vector<std::string>& supported_archs() {
  static const std::vector<std::string> archs = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89",
                                                 "sm_90", "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"};
  return archs;
}

bool is_supported_arch(const std::string& arch) {
  const auto& archs = supported_archs();
  std::string real = arch.rfind("compute_", 0) == 0 ? "sm_" + arch.substr(8) : arch;
  return std::find(archs.begin(), archs.end(), real) != archs.end();
}

Result<GpuImage> compile_cuda(const std::string& code, const std::string& arch, const std::string& name) {
  if (!is_supported_arch(arch)) return make_error("unsupported CUDA architecture '" + arch + "'");
  nvrtcProgram program;
  if (nvrtcResult r = nvrtcCreateProgram(&program, code.c_str(), name.c_str(), 0, nullptr, nullptr);
      r != NVRTC_SUCCESS) {
    return make_error(std::string("nvrtc: cannot create a program: ") + nvrtcGetErrorString(r));
  }
  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), "-std=c++17", "--include-path=/usr/local/cuda/include"};
  nvrtcResult compiled = nvrtcCompileProgram(program, 3, options);
  GpuImage image;
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    image.log.resize(log_size);
    nvrtcGetProgramLog(program, image.log.data());
    image.log.resize(log_size - 1);
  }
  if (compiled != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&program);
    return make_error(std::string("nvrtc refused the kernel (") + nvrtcGetErrorString(compiled) + "):\n" + image.log);
  }
  image.ptx = arch.rfind("compute_", 0) == 0;
  size_t size = 0;
  nvrtcResult got = image.ptx ? nvrtcGetPTXSize(program, &size) : nvrtcGetCUBINSize(program, &size);
  if (got == NVRTC_SUCCESS) {
    image.bytes.resize(size);
    got = image.ptx ? nvrtcGetPTX(program, image.bytes.data()) : nvrtcGetCUBIN(program, image.bytes.data());
  }
  nvrtcDestroyProgram(&program);
  if (got != NVRTC_SUCCESS) return make_error(std::string("nvrtc: cannot read the image: ") + nvrtcGetErrorString(got));
  return image;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace tessera::runtime::cuda

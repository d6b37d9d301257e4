// The host's hardware fingerprint (see runtime/fingerprint.h).
#include "runtime/fingerprint.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>
#include <sched.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "schedule/compute_dag.h"

namespace tessera::runtime {
namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

// The ISA features that decide what a generated kernel can use.
std::string isa_flags() {
  static const char* kInteresting[] = {"sse4.2", "avx", "avx2", "fma", "f16c", "avx512f",
                                       "avx512bw", "avx512dq", "avx512vl", "avx512vnni",
                                       "avx512bf16", "avx512fp16", "amx-tile"};
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::string out;
  for (const char* f : kInteresting) {
    auto it = features.find(f);
    if (it != features.end() && it->second) out += (out.empty() ? "" : " ") + std::string(f);
  }
  return out;
}

}  // namespace

std::string HardwareFingerprint::id() const {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(schedule::fnv1a64(
                    cpu_model + "|" + llvm_cpu + "|" + isa_flags + "|" + std::to_string(cores) +
                    "|" + llvm_version + (gpu.empty() ? "" : "|" + gpu))));
  return hex;
}

const HardwareFingerprint& host_fingerprint() {
  static const HardwareFingerprint fingerprint = [] {
    HardwareFingerprint f;
    f.cpu_model = cpu_model_name();
    f.llvm_cpu = llvm::sys::getHostCPUName().str();
    f.isa_flags = isa_flags();
    cpu_set_t set;
    f.cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    f.llvm_version = LLVM_VERSION_STRING;
    return f;
  }();
  return fingerprint;
}

int vector_register_floats(const HardwareFingerprint& f) {
  auto has = [&](const std::string& flag) {
    for (size_t at = f.isa_flags.find(flag); at != std::string::npos; at = f.isa_flags.find(flag, at + 1)) {
      const size_t end = at + flag.size();
      if ((at == 0 || f.isa_flags[at - 1] == ' ') && (end == f.isa_flags.size() || f.isa_flags[end] == ' ')) return true;
    }
    return false;
  };
  return has("avx512f") ? 16 : has("avx") ? 8 : 4;
}

nlohmann::json to_json(const HardwareFingerprint& f) {
  nlohmann::json j = {{"cpu_model", f.cpu_model}, {"llvm_cpu", f.llvm_cpu}, {"isa_flags", f.isa_flags},
                      {"cores", f.cores},         {"llvm_version", f.llvm_version}, {"id", f.id()}};
  if (!f.gpu.empty()) j["gpu"] = f.gpu;
  return j;
}

HardwareFingerprint fingerprint_from_json(const nlohmann::json& j) {
  HardwareFingerprint f;
  f.cpu_model = j.value("cpu_model", "");
  f.llvm_cpu = j.value("llvm_cpu", "");
  f.isa_flags = j.value("isa_flags", "");
  f.cores = j.value("cores", 0);
  f.gpu = j.value("gpu", "");
  f.llvm_version = j.value("llvm_version", "");
  return f;
}

}  // namespace tessera::runtime

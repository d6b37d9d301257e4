// The hardware fingerprint recorded with every measurement: what a cost depends on beyond the
// kernel itself. Records measured elsewhere are told apart by it (transfer, replay, resume).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tessera::runtime {

struct HardwareFingerprint {
  std::string cpu_model;     // /proc/cpuinfo "model name"
  std::string llvm_cpu;      // LLVM's name for the host CPU, e.g. "znver5"
  std::string isa_flags;     // vector ISA features present, e.g. "avx2 avx512f fma"
  int cores = 0;             // cores usable by this process
  std::string llvm_version;  // e.g. "19.1.7"
  // Measurements on a GPU (cuda target): "NAME|SMs|sm_XY|driver", e.g. "NVIDIA H100|132|sm_90|13000";
  // empty on CPU (and then left out of the id and JSON, so CPU fingerprints are unchanged).
  std::string gpu;
  std::string id() const;    // short stable hash of all of the above
};

// This machine's fingerprint (computed once).
const HardwareFingerprint& host_fingerprint();

// The float32 lanes of one vector register on a machine with these ISA flags: 16 with AVX-512,
// 8 with AVX, else 4.
int vector_register_floats(const HardwareFingerprint& fingerprint);

nlohmann::json to_json(const HardwareFingerprint& fingerprint);
HardwareFingerprint fingerprint_from_json(const nlohmann::json& json);

}  // namespace tessera::runtime

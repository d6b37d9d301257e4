// Hello, fingerprints and the identical-hardware rule (see cluster.h).
#include "mpi/cluster.h"

#include <unistd.h>

#include <thread>

namespace tessera::mpi {
namespace {

// The fields in which two fingerprints differ, e.g. "cpu_model (AMD EPYC 9R14 vs Intel Xeon)".
std::string differences(const runtime::HardwareFingerprint& a, const runtime::HardwareFingerprint& b) {
  std::string out;
  auto field = [&](const char* name, const std::string& x, const std::string& y) {
    if (x != y) out += std::string(out.empty() ? "" : ", ") + name + " (" + x + " vs " + y + ")";
  };
  field("cpu_model", a.cpu_model, b.cpu_model);
  field("llvm_cpu", a.llvm_cpu, b.llvm_cpu);
  field("isa_flags", a.isa_flags, b.isa_flags);
  field("cores", std::to_string(a.cores), std::to_string(b.cores));
  field("llvm_version", a.llvm_version, b.llvm_version);
  return out;
}

}  // namespace

bool say_hello(Comm& comm) {
  nlohmann::json hello = {{"type", "hello"},
                          {"host", comm.host()},
                          {"pid", static_cast<int>(::getpid())},
                          {"cores", static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))},
                          {"hardware", runtime::to_json(runtime::host_fingerprint())}};
  return comm.send(0, hello, 60);
}

Result<std::vector<RankInfo>> gather_ranks(Comm& comm, bool assume_identical_hardware, double timeout_s) {
  std::vector<RankInfo> ranks(static_cast<size_t>(comm.size()));
  std::vector<bool> heard(ranks.size(), false);
  for (int answered = 1; answered < comm.size();) {
    auto envelope = comm.receive(-1, timeout_s);
    if (!envelope) {
      std::string silent;
      for (size_t r = 1; r < ranks.size(); ++r) {
        if (!heard[r]) silent += (silent.empty() ? "" : ", ") + std::to_string(r);
      }
      return make_error("rank(s) " + silent + " did not say hello within " + std::to_string(int(timeout_s)) + " s");
    }
    const nlohmann::json& m = envelope->message;
    auto r = static_cast<size_t>(envelope->source);
    if (m.value("type", "") != "hello" || r >= ranks.size() || heard[r]) continue;
    try {
      ranks[r] = {envelope->source, m.at("host").get<std::string>(), m.at("pid").get<int>(),
                  m.at("cores").get<int>(), runtime::fingerprint_from_json(m.at("hardware")), true};
    } catch (const nlohmann::json::exception& e) {
      return make_error("rank " + std::to_string(r) + " sent a malformed hello: " + e.what());
    }
    heard[r] = true;
    ++answered;
  }
  ranks[0] = {0, comm.host(), static_cast<int>(::getpid()), 1, runtime::host_fingerprint(), true};
  std::string mismatched;
  for (size_t r = 1; r < ranks.size(); ++r) {
    if (ranks[r].hardware.id() == ranks[0].hardware.id()) continue;
    mismatched += "\n  " + ranks[r].name() + ": " + differences(ranks[r].hardware, ranks[0].hardware);
  }
  if (!mismatched.empty() && !assume_identical_hardware) {
    return make_error("ranks measure on hardware that differs from rank 0's (rank vs rank 0):" + mismatched +
                      "\nA run's measurements must come from one kind of machine. If these machines are in fact "
                      "identical, set mpi.assume_identical_hardware: true");
  }
  return ranks;
}

}  // namespace tessera::mpi

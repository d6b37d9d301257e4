// The ranks of an MPI tuning job as rank 0 knows them: where each runs, its hardware, and
// whether it is still answering.
//
// At start every other rank says hello (host, pid, cores, hardware fingerprint). A job whose
// ranks' hardware differs from rank 0's is refused (a measurement is a property of the machine
// it was taken on, and one run's records must be comparable), unless the user says the
// machines are identical (`mpi.assume_identical_hardware`).
#pragma once

#include <string>
#include <vector>

#include "mpi/comm.h"
#include "runtime/fingerprint.h"

namespace tessera::mpi {

struct RankInfo {
  int rank = 0;
  std::string host;
  int pid = 0;
  int cores = 1;
  runtime::HardwareFingerprint hardware;
  bool alive = true;
  std::string name() const { return "rank " + std::to_string(rank) + " on " + host; }
};

// Another rank: tells rank 0 who it is.
bool say_hello(Comm& comm);
// Rank 0: every other rank's hello, within `timeout_s`. An Error names a rank that did not
// answer, or every rank whose hardware differs from rank 0's and in which fields.
Result<std::vector<RankInfo>> gather_ranks(Comm& comm, bool assume_identical_hardware, double timeout_s);

}  // namespace tessera::mpi

// Comm: the few MPI calls a Tessera job makes, behind an interface without <mpi.h>.
//
// Messages are JSON texts on one tag. Every wait has a deadline: a rank that died or hangs
// makes a send or receive time out (the caller then gives its work to others) instead of
// blocking the job. Waiting polls MPI (with short sleeps) rather than calling MPI's blocking
// probe, which spins a core at 100% in Open MPI: on a 2-core machine an idle rank would take
// a whole core from the compiler and the timed kernel.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "schedule/result.h"

namespace tessera::mpi {

// The number of ranks mpirun/mpiexec started this process among (Open MPI, MPICH and PMIx
// variables); 0 when it was not started by an MPI launcher.
int launched_world_size();

// Open MPI binds each rank to one core when it starts 2 or fewer (`--bind-to core` by default),
// which would leave a rank's builder one core and make its hardware fingerprint (cores usable)
// differ from the same machine's outside mpirun. Tessera places its own work (the builder on
// every core, each rank's measurements pinned to their own CPU: serve.h), so a binding made
// by the launcher (OMPI_MCA_orte_bound_at_launch) is widened to every online CPU. Call before
// anything computes the fingerprint. An explicit `--bind-to none` plus taskset is respected.
void release_launch_binding();

struct Envelope {
  int source = -1;
  nlohmann::json message;
};

class Comm {
 public:
  // MPI_Init; errors (no MPI runtime) come back as an Error. Call once per process.
  static Result<Comm> init(int* argc, char*** argv);
  Comm(Comm&& other) noexcept;
  Comm& operator=(Comm&&) = delete;
  ~Comm();  // MPI_Finalize

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The node this rank runs on (MPI_Get_processor_name).
  std::string host() const;

  // False when `to` did not take the message within `timeout_s` (it died or hangs).
  bool send(int to, const nlohmann::json& message, double timeout_s);
  // The next message from `source` (-1: any rank) within `timeout_s` (< 0: no limit).
  std::optional<Envelope> receive(int source, double timeout_s);
  // Ends the whole job with `status` (MPI_Abort), so mpirun exits with it. (Under
  // `mpirun --enable-recovery` mpirun exits 0 whatever its ranks do, MPI_Abort included.)
  [[noreturn]] void abort(int status);
  // This rank ends without MPI_Finalize. Finalize waits for every rank of the job, and after one
  // died it could wait forever (Open MPI with --enable-recovery: the test mpi.killed_rank hung
  // there now and then, with the run's results written and every live rank done).
  void skip_finalize() { active_ = false; }

 private:
  Comm(int rank, int size) : rank_(rank), size_(size) {}
  int rank_ = 0;
  int size_ = 1;
  bool active_ = true;
};

}  // namespace tessera::mpi

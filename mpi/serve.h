// serve: what every rank but 0 of an MPI tuning job does: build and time the candidates rank 0
// sends, in its own isolated worker (runtime::LocalMeasurer), and send back each result the
// moment it exists, until rank 0 says stop.
//
// A rank knows the job's workloads because it parsed the same command line as rank 0 (the
// config, or the model and its fused tasks): work names a workload by its key and a candidate
// by its steps. A key it does not know gets an error result, not a crash.
#pragma once

#include <map>
#include <string>

#include "mpi/comm.h"
#include "runtime/local_measurer.h"
#include "schedule/compute_dag.h"

namespace tessera::mpi {

// Returns the process's exit status: 0 when stopped by rank 0 after its work.
int serve(Comm& comm, const std::map<std::string, schedule::ComputeDAG>& workloads,
          runtime::LocalMeasurer& measurer);

// On one machine, the measuring ranks time on different cores: the k-th rank on this node
// (k >= 1) measures on the (n - k) mod n-th of the n CPUs it may use, unless $TESSERA_MEASURE_CPUS says otherwise,
// so two ranks on one machine do not time kernels on the same core.
void pin_measurements_for_local_rank();

}  // namespace tessera::mpi

// `mpirun -np N tessera tune CONFIG|MODEL.onnx`: one tuning job over the ranks of an MPI job.
//
// Rank 0 runs the tuning exactly as `tessera tune` does (search, allocator, proxy, run
// directory, records) with a mpi::RemoteMeasurer in place of this machine's builder and worker;
// every other rank serves: it builds and times what rank 0 sends (mpi/serve.h). Each rank
// parses the same command line, so all know the job's workloads. Built only with MPI (see
// mpi/CMakeLists.txt); without it, tune_mpi_missing.cc says how to get it.
#pragma once

#include "experiments/config.h"

namespace tessera::experiments {

// True when this process was started by mpirun with more than one rank.
bool launched_as_mpi_job();
// First thing in main: a rank bound to one core by mpirun gets every core back
// (mpi::release_launch_binding), before its hardware fingerprint is taken.
void release_mpi_launch_binding();
int run_tune_mpi(const TuneConfig& config, int* argc, char*** argv);

}  // namespace tessera::experiments

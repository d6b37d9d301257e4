// run_tune_mpi in a Tessera built without MPI (see tune_mpi.h): refuses with what to do.
#include <cstdio>
#include <cstdlib>

#include "experiments/tune_mpi.h"

namespace tessera::experiments {

bool launched_as_mpi_job() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name); v && std::atoi(v) > 1) return true;
  }
  return false;
}

void release_mpi_launch_binding() {}

int run_tune_mpi(const TuneConfig&, int*, char***) {
  std::fprintf(stderr,
               "tessera tune: started by mpirun, but this tessera was built without MPI. Install Open MPI "
               "(apt-get install libopenmpi-dev openmpi-bin, or scripts/setup.sh) and rebuild (cmake -B build "
               "finds it), or run without mpirun.\n");
  return 1;
}

}  // namespace tessera::experiments

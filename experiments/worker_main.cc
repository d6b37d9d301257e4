// tessera-worker: the measurement worker process. A Runner starts it with a socket on
// standard input and talks to it there (runtime/worker.h); it is not meant to be run by hand.
// It measures CPU object code and, through the "gpu_run" handler, CUDA images on the GPU
// (runtime/cuda/gpu_worker.h).
#include "runtime/cuda/gpu_worker.h"
#include "runtime/worker.h"

int main() {
  return tessera::runtime::serve_worker(0, {{tessera::runtime::cuda::kGpuRunMessage, tessera::runtime::cuda::serve_gpu_run}});
}

#!/usr/bin/env bash
# Runs benchmark cases and prints one JSON object per line per case:
#   bench/run.sh                    every case
#   bench/run.sh sgemm_1024_1t ...  the named cases
#   bench/run.sh plugin_suite       the example plug-in cost models (examples/) against the built-in
#                                   proxy; builds them against an installed Tessera first
#   bench/run.sh e2e                whole networks against ONNX Runtime and LibTorch (bench/e2e.sh;
#                                   also e2e_MODEL, e2e_MODEL_Nt); runs only when named
#   bench/run.sh e2e_tune           whole networks tuned by each allocator at one wall budget
#                                   (bench/e2e_tune.sh; TESSERA_E2E_SECONDS, _MODELS, _ALLOCATORS,
#                                   _SLICE_S to interleave the runs)
#   bench/run.sh mpi_scaling        one tuning with 1 process and 2 and 3 MPI ranks (bench/mpi_scaling.sh)
# Builds what it needs first (release build in build/). OpenBLAS, the baselines' BLAS, is put on
# its fastest kernels for this CPU for the benchmark processes only, never for tests or CI
# (bench/openblas_core.sh: some environments pin it to slower ones, and on CPUs newer than its
# table it falls back to generic SSE3 kernels).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
e2e=() cases=() tune=0 mpi=0
for name in "$@"; do
  case "$name" in e2e_tune) tune=1 ;; mpi_scaling) mpi=1 ;; e2e | e2e_*) e2e+=("$name") ;; *) cases+=("$name") ;; esac
done
if ((${#e2e[@]} || tune || mpi)); then
  ((${#cases[@]} == 0)) || "$root/bench/run.sh" "${cases[@]}"
  ((${#e2e[@]} == 0)) || "$root/bench/e2e.sh" "${e2e[@]}"
  ((tune == 0)) || "$root/bench/e2e_tune.sh"
  ((mpi == 0)) || "$root/bench/mpi_scaling.sh"
  exit
fi
if [ ! -f "$root/build/build.ninja" ]; then
  "$root/scripts/setup.sh" >&2
fi
cmake --build "$root/build" --target tessera_bench >&2
# plugin_suite: the example plug-ins, built out of tree against an installed Tessera.
if [[ " $* " == *" plugin_suite "* ]]; then
  cmake --build "$root/build" --target tessera tessera-worker >&2
  cmake --install "$root/build" --prefix "$root/build/plugin_prefix" >/dev/null
  cmake -S "$root/examples" -B "$root/build/plugin_examples" -G Ninja -DCMAKE_PREFIX_PATH="$root/build/plugin_prefix" >/dev/null
  cmake --build "$root/build/plugin_examples" >&2
  export TESSERA_PLUGINS="$root/build/plugin_examples/libtessera_tlp.so:$root/build/plugin_examples/libtessera_pruner.so"
fi
source "$root/bench/openblas_core.sh"
openblas_pick_core
exec "$root/build/tessera_bench" "$@"

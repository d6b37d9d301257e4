#!/usr/bin/env bash
# Runs benchmark cases and prints one JSON object per line per case:
#   bench/run.sh                    every case
#   bench/run.sh sgemm_1024_1t ...  the named cases
#   bench/run.sh e2e                whole networks against ONNX Runtime and LibTorch (bench/e2e.sh;
#                                   also e2e_MODEL, e2e_MODEL_Nt); runs only when named
# Builds what it needs first (release build in build/). OpenBLAS reads OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE when it loads; this machine's environment sets them to values that halve its
# speed, so they are unset for the benchmark process only (never for tests or CI).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
e2e=() cases=()
for name in "$@"; do
  case "$name" in e2e | e2e_*) e2e+=("$name") ;; *) cases+=("$name") ;; esac
done
if ((${#e2e[@]})); then
  ((${#cases[@]} == 0)) || "$root/bench/run.sh" "${cases[@]}"
  exec "$root/bench/e2e.sh" "${e2e[@]}"
fi
if [ ! -f "$root/build/build.ninja" ]; then
  "$root/scripts/setup.sh" >&2
fi
cmake --build "$root/build" --target tessera_bench >&2
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$root/build/tessera_bench" "$@"

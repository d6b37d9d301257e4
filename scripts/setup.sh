#!/usr/bin/env bash
# Tessera setup: installs the Debian packages the project needs (idempotent), then configures
# and builds with CMake + Ninja + ccache into build/. Safe to run again: apt skips what is
# installed and the build is incremental.
#
#   scripts/setup.sh            install packages, configure, build
#   scripts/setup.sh --deps     install packages only
#   scripts/setup.sh --list-packages   print the package list (scripts/check_setup_packages.py
#                                      checks it covers every package the build finds)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  llvm-19-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev   # LLVM ORC JIT backend
  libtbb-dev                                                   # parallel loops, parallel builder
  libgoogle-perftools-dev                                      # tcmalloc, the tuner's heap (cmake/fast_malloc.cmake)
  nlohmann-json3-dev                                           # steps, records, reports as JSON
  libyaml-cpp-dev                                              # experiment configs
  libtorch-dev libopenblas0-pthread                            # learned proxy and PPO agents (LibTorch)
  libonnx-dev libprotobuf-dev protobuf-compiler                # ONNX import (graph/onnx)
  libgtest-dev libgmock-dev                                    # tests
  pybind11-dev python3-dev python3-numpy                       # the `tessera` Python module (python/)
  libopenblas-dev                                             # bench/ baseline (cblas_sgemm)
  libdnnl-dev                                                  # bench/ baseline (oneDNN conv2d)
  libopenmpi-dev openmpi-bin                                   # MPI tuning jobs (mpi/, optional at build time)
)

if [ "${1:-}" = "--list-packages" ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "--deps" ] && exit 0

build_type=${TESSERA_BUILD_TYPE:-Release}
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
cmake --build "$root/build"

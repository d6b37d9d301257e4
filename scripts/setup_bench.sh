#!/usr/bin/env bash
# Installs what the whole-network baselines need (bench/run.sh e2e), on demand and idempotent;
# CI and the build never need any of it:
#   - Debian python3-torch, python3-torchvision (export the models, scripts/export_models.py,
#     run with /usr/bin/python3) and python3-onnx (checks the exported files);
#   - npm onnxruntime-node 1.30 into build/bench_node/ (the ONNX Runtime baseline,
#     bench/baselines/ort_run.js). Its install script fetches CUDA providers from the network
#     and fails offline; with --ignore-scripts the package still bundles the CPU library
#     bin/napi-v6/linux/x64/libonnxruntime.so.1, which is all the CPU provider needs.
# The LibTorch baseline uses libtorch-dev, which scripts/setup.sh already installs.
#
#   scripts/setup_bench.sh            install what is missing
#   scripts/setup_bench.sh --check    exit 1 (installing nothing) when something is missing
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ORT_VERSION=1.30
node_dir="$root/build/bench_node"
ort_lib="$node_dir/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"

PACKAGES=(python3-torch python3-torchvision python3-onnx nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
  # node and npm may come from elsewhere (NodeSource, nvm): the commands are what counts.
  if [ "$p" = nodejs ] && command -v node >/dev/null; then continue; fi
  if [ "$p" = npm ] && command -v npm >/dev/null; then continue; fi
  missing+=("$p")
done
need_ort=0
[ -f "$ort_lib" ] || need_ort=1

if [ "${1:-}" = "--check" ]; then
  ((${#missing[@]} == 0 && need_ort == 0)) && exit 0
  echo "setup_bench: missing ${missing[*]:-}$( ((need_ort)) && echo " onnxruntime-node@$ORT_VERSION")" >&2
  exit 1
fi

if ((${#missing[@]})); then
  # Skip a package the configured suites do not carry rather than failing the whole install.
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  available=()
  for p in "${missing[@]}"; do
    if apt-cache show "$p" >/dev/null 2>&1; then available+=("$p")
    else echo "setup_bench: $p is not in the configured apt suites; skipped" >&2; fi
  done
  if ((${#available[@]})); then
    echo "setup_bench: installing ${available[*]}" >&2
    start=$SECONDS
    $SUDO apt-get install -y -qq --no-install-recommends "${available[@]}" >/dev/null
    echo "setup_bench: apt done in $((SECONDS - start)) s" >&2
  fi
fi

if ((need_ort)); then
  echo "setup_bench: installing onnxruntime-node@$ORT_VERSION into $node_dir" >&2
  start=$SECONDS
  mkdir -p "$node_dir"
  [ -f "$node_dir/package.json" ] ||
    printf '{ "name": "tessera-bench-node", "private": true }\n' >"$node_dir/package.json"
  (cd "$node_dir" &&
     npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
       "onnxruntime-node@$ORT_VERSION" >&2)
  if [ ! -f "$ort_lib" ]; then
    echo "setup_bench: onnxruntime-node installed but $ort_lib is missing" >&2
    exit 1
  fi
  echo "setup_bench: npm done in $((SECONDS - start)) s" >&2
fi

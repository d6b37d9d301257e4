#!/bin/sh
# CI: Tessera as an installed package. Installs BUILD_DIR to a temporary prefix, checks the
# installed headers include no LLVM, LibTorch, ONNX or CUDA header, builds examples/ out of
# tree against the prefix with find_package(Tessera), tunes a small matmul with each example
# plug-in loaded through YAML `plugins:` (the installed `tessera`), and runs the conformance
# checks on both. Usage: test_installed_plugins.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
source=$2
work=$(mktemp -d /tmp/tessera_install_test.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
headers=$(find "$prefix/include/tessera" -name '*.h' | wc -l)
if grep -rlE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(llvm|torch|ATen|c10|onnx|cuda|nvrtc)[/.>]' "$prefix/include"; then
  echo "installed headers include LLVM, LibTorch, ONNX or CUDA (above)"
  exit 1
fi
echo "installed headers: $headers, none includes LLVM, LibTorch, ONNX or CUDA"

cmake -S "$source/examples" -B "$work/examples" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/examples" >/dev/null
echo "examples built against $prefix: $(cd "$work/examples" && ls *.so | tr '\n' ' ')"

tune() {  # NAME MODEL LIBRARY
  cat > "$work/$1.yaml" <<YAML
run_dir: $work/run_$1
seed: 2
plugins: [$3]
tasks:
  - {name: small_matmul, op: matmul, params: {m: 48, n: 64, k: 32}}
search:
  agent: evolutionary
  params: {population: 128, generations: 2}
proxy: {model: $2, min_samples: 8, epochs: 10}
budget: {trials: 32, batch_size: 16}
measure: {repeat: 2, min_repeat_ms: 1, retime_top: 2, retime_rounds: 2}
YAML
  "$prefix/bin/tessera" tune "$work/$1.yaml" 2>/dev/null | sed "s/^/$1: /"
  grep -q "libtessera_$1.so" "$work/run_$1/config.yaml"
}
tune tlp tlp "$work/examples/libtessera_tlp.so"
tune pruner pruner "$work/examples/libtessera_pruner.so"

"$prefix/bin/tessera" conformance --plugin "$work/examples/libtessera_tlp.so" --plugin "$work/examples/libtessera_pruner.so"
echo "conformance of the installed examples: ok"

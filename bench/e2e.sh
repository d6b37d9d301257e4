#!/usr/bin/env bash
# bench/run.sh e2e: whole networks, Tessera against what users run today. For each model
# (ResNet-50, MobileNetV2, a BERT-base encoder at 128 tokens and at 197, a prime count whose
# dense rows have no divisor) and thread count (1, 2) it runs, one process
# each, on the same input:
#   ONNX Runtime 1.30 (npm onnxruntime-node, CPU provider)      bench/baselines/ort_run.js
#   LibTorch 1.13 on the TorchScript export (torch::jit::load)  bench/baselines/libtorch_run.cc
#   Tessera: build/tessera run MODEL.onnx --threads N --input IN --output OUT --json
# and prints one JSON line (bench/baselines/e2e_line.js) with the three medians, the ratios and
# each output's max abs error against ORT's. A runner that is missing or fails leaves its
# fields null and says why in "error"; the other runners still run.
#
#   bench/e2e.sh [e2e | e2e_MODEL | e2e_MODEL_Nt ...]    (bench/run.sh e2e dispatches here)
#
# First it installs what the baselines need (scripts/setup_bench.sh: Debian python3-torch,
# python3-torchvision, python3-onnx; npm onnxruntime-node in build/bench_node/), exports the
# models that are missing (scripts/export_models.py into build/models/) and builds
# tessera_libtorch_baseline and tessera. Environment:
#   TESSERA_E2E_THREADS   thread counts (default "1 2")
#   TESSERA_E2E_RECORDS   a records directory: passed to tessera run as --records
#   TESSERA_E2E_BUILD=0   build nothing (use what is in build/)
#   TESSERA_E2E_TESSERA   the tessera binary to run (default build/tessera)
#   TESSERA_BUILD_LOCK    a file to flock around each build (machines that share a build)
#   TESSERA_E2E_TIMEOUT   seconds each runner may take (default 900)
#   TESSERA_E2E_ROUNDS    rounds of the three runners, one after the other (default 1); each
#                         runner reports the best of its per-round medians, and the line lists
#                         them all (*_ms_rounds): on a shared machine a neighbour's burst spoils
#                         a whole process's runs, so 3 rounds give steadier numbers
# Inputs, outputs and the runners' logs go to build/e2e/. Benchmarks never run in CI.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
models_dir="$build/models"
work="$build/e2e"
timeout_s=${TESSERA_E2E_TIMEOUT:-900}
rounds=${TESSERA_E2E_ROUNDS:-1}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "e2e: TESSERA_E2E_ROUNDS must be a positive integer" >&2; exit 2; }
ts_bin=${TESSERA_E2E_TESSERA:-$build/tessera}
records=()
[ -n "${TESSERA_E2E_RECORDS:-}" ] && records=(--records "$TESSERA_E2E_RECORDS")
all_models=(resnet50 mobilenetv2 bert_base bert_base_s197)
read -r -a all_threads <<<"${TESSERA_E2E_THREADS:-1 2}"
log() { echo "e2e: $*" >&2; }

# OpenBLAS (LibTorch's BLAS) on its fastest kernels for this CPU, for the benchmark processes
# only (bench/openblas_core.sh); the JSON line's "openblas_core" names them.
source "$root/bench/openblas_core.sh"
openblas_pick_core

# Which (model, threads) pairs: e2e = all; e2e_MODEL = both thread counts; e2e_MODEL_Nt = one.
declare -A want=()
[ $# -eq 0 ] && set -- e2e
for arg in "$@"; do
  matched=0
  for m in "${all_models[@]}"; do
    for t in "${all_threads[@]}"; do
      if [ "$arg" = e2e ] || [ "$arg" = "e2e_$m" ] || [ "$arg" = "e2e_${m}_${t}t" ]; then
        want["$m $t"]=1
        matched=1
      fi
    done
  done
  if ((!matched)); then
    log "unknown case $arg (e2e, e2e_MODEL or e2e_MODEL_Nt; models: ${all_models[*]}," \
        "threads: ${all_threads[*]})"
    exit 2
  fi
done

"$root/scripts/setup_bench.sh" >&2 || { log "scripts/setup_bench.sh failed"; exit 1; }

missing=()
for m in "${all_models[@]}"; do
  for t in "${all_threads[@]}"; do
    if [ -n "${want["$m $t"]:-}" ]; then
      if [ ! -f "$models_dir/$m.onnx" ] || [ ! -f "$models_dir/$m.pt" ] ||
         ! grep -q "\"name\": \"$m\"" "$models_dir/models.json" 2>/dev/null; then
        missing+=("$m")
      fi
      break
    fi
  done
done
if ((${#missing[@]})); then
  log "exporting ${missing[*]}"
  /usr/bin/python3 "$root/scripts/export_models.py" "$models_dir" \
    --only "$(IFS=,; echo "${missing[*]}")" || { log "scripts/export_models.py failed"; exit 1; }
fi

if [ "${TESSERA_E2E_BUILD:-1}" != 0 ]; then
  lock=()
  [ -n "${TESSERA_BUILD_LOCK:-}" ] && lock=(flock "$TESSERA_BUILD_LOCK")
  [ -f "$build/build.ninja" ] || "$root/scripts/setup.sh" >&2
  "${lock[@]}" cmake --build "$build" --target tessera_libtorch_baseline >&2 ||
    log "building tessera_libtorch_baseline failed: LibTorch columns will be null"
  "${lock[@]}" cmake --build "$build" --target tessera >&2 ||
    log "building tessera failed: Tessera columns will be null"
elif [ ! -x "$build/tessera_libtorch_baseline" ]; then
  # Said now, not only in the JSON after an hour of tuning (bench/e2e_tune.sh).
  log "TESSERA_E2E_BUILD=0 and $build/tessera_libtorch_baseline is missing: LibTorch columns will be null (ninja -C build tessera_libtorch_baseline)"
fi

mkdir -p "$work"
cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*:[[:space:]]*//')
shape_of() {  # the model's input shape from models.json, as 1,3,224,224
  node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
           const m = j.models.find((x) => x.name === process.argv[2]);
           console.log(m.inputs[0].shape.join(","));' "$models_dir/models.json" "$1"
}
# Runs "$@" with the timeout, stdout to $1.json and stderr to $1.log; on failure empties
# $1.json and prints a one-line reason (the last line of stderr) to stdout.
run_one() {
  local base=$1; shift
  rm -f "$base.json" "$base.log"
  timeout "$timeout_s" "$@" >"$base.json" 2>"$base.log"
  local rc=$?
  if [ $rc -ne 0 ]; then
    local why
    why=$(grep -v '^[[:space:]]*$' "$base.log" | tail -n 1 | cut -c1-300)
    [ $rc -eq 124 ] && why="timed out after ${timeout_s} s"
    echo "exit $rc${why:+: $why}"
    : >"$base.json"
  fi
}

for m in "${all_models[@]}"; do
  for t in "${all_threads[@]}"; do
    [ -n "${want["$m $t"]:-}" ] || continue
    onnx="$models_dir/$m.onnx"
    in="$work/$m.input.bin"
    base="$work/${m}_${t}t"
    rm -f "$in" "$base".*
    ort_files=() lt_files=() ts_files=() ort_err="" lt_err="" ts_err=""
    for ((r = 1; r <= rounds; ++r)); do
      log "$m, $t thread(s), round $r of $rounds"
      tag=""; ((rounds > 1)) && tag="round $r: "
      # ORT first: it draws the input from a fixed seed (the same every time) and writes it for
      # the other runners.
      e=$(run_one "$base.r$r.ort" node "$root/bench/baselines/ort_run.js" --model "$onnx" \
          --threads "$t" --seed 1 --write-input "$in" --output "$base.ort.out")
      [ -n "$e" ] && ort_err+="${ort_err:+; }$tag$e"
      ort_files+=("$base.r$r.ort.json")
      [ -f "$in" ] || break

      # LibTorch twice: with OpenMP's default wait policy and with PASSIVE. On two cores neither
      # wins everywhere (BERT-base at 2 threads: ~90 ms passive, 300+ ms default; ResNet-50 the
      # other way), so the baseline gets the faster (libtorch_omp_wait_policy says which).
      lt_bin="$build/tessera_libtorch_baseline"
      if [ -n "$lt_err" ]; then
        :  # failed in an earlier round: null anyway
      elif [ -x "$lt_bin" ]; then
        for policy in default passive; do
          if [ $policy = default ]; then penv=(env -u OMP_WAIT_POLICY); else penv=(env OMP_WAIT_POLICY=PASSIVE); fi
          e=$(run_one "$base.r$r.libtorch_$policy" "${penv[@]}" "$lt_bin" --model "$models_dir/$m.pt" \
              --shape "$(shape_of "$m")" --threads "$t" --input "$in" --output "$base.libtorch.out")
          [ -n "$e" ] && lt_err+="${lt_err:+; }$tag$policy: $e"
          lt_files+=("$base.r$r.libtorch_$policy.json")
        done
      else
        lt_err="$lt_bin is missing (target tessera_libtorch_baseline)"
      fi

      if [ -n "$ts_err" ]; then
        :  # failed in an earlier round: null anyway
      elif [ -x "$ts_bin" ]; then
        e=$(run_one "$base.r$r.tessera" "$ts_bin" run "$onnx" --threads "$t" --input "$in" \
            --output "$base.tessera.out" "${records[@]}" --json)
        [ -n "$e" ] && ts_err+="${ts_err:+; }$tag$e"
        ts_files+=("$base.r$r.tessera.json")
      else
        ts_err="$ts_bin is missing"
      fi
    done
    [ -f "$in" ] || { log "no input for $m: ${ort_err:-ORT wrote none}"; continue; }

    node "$root/bench/baselines/e2e_line.js" --case "e2e_${m}_${t}t" --model "$m" --threads "$t" \
      --cpu "$cpu" \
      --ort-json "$(IFS=,; echo "${ort_files[*]}")" --ort-out "$base.ort.out" --ort-error "$ort_err" \
      --libtorch-json "$(IFS=,; echo "${lt_files[*]}")" --libtorch-out "$base.libtorch.out" \
      --libtorch-error "$lt_err" \
      --tessera-json "$(IFS=,; echo "${ts_files[*]}")" --tessera-out "$base.tessera.out" \
      --tessera-error "$ts_err"
  done
done

#!/usr/bin/env bash
# bench/run.sh e2e_tune: whole networks tuned end to end by each task allocator at the same wall
# budget and seed, against ONNX Runtime and LibTorch measured in the same run (1 thread).
#
# For each model it first runs bench/e2e.sh e2e_MODEL_1t (which exports the models and builds
# the baselines): ORT, LibTorch and the untuned Tessera network (default schedules). Then, per
# allocator, `tessera tune MODEL.onnx` from an empty run directory (build/e2e_tune/MODEL_ALLOC)
# for TESSERA_E2E_SECONDS of tuning, the network measured end to end every quarter of it
# (budget.network_every_s), and prints one JSON line:
#   {"case": "e2e_tune", "model", "allocator", "seconds", "seed", "cpu", "slice_s" (0: in one
#    go; else TESSERA_E2E_SLICE_S, below), "measured_ms_at"
#    (the first measurement at or after 1/4, 1/2 and all of the budget, keyed by seconds),
#    "measured_ms" (at the end), "estimated_ms", "trials", "untuned_ms", "ort_ms", "libtorch_ms",
#    "openblas_core" (LibTorch's BLAS kernels, bench/openblas_core.sh),
#    "ratio_vs_ort" (ORT ms / tuned ms), "ratio_vs_libtorch", "seconds_to_reach" (tuning seconds
#    each measurement came at, to compare allocators' speed), "final": the tuned network, ORT and
#    LibTorch measured again one after the other for TESSERA_E2E_FINAL_ROUNDS (3) rounds
#    (bench/e2e.sh with the run's records: each runner's best round), with its own ratios}
# The first ratios compare a measurement taken inside the tuning process with baselines taken
# 20 minutes before it; on a shared machine the two can differ by 15% from load alone, so
# "final" (same minutes, same processes as the baselines) is the figure to quote.
# When more than one allocator ran on a model, bench/e2e_allocators.py then times the network with
# each run's records cut at 1/4, 1/2 and all of the budget, all cuts in the same
# TESSERA_E2E_CUT_ROUNDS (6) rounds, each cut before a run's end first finished as a run of that
# budget would finish, with the end's re-timing and network verdict (bench/e2e_allocators.py; a
# few minutes per cut for ResNet-50 and BERT) (one line
# per run and mark, and a summary line with the issue's criteria: harl at half the budget against
# gradient at the whole, harl's end against round-robin's). These, not measured_ms_at, are the
# figures to compare allocators by. Then bench/allocation_bound.py's lines: the lowest estimate
# any allocation of the logged searches reaches by each mark, over all runs and on each run's
# own searches ("allocation_bound_own": "vs_own_end" at half the budget above 1 says that no
# allocator driving that run's searches could have reached its end in half the time).
# When ResNet-50 and MobileNetV2 are both run, MobileNetV2 is also tuned from ResNet-50's run
# of the first allocator with no search (--from ... --budget.trials=0), one more line:
#   {"case": "e2e_tune_transfer", "model": "mobilenetv2", "from": "resnet50", "transfer_ms",
#    "untuned_ms", "tuned_ms" (full tuning, first allocator), "share_of_speedup"
#    ((untuned - transfer) / (untuned - tuned))}
# TESSERA_E2E_SLICE_S (default 0: each run in one go) > 0 interleaves the allocators' runs: each
# tunes SLICE seconds of its budget, then the next allocator's run takes its turn, and each run
# resumes from its run directory (records, rounds replayed into the allocator) for the next
# slice, until all reach TESSERA_E2E_SECONDS. The machine's speed drifts 2-6% between runs 20
# minutes apart (bench/NOTES.md, stops 79-80); interleaved, the runs share its slow and fast
# stretches, if the slices are shorter than those (stop 81: 300 s slices left the runs' median
# speeds 2.4-2.9% apart; a resume costs about 8 s outside the budget). Slices before the last
# skip the end's re-timing and the network's verdict (measure.retime_top=0,
# budget.verdict_runs=0), which a run in one go does only once. The allocators take their
# turns in an order rotated by one each cycle (A B, B A, A B, ...). In
# the interleaved sittings of stops 81-85 gradient went first in every cycle, and the runs
# after it timed the machine probe 0.4-2.7% slower in 6 of 8 pairs; two runs of one allocator
# in a fixed order read 1.0% apart the same way (stop 85). The estimates carry that speed.
# Environment: TESSERA_E2E_SECONDS (default 1200), TESSERA_E2E_MODELS (default
# "resnet50 mobilenetv2 bert_base"), TESSERA_E2E_ALLOCATORS (default "harl gradient
# round_robin"; an entry may carry settings for its run alone, ALLOCATOR:KEY=VALUE[,KEY=VALUE],
# e.g. "harl harl:budget.batch_size=32" sits two harl runs that differ in their batch; its run
# directory is MODEL_ALLOCATOR_KEY_VALUE), TESSERA_SEED (default 1), TESSERA_E2E_AGENT (default
# the network default, harl). Runs only when named; never in CI.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
seconds=${TESSERA_E2E_SECONDS:-1200}
read -r -a models <<<"${TESSERA_E2E_MODELS:-resnet50 mobilenetv2 bert_base}"
read -r -a allocators <<<"${TESSERA_E2E_ALLOCATORS:-harl gradient round_robin}"
seed=${TESSERA_SEED:-1}
final_rounds=${TESSERA_E2E_FINAL_ROUNDS:-3}
cut_rounds=${TESSERA_E2E_CUT_ROUNDS:-6}
slice=${TESSERA_E2E_SLICE_S:-0}
[[ "$slice" =~ ^[0-9]+$ ]] || { echo "e2e_tune: TESSERA_E2E_SLICE_S takes whole seconds, not '$slice'" >&2; exit 2; }
agent=()
[ -n "${TESSERA_E2E_AGENT:-}" ] && agent=(--set "search.agent=$TESSERA_E2E_AGENT")
work="$build/e2e_tune"
mkdir -p "$work"
cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*:[[:space:]]*//')
log() { echo "e2e_tune: $*" >&2; }
# An allocator entry's run directory name, allocator and --set arguments.
run_name() { local e=$1; e=${e//[:=,]/_}; echo "${e//\//_}"; }
run_allocator() { echo "${1%%:*}"; }
run_sets() {  # one --set per KEY=VALUE after the colon, one word per line
  [[ "$1" == *:* ]] || return 0
  local kv; IFS=',' read -r -a kvs <<<"${1#*:}"
  for kv in "${kvs[@]}"; do
    [[ "$kv" == *=* ]] || { log "allocator entry '$1': '$kv' is not KEY=VALUE"; exit 2; }
    printf -- '--set\n%s\n' "$kv"
  done
}
source "$root/bench/openblas_core.sh"  # LibTorch's BLAS on its fastest kernels (as bench/e2e.sh)
openblas_pick_core
every=$(/usr/bin/python3 -c "print(max(1.0, $seconds / 4))")

# The measured latency at the first measurement at or after each quarter mark, from summary.json.
summarize() {  # summary.json, baseline line, allocator, model, final line
  /usr/bin/python3 - "$@" "$seconds" "$seed" "$cpu" "$slice" <<'PY'
import json, sys
summary_path, baseline, allocator, model, final_line, seconds, seed, cpu, slice_s = sys.argv[1:10]
seconds = float(seconds)
s = json.load(open(summary_path))
b = json.loads(baseline) if baseline.strip() else {}
f = json.loads(final_line) if final_line.strip() else {}
final = {k: f.get(k) for k in ("tessera_ms", "ort_ms", "libtorch_ms", "ratio_vs_ort", "ratio_vs_libtorch",
                               "rounds", "tessera_ms_rounds", "ort_ms_rounds", "libtorch_ms_rounds", "error")
         if k in f}
history = s.get("measured_during_tuning", [])
at, reached = {}, []
for mark in (seconds / 4, seconds / 2, seconds):
    later = [h for h in history if h["elapsed_seconds"] >= mark - 1e-6]
    pick = later[0] if later else (history[-1] if history else None)
    at[str(int(round(mark)))] = pick["measured_ms"] if pick else None
for h in history:
    reached.append([round(h["elapsed_seconds"], 1), h["measured_ms"]])
tuned = s.get("measured_ms")
ort, lt = b.get("ort_ms"), b.get("libtorch_ms")
print(json.dumps({"case": "e2e_tune", "model": model, "allocator": allocator, "seconds": seconds,
                  "seed": int(seed), "cpu": cpu, "slice_s": int(slice_s), "measured_ms_at": at, "measured_ms": tuned,
                  "estimated_ms": s.get("estimated_ms"), "trials": s.get("trials"),
                  "untuned_ms": b.get("tessera_ms"), "ort_ms": ort, "libtorch_ms": lt,
                  "openblas_core": b.get("openblas_core"),
                  "ratio_vs_ort": ort / tuned if ort and tuned else None,
                  "ratio_vs_libtorch": lt / tuned if lt and tuned else None,
                  "seconds_to_reach": reached, "final": final}))
PY
}

declare -A baseline=() tuned_dir=() tuned_ms=()
for m in "${models[@]}"; do
  log "$m: baselines (ORT, LibTorch, untuned Tessera) through bench/e2e.sh"
  baseline[$m]=$(TESSERA_E2E_THREADS=1 "$root/bench/e2e.sh" "e2e_${m}_1t" | tail -n 1)
  onnx="$build/models/$m.onnx"
  [ -f "$onnx" ] || { log "$m: no model at $onnx (bench/e2e.sh could not export it)"; continue; }
  # The budget marks each run is tuned to in turn: the whole budget at once, or slice by slice.
  ends=$(/usr/bin/python3 -c "
s, b = $slice, $seconds
print(' '.join(str(min(b, s * k)) for k in range(1, int(-(-b // s)) + 1)) if 0 < s < b else b)")
  for a in "${allocators[@]}"; do n=$(run_name "$a"); rm -rf "$work/${m}_$n" "$work/${m}_$n.out" "$work/${m}_$n.log"; done
  cycle=0
  for end in $ends; do
    retime=()
    [ "$end" = "$seconds" ] || retime=(--set measure.retime_top=0 --set budget.verdict_runs=0)
    first=$((cycle % ${#allocators[@]}))
    cycle=$((cycle + 1))
    for a in "${allocators[@]:first}" "${allocators[@]:0:first}"; do
      dir="$work/${m}_$(run_name "$a")"
      mapfile -t sets < <(run_sets "$a")
      log "$m, allocator $a: tuning to $end s of $seconds (log: $dir.log)"
      rm -f "$dir/summary.json"  # a slice that fails leaves none, not the last slice's
      "$build/tessera" tune "$onnx" --set "run_dir=$dir" --set "allocator=$(run_allocator "$a")" --set "seed=$seed" \
        "${agent[@]}" --set "budget.seconds=$end" --set budget.trials=1000000 --set "budget.network_every_s=$every" \
        "${retime[@]}" "${sets[@]}" >>"$dir.out" 2>>"$dir.log"
    done
  done
  run_dirs=()
  for a in "${allocators[@]}"; do
    dir="$work/${m}_$(run_name "$a")"
    if [ ! -f "$dir/summary.json" ]; then
      echo "{\"case\": \"e2e_tune\", \"model\": \"$m\", \"allocator\": \"$a\", \"error\": \"no summary.json; see $dir.log\"}"
      continue
    fi
    log "$m, allocator $a: the tuned network against ORT and LibTorch, $final_rounds rounds"
    final=$(TESSERA_E2E_THREADS=1 TESSERA_E2E_BUILD=0 TESSERA_E2E_RECORDS="$dir" TESSERA_E2E_ROUNDS="$final_rounds" \
      "$root/bench/e2e.sh" "e2e_${m}_1t" | tail -n 1)
    summarize "$dir/summary.json" "${baseline[$m]}" "$a" "$m" "$final"
    if [ -z "${tuned_dir[$m]:-}" ]; then
      tuned_dir[$m]=$dir
      tuned_ms[$m]=$(/usr/bin/python3 -c "import json; print(json.load(open('$dir/summary.json')).get('measured_ms', ''))")
    fi
    run_dirs+=("$dir")
  done
  marks=$(/usr/bin/python3 -c "print(','.join(str(round($seconds * q)) for q in (0.25, 0.5, 1)))")
  if ((${#run_dirs[@]} > 1)); then
    log "$m: the allocators' records cut at each quarter of the budget, timed side by side"
    /usr/bin/python3 "$root/bench/e2e_allocators.py" "$onnx" "${run_dirs[@]}" --rounds "$cut_rounds" --marks "$marks"
  fi
  if ((${#run_dirs[@]} > 0)); then
    # Runs made one after another are put on the first run's level by their defaults' timings;
    # interleaved runs share the machine's minutes and compare as logged (allocation_bound.py).
    scale=()
    ((slice == 0)) && scale=(--scale-to-first)
    /usr/bin/python3 "$root/bench/allocation_bound.py" "${run_dirs[@]}" --at "$marks" "${scale[@]}" | grep -v '"allocation_bound_run"'
  fi
done

if [ -n "${tuned_dir[resnet50]:-}" ] && [ -n "${tuned_dir[mobilenetv2]:-}" ]; then
  dir="$work/mobilenetv2_from_resnet50"
  rm -rf "$dir"
  log "mobilenetv2: transfer from ${tuned_dir[resnet50]} with no search"
  "$build/tessera" tune "$build/models/mobilenetv2.onnx" --set "run_dir=$dir" --set "seed=$seed" \
    --from "${tuned_dir[resnet50]}" --set budget.trials=0 >"$dir.out" 2>"$dir.log"
  /usr/bin/python3 - "$dir/summary.json" "${baseline[mobilenetv2]}" "${tuned_ms[mobilenetv2]}" "$cpu" <<'PY'
import json, os, sys
path, baseline, tuned, cpu = sys.argv[1:5]
b = json.loads(baseline) if baseline.strip() else {}
transfer = json.load(open(path)).get("measured_ms") if os.path.exists(path) else None
untuned, tuned = b.get("tessera_ms"), float(tuned) if tuned else None
share = (untuned - transfer) / (untuned - tuned) if untuned and tuned and transfer and untuned != tuned else None
print(json.dumps({"case": "e2e_tune_transfer", "model": "mobilenetv2", "from": "resnet50", "cpu": cpu,
                  "transfer_ms": transfer, "untuned_ms": untuned, "tuned_ms": tuned, "share_of_speedup": share}))
PY
fi

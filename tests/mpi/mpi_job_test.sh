#!/usr/bin/env bash
# MPI tuning jobs on one machine (mpi/, experiments/tune_mpi.cc), 3 ranks over loopback.
#
#   mpi_job_test.sh TESSERA CONFIG same_records      a 3-rank job measures exactly the candidates a
#                                                    single process does (random search, one seed),
#                                                    each record naming the rank that measured it
#   mpi_job_test.sh TESSERA CONFIG killed_rank       rank 2 is killed (-9) mid-run: the job finishes,
#                                                    every trial is recorded once, rank 2's finished
#                                                    measurements are kept
#   mpi_job_test.sh TESSERA CONFIG killed_job        the whole job is killed (-9) mid-run; the same
#                                                    command resumes from the records
#   mpi_job_test.sh TESSERA CONFIG mixed_hardware    a rank whose hardware differs (fewer cores) is
#                                                    refused, unless mpi.assume_identical_hardware
#   mpi_job_test.sh TESSERA MODEL.onnx network       a network's fused tasks tuned by 3 ranks: every
#                                                    rank knows them, both measuring ranks measure
#
# Exit 77 (skipped) where Open MPI's mpirun is missing.
set -uo pipefail
tessera=$1 config=$2 mode=$3
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (scripts/setup.sh installs Open MPI)"; exit 77; }
work=/tmp/tessera_mpi_test/$mode
rm -rf "$work" && mkdir -p "$work"
mpirun=(mpirun --oversubscribe --enable-recovery)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
fail() { echo "FAIL ($mode): $*"; for f in "$work"/*.err "$work"/run*/run.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }
lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
# Prints one line per record: workload, sketch, knobs, source (the candidate, not its timing).
candidates() {
  python3 -c 'import json,sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r["workload_key"], r["sketch"], json.dumps(r["knobs"], sort_keys=True), r["source"])' "$1" | sort
}
measured_by() {
  python3 -c 'import json,sys,collections
c = collections.Counter(json.loads(l).get("measured_by", "here").split(" on ")[0] for l in open(sys.argv[1]))
print(" ".join("%s=%d" % (k.replace(" ", ""), v) for k, v in sorted(c.items())))' "$1"
}

case $mode in
same_records)
  "$tessera" tune "$config" --set run_dir="$work/single" >"$work/single.out" 2>"$work/single.err" || fail "single-process run failed"
  "${mpirun[@]}" -np 3 "$tessera" tune "$config" --set run_dir="$work/mpi" >"$work/mpi.out" 2>"$work/mpi.err" || fail "3-rank run failed"
  grep -q "MPI job of 3 ranks" "$work/mpi.err" || fail "rank 0 did not report a 3-rank job"
  [ "$(lines "$work/mpi/records.jsonl")" -eq 24 ] || fail "expected 24 records, got $(lines "$work/mpi/records.jsonl")"
  diff <(candidates "$work/single/records.jsonl") <(candidates "$work/mpi/records.jsonl") >"$work/diff" ||
    fail "the 3-rank job measured other candidates than one process: $(head -5 "$work/diff")"
  by=$(measured_by "$work/mpi/records.jsonl")
  echo "measured by: $by"
  [[ $by == *rank1=* && $by == *rank2=* && $by != *here=* ]] || fail "records should name ranks 1 and 2 only: $by"
  [ "$(measured_by "$work/single/records.jsonl")" = "here=24" ] || fail "single-process records name a rank"
  grep -q "best" "$work/mpi.out" || fail "rank 0 printed no result"
  ;;
killed_rank)
  "${mpirun[@]}" -np 3 "$tessera" tune "$config" --set run_dir="$work/run" --set budget.trials=64 \
    >"$work/mpi.out" 2>"$work/mpi.err" &
  job=$!
  pid=""
  for _ in $(seq 600); do  # up to 60 s: rank 2's pid, then 8 records
    pid=$(grep -o "rank 2 on [^ ]* (pid [0-9]*" "$work/mpi.err" 2>/dev/null | grep -o "[0-9]*$")
    [ -n "$pid" ] && [ "$(lines "$work/run/records.jsonl")" -ge 8 ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || { kill -9 $job; fail "rank 0 never named rank 2's pid"; }
  before=$(measured_by "$work/run/records.jsonl")
  kill -9 "$pid"
  wait $job  # (its status says nothing: under --enable-recovery mpirun exits 0 whatever happened)
  grep -q "small_matmul: 64 trials, best" "$work/mpi.out" || fail "rank 0 printed no result"
  grep -q "rank 2 on .* lost" "$work/run/run.log" || fail "run.log does not say rank 2 was lost"
  [ "$(lines "$work/run/records.jsonl")" -eq 64 ] || fail "expected 64 records, got $(lines "$work/run/records.jsonl")"
  [ "$(candidates "$work/run/records.jsonl" | uniq | wc -l)" -eq 64 ] || fail "a candidate was recorded twice"
  after=$(measured_by "$work/run/records.jsonl")
  echo "before the kill: $before; at the end: $after"
  [[ $after == *rank2=* ]] || fail "rank 2's finished measurements were lost"
  [ -f "$work/run/summary.json" ] || fail "no summary.json"
  ;;
killed_job)
  setsid "${mpirun[@]}" -np 3 "$tessera" tune "$config" --set run_dir="$work/run" --set budget.trials=48 \
    >"$work/first.out" 2>"$work/first.err" &
  job=$!
  for _ in $(seq 600); do [ "$(lines "$work/run/records.jsonl")" -ge 8 ] && break; sleep 0.1; done
  kill -9 -- -"$job"  # mpirun and every rank
  wait $job 2>/dev/null
  sleep 1
  kept=$(lines "$work/run/records.jsonl")
  [ "$kept" -ge 8 ] && [ "$kept" -lt 48 ] || fail "expected a partial run, got $kept records"
  "${mpirun[@]}" -np 3 "$tessera" tune "$config" --set run_dir="$work/run" --set budget.trials=48 \
    >"$work/second.out" 2>"$work/second.err" || fail "the resumed job failed"
  grep -q "resuming: $kept trials restored" "$work/second.err" || fail "the second job did not resume $kept trials"
  [ "$(lines "$work/run/records.jsonl")" -eq 48 ] || fail "expected 48 records, got $(lines "$work/run/records.jsonl")"
  [ "$(candidates "$work/run/records.jsonl" | uniq | wc -l)" -eq 48 ] || fail "a candidate was measured twice"
  ;;
mixed_hardware)
  [ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 cores to give one rank fewer"; exit 77; }
  one=(--set run_dir="$work/run" --set budget.trials=8)
  # No --enable-recovery here: under it mpirun exits 0 whatever the ranks return. And
  # --bind-to none: else Open MPI binds, Tessera widens the binding, and taskset with it.
  mpirun=(mpirun --oversubscribe --bind-to none)
  [ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
  "${mpirun[@]}" -np 1 "$tessera" tune "$config" "${one[@]}" : -np 1 taskset -c 0 "$tessera" tune "$config" "${one[@]}" \
    >"$work/refused.out" 2>"$work/refused.err" && fail "a job mixing hardware was not refused"
  grep -q "differs from rank 0's" "$work/refused.err" && grep -q "cores (1 vs" "$work/refused.err" ||
    fail "the refusal does not name the rank and field"
  [ ! -f "$work/run/records.jsonl" ] || fail "a refused job measured something"
  "${mpirun[@]}" -np 1 "$tessera" tune "$config" "${one[@]}" --set mpi.assume_identical_hardware=true : \
    -np 1 taskset -c 0 "$tessera" tune "$config" "${one[@]}" --set mpi.assume_identical_hardware=true \
    >"$work/allowed.out" 2>"$work/allowed.err" || fail "assume_identical_hardware did not let the job run"
  [ "$(lines "$work/run/records.jsonl")" -eq 8 ] || fail "expected 8 records"
  ;;
network)
  "${mpirun[@]}" -np 3 "$tessera" tune "$config" --set run_dir="$work/run" --set budget.trials=24 \
    >"$work/mpi.out" 2>"$work/mpi.err"
  grep -q "^network: 24 trials, estimated .* ms, measured .* ms" "$work/mpi.out" || fail "no network result"
  by=$(measured_by "$work/run/records.jsonl")
  echo "measured by: $by"
  [[ $by == *rank1=* && $by == *rank2=* && $by != *here=* ]] || fail "records should name ranks 1 and 2 only: $by"
  ! grep -q "does not know workload" "$work/run/records.jsonl" || fail "a rank did not know a fused task"
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
echo "PASS ($mode)"

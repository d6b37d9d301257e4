#!/usr/bin/env bash
# bench/run.sh mpi_scaling: the same tuning with 1 process and with MPI jobs of 2 and 3 ranks on
# this machine (rank 0 searches, the others build and measure: mpi/), one JSON line each:
#   {"case": "mpi_scaling", "ranks", "cpu", "task", "agent", "trials", "tuning_seconds" (curve.csv),
#    "trials_per_min", "speedup" (trials per minute over the 1-process run's, same run),
#    "best_gflops", "target_gflops" (0.9 x the 1-process run's best), "seconds_to_target",
#    "search_seconds", "measure_seconds" (summary.json: the agent's share and the measurer's),
#    "measured_by" (records per rank)}
# and a last line projecting N machines from the 1-process split (Amdahl: rank 0 proposes while
# nothing is measured, batches are measured in parallel):
#   {"case": "mpi_scaling_projection", "search_share", "projected_speedup": {"2": .., "4": .., ...}}
# Environment: TESSERA_MPI_TRIALS (default 96), TESSERA_MPI_AGENT (default random: the same
# candidates in every run, so only the measuring differs), TESSERA_SEED (1). Never in CI.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
trials=${TESSERA_MPI_TRIALS:-96}
agent=${TESSERA_MPI_AGENT:-random}
seed=${TESSERA_SEED:-1}
work="$build/mpi_scaling"
cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*:[[:space:]]*//')
command -v mpirun >/dev/null || { echo '{"case": "mpi_scaling", "error": "mpirun not found (scripts/setup.sh installs Open MPI)"}'; exit 1; }
cmake --build "$build" --target tessera tessera-worker >&2 || exit 1
rm -rf "$work" && mkdir -p "$work"
cat >"$work/config.yaml" <<YAML
# BERT-base's attention output projection (op suite): 0.15 GFLOP, compile ~0.3 s a candidate.
run_dir: $work/run
seed: $seed
tasks:
  - {name: bert_attention_out, op: dense_bias, params: {m: 128, n: 768, k: 768}}
search: {agent: $agent}
budget: {trials: $trials, batch_size: 16}
measure: {retime_top: 0}
YAML
mpirun=(mpirun --oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)

for ranks in 1 2 3; do
  dir="$work/run_$ranks"
  if [ "$ranks" = 1 ]; then
    "$build/tessera" tune "$work/config.yaml" --set run_dir="$dir" >"$work/out_$ranks" 2>"$work/err_$ranks"
  else
    "${mpirun[@]}" -np "$ranks" "$build/tessera" tune "$work/config.yaml" --set run_dir="$dir" >"$work/out_$ranks" 2>"$work/err_$ranks"
  fi || { echo "{\"case\": \"mpi_scaling\", \"ranks\": $ranks, \"error\": \"run failed, see $work/err_$ranks\"}"; continue; }
done

/usr/bin/python3 - "$work" "$cpu" "$agent" <<'PY'
import csv, json, sys, collections
work, cpu, agent = sys.argv[1], sys.argv[2], sys.argv[3]
def load(r):
    d = f"{work}/run_{r}"
    curve = [row for row in csv.DictReader(open(f"{d}/curve.csv"))]
    task = json.load(open(f"{d}/summary.json"))["tasks"][0]
    by = collections.Counter(json.loads(l).get("measured_by", "rank 0").split(" on ")[0] for l in open(f"{d}/records.jsonl"))
    return curve, task, dict(by)
runs = {}
for r in (1, 2, 3):
    try: runs[r] = load(r)
    except Exception as e: print(json.dumps({"case": "mpi_scaling", "ranks": r, "error": str(e)}))
if 1 not in runs: sys.exit(1)
base_curve, base_task, _ = runs[1]
target = 0.9 * max(float(p["best_gflops"]) for p in base_curve)
base_rate = None
for r, (curve, task, by) in sorted(runs.items()):
    seconds = float(curve[-1]["elapsed_seconds"])
    rate = len(curve) / seconds * 60
    base_rate = base_rate or rate
    reach = next((float(p["elapsed_seconds"]) for p in curve if float(p["best_gflops"]) >= target), None)
    print(json.dumps({"case": "mpi_scaling", "ranks": r, "cpu": cpu, "task": task["name"], "agent": agent,
                      "trials": len(curve), "tuning_seconds": round(seconds, 1), "trials_per_min": round(rate, 1),
                      "speedup": round(rate / base_rate, 3), "best_gflops": round(task["best_gflops"], 1),
                      "target_gflops": round(target, 1),
                      "seconds_to_target": None if reach is None else round(reach, 1),
                      "search_seconds": round(task.get("search_seconds", 0), 2),
                      "measure_seconds": round(task.get("measure_seconds", 0), 2), "measured_by": by}))
s, m = base_task.get("search_seconds", 0), base_task.get("measure_seconds", 0)
share = s / (s + m) if s + m > 0 else 0
print(json.dumps({"case": "mpi_scaling_projection", "cpu": cpu, "agent": agent, "search_share": round(share, 4),
                  "projected_speedup": {str(n): round((s + m) / (s + m / n), 2) for n in (2, 4, 8, 16, 32)}}))
PY

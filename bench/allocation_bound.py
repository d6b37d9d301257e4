#!/usr/bin/python3
"""The best any task allocator could have done with the searches a network tune ran (issue 22).

    bench/allocation_bound.py RUN_DIR... [--at 300,600,1200]

Each RUN_DIR is one `tessera tune MODEL.onnx` run of the same model (bench/e2e_tune.sh leaves
them in build/e2e_tune/MODEL_ALLOCATOR). Its rounds.jsonl gives, per task, the search's
trajectory: the task's best after each of its rounds and the seconds each round took. An
allocator only decides how many rounds each task gets and in which order; the rounds
themselves are the per-task search's. So, for a tuning time T, the lowest estimate
(sum of weight x best) any allocator could have reached, had each task's search followed one of
the trajectories these runs saw, is a knapsack: per task pick a run's trajectory and a number of
rounds k >= 1 (the first is the defaults' warm-up, which every allocator gives), spending the
rounds' seconds, so that the seconds sum to at most T. The oracle knows in which round each
search jumps, which no allocator can, and keeps a task's lowest logged best even where a later
confirmation timed it higher (the runs and allocator_replay use the best as logged), so the bound
is loose: if even it cannot reach a run's
estimate at 2T by T, no allocation of these searches can (the half-time criterion then asks for
faster searches, not a better allocator). Time is the sum of round seconds, for the runs as for
the bound (the run's clock also counts its network measurements; those are left out on both
sides). Trajectories are compared as logged. With --scale-to-first, those of runs after the
first are scaled so that each task's first round (its defaults) reads as in the first run, as
bench/run.sh allocator_replay does; that suits runs made one after another, minutes apart. It
misleads on a sitting whose runs were interleaved slice by slice (TESSERA_E2E_SLICE_S), which
share the machine's minutes: there a default's one timing carries only its own window's noise,
the scale spreads that noise over every later round of the task, and the bound's minimum over
runs then picks it up (stop 88, ResNet-50 on a Zen 3: harl's defaults read a median 1.055x
slower, and the scaled bound read 0.937 of gradient's end where the unscaled one reads 0.992).

The bound over several runs picks, per task, the luckier of their searches, which is not an
allocator's choice either. So each run is also bounded on its own searches alone: the lowest
estimate any allocation of exactly the rounds that run's searches produced reaches by each
mark, over the run's own estimate at the last mark. At half the budget this is the half-time
criterion's best case for an allocator driving those searches: above 1, no allocator, even one
that knows where each search jumps, reaches the run's end estimate in half its time (stop 68:
1.000-1.004 on every 20-minute run of ResNet-50, MobileNetV2 and BERT on a Zen 5).

Prints one JSON line per run and mark ({"case": "allocation_bound_run", "run", "allocator",
"mark_s", "estimated_ms", "rounds"}), one per mark for the bound ({"case": "allocation_bound",
"mark_s", "estimated_ms", "rounds_per_task"}) and one per run and mark for its own searches'
bound ({"case": "allocation_bound_own", "run", "allocator", "mark_s", "estimated_ms",
"own_end_ms", "vs_own_end"}). Runs only when named; never in CI.
"""
import argparse
import json
import os
import sys

STEP = 0.5  # seconds per knapsack bin


def load(run_dir):
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    weights = {t["name"]: t["weight"] for t in summary["tasks"]}
    rounds = []
    with open(os.path.join(run_dir, "rounds.jsonl")) as f:
        for number, line in enumerate(f, 1):
            try:
                rounds.append(json.loads(line))
            except json.JSONDecodeError:
                print(f"allocation_bound: {run_dir}/rounds.jsonl:{number}: skipped (not JSON)", file=sys.stderr)
    return summary.get("allocator", os.path.basename(run_dir)), weights, rounds


def trajectories(rounds):
    """Per task: [(seconds of the round, best after it)], transfer rounds left out."""
    per_task = {}
    for r in rounds:
        if r.get("transfer") or "best_seconds" not in r:
            continue
        per_task.setdefault(r["task"], []).append((r["seconds"], r["best_seconds"]))
    return per_task


def run_estimate(weights, rounds, mark):
    """The run's own estimate when the sum of its round seconds passed `mark`."""
    best, clock, count = {}, 0.0, 0
    for r in rounds:
        if clock + r["seconds"] > mark:
            break
        clock += r["seconds"]
        count += 1
        if "best_seconds" in r:
            best[r["task"]] = min(best.get(r["task"], float("inf")), r["best_seconds"])
    if set(best) != set(weights):
        return None, count
    return sum(weights[t] * best[t] for t in weights), count


def bound(weights, runs_trajectories, mark):
    bins = int(mark / STEP)
    inf = float("inf")
    # cost[b] = lowest sum of weight x best over the tasks so far within b bins; choice per task.
    cost = [0.0] * (bins + 1)
    picks = []
    for task, weight in weights.items():
        options = []  # (bins spent, weight x best, rounds)
        for trajectory in runs_trajectories:
            spent, best = 0.0, inf
            for k, (seconds, b) in enumerate(trajectory.get(task, []), 1):
                spent += seconds
                best = min(best, b)
                options.append((int(spent / STEP + 0.999), weight * best, k))
        if not options:
            return None, None
        new, pick = [inf] * (bins + 1), [None] * (bins + 1)
        for b in range(bins + 1):
            for spent, value, k in options:
                if spent <= b and cost[b - spent] + value < new[b]:
                    new[b], pick[b] = cost[b - spent] + value, (spent, k)
        cost = new
        picks.append((task, pick))
    b = bins
    if cost[b] == inf:
        return None, None
    total, rounds = cost[b], {}
    for task, pick in reversed(picks):
        spent, k = pick[b]
        rounds[task] = k
        b -= spent
    return total, rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--at", default="300,600,1200", help="tuning seconds (sum of round seconds)")
    parser.add_argument("--scale-to-first", action="store_true",
                        help="scale later runs' trajectories so each task's defaults read as in the first run "
                             "(for runs made one after another, not interleaved)")
    args = parser.parse_args()
    marks = [float(m) for m in args.at.split(",")]
    loaded = [load(d) for d in args.runs]
    weights = loaded[0][1]
    for d, (_, w, _) in zip(args.runs, loaded):
        if w != weights:
            sys.exit(f"allocation_bound: {d} is not a run of the same tasks as {args.runs[0]}")
    all_trajectories = [trajectories(r) for _, _, r in loaded]
    if args.scale_to_first:
        # On the first run's level, as allocator_replay puts them: a task's defaults (its first
        # round) timed in other minutes read up to 12% apart, and the bound compares searches,
        # not minutes.
        first = all_trajectories[0]
        for other in all_trajectories[1:]:
            for task, trajectory in other.items():
                if task in first and trajectory[0][1] > 0:
                    scale = first[task][0][1] / trajectory[0][1]
                    other[task] = [(seconds, best * scale) for seconds, best in trajectory]
    for d, (allocator, w, rounds) in zip(args.runs, loaded):
        for mark in marks:
            est, count = run_estimate(w, rounds, mark)
            print(json.dumps({"case": "allocation_bound_run", "run": os.path.basename(os.path.normpath(d)),
                              "allocator": allocator, "mark_s": mark,
                              "estimated_ms": None if est is None else round(est * 1e3, 3), "rounds": count}))
    for mark in marks:
        est, rounds = bound(weights, all_trajectories, mark)
        print(json.dumps({"case": "allocation_bound", "mark_s": mark,
                          "estimated_ms": None if est is None else round(est * 1e3, 3), "rounds_per_task": rounds}))
    for d, (allocator, w, rounds) in zip(args.runs, loaded):
        end, _ = run_estimate(w, rounds, max(marks))
        for mark in marks:
            # The run's own searches on its own level (not rescaled to the first run's).
            est, _ = bound(w, [trajectories(rounds)], mark)
            print(json.dumps({"case": "allocation_bound_own", "run": os.path.basename(os.path.normpath(d)),
                              "allocator": allocator, "mark_s": mark,
                              "estimated_ms": None if est is None else round(est * 1e3, 3),
                              "own_end_ms": None if end is None else round(end * 1e3, 3),
                              "vs_own_end": None if est is None or not end else round(est / end, 4)}))


if __name__ == "__main__":
    main()

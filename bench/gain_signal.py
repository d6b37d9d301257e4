#!/usr/bin/python3
"""Does anything a task has shown predict its next rounds' gains beyond its round index? (issue 22)

    bench/gain_signal.py [RUN_DIR...] [--horizon 3] [--min-tasks 8]

An allocator ranks tasks by what their next rounds should find. harl's top level
(agents/task_allocator.cc) reads that from the gain curve at the task's round index k, learned
across the network's tasks (agents/gain_curve.h), times the task's own scale on it
(TaskGains::scale: what its rounds found over what the curve expected of them). The curve
already tells a task at round 3 from one at round 30; what a per-task signal can add is the
order among tasks at the same round index. So this script groups every (run, k) decision point
of the logged searches, and within each group with at least --min-tasks tasks ranks the tasks
by a signal and by the mean relative gain of their next --horizon rounds (Spearman's rho).
Each signal gets the mean rho over the groups, weighted by their tasks, pooled and per run:
near 0, the signal orders tasks at one round index no better than chance; a part of the
allocator built on it adds nothing the round index does not already say.

Signals, each as the task knows it after its round k (gains are the relative drops of its best,
one per round from its second, the first being its defaults):
  scale   harl's scale: (found + e) / (expected + e), `expected` summing the run's curve (the
          mean gain of each round index over the run's tasks) over the task's rounds, e the
          curve's first two search rounds, as TaskGains::scale shrinks it
  since   minus the rounds since its last gain over 0.1% (more recent ranks higher)
  recent  the sum of its last three rounds' gains

(Within one round index every task's `expected` is the same, so the scale orders them as the sum
of their gains does: it is the cumulative signal, `recent` the windowed one.)

Each RUN_DIR holds a network tune's rounds.jsonl (bench/e2e_tune.sh leaves them in
build/e2e_tune/MODEL_ALLOCATOR); with none, the traces shipped in tests/data/network_traces/.
Prints one JSON line per run and one pooled ({"case": "gain_signal", "run", "groups", "points",
"rho": {signal: value}}). The curve here is the run's whole-run mean, which harl only learns as
the run goes: a signal that fails with it fails with harl's online one too.
"""
import argparse
import glob
import json
import math
import os
import sys
from collections import OrderedDict, defaultdict

SIGNALS = ("scale", "since", "recent")
GAINED = 0.001  # a gain over 0.1% counts as the search having found something


def task_gains(run_dir):
    """Per task, the relative gain of each round from its second (index 0 is round k = 2)."""
    path = os.path.join(run_dir, "rounds.jsonl")
    if not os.path.isfile(path):
        sys.exit(f"{run_dir}: no rounds.jsonl there (a network tune's run directory is expected)")
    bests = OrderedDict()
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                r = json.loads(line)
                bests.setdefault(r["task"], []).append(float(r["best_seconds"]))
            except (ValueError, KeyError) as e:
                sys.exit(f"{run_dir}/rounds.jsonl:{number}: not a round line ({e})")
    out = []
    for b in bests.values():
        gains = []
        for before, after in zip(b, b[1:]):
            ok = math.isfinite(before) and math.isfinite(after) and before > 0
            gains.append(max(0.0, (before - after) / before) if ok else 0.0)
        out.append(gains)
    return out


def decision_points(all_gains, horizon):
    """(k, signals, future mean gain) for every task and round k with `horizon` rounds after it."""
    total, count = defaultdict(float), defaultdict(int)
    for gains in all_gains:
        for i, g in enumerate(gains):
            total[i] += g
            count[i] += 1
    curve = {i: total[i] / count[i] for i in total}
    evidence = curve.get(0, 0) + curve.get(1, 0)
    points = []
    for gains in all_gains:
        found = expected = 0.0
        last = -1
        for i, g in enumerate(gains):
            found += g
            expected += curve[i]
            if g > GAINED:
                last = i
            future = gains[i + 1:i + 1 + horizon]
            if i < 1 or len(future) < horizon:  # from the second search round on, as harl's scale
                continue
            signals = {
                "scale": (found + evidence) / (expected + evidence) if expected + evidence > 0 else 1.0,
                "since": -(i - last),
                "recent": sum(gains[max(0, i - 2):i + 1]),
            }
            points.append((i + 2, signals, sum(future) / horizon))
    return points


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for t in range(i, j + 1):
            out[order[t]] = (i + j) / 2
        i = j + 1
    return out


def spearman(x, y):
    """Spearman's rho; None when either side is constant."""
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(rx, ry)) / math.sqrt(sxx * syy)


def within_index(groups, min_tasks):
    """Per signal, the task-weighted mean rho over the groups (lists of points at one k)."""
    sums, weights = defaultdict(float), defaultdict(float)
    used = points = 0
    for group in groups:
        if len(group) < min_tasks:
            continue
        future = [p[2] for p in group]
        any_signal = False
        for s in SIGNALS:
            rho = spearman([p[1][s] for p in group], future)
            if rho is not None:
                sums[s] += rho * len(group)
                weights[s] += len(group)
                any_signal = True
        if any_signal:
            used += 1
            points += len(group)
    rho = {s: round(sums[s] / weights[s], 3) if weights[s] else None for s in SIGNALS}
    return {"groups": used, "points": points, "rho": rho}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*", help="network tune run directories (default: the shipped traces)")
    parser.add_argument("--horizon", type=int, default=3, help="rounds ahead whose mean gain is predicted")
    parser.add_argument("--min-tasks", type=int, default=8, help="tasks a round index needs to be ranked")
    args = parser.parse_args()
    runs = args.runs
    if not runs:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "network_traces")
        runs = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(root, "*", "*", "rounds.jsonl")))
    all_groups = []
    for run in runs:
        by_k = defaultdict(list)
        for point in decision_points(task_gains(run), args.horizon):
            by_k[point[0]].append(point)
        groups = list(by_k.values())
        all_groups += groups
        line = {"case": "gain_signal", "run": os.path.normpath(run)}
        line.update(within_index(groups, args.min_tasks))
        print(json.dumps(line))
    line = {"case": "gain_signal", "run": "pooled", "runs": len(runs)}
    line.update(within_index(all_groups, args.min_tasks))
    print(json.dumps(line))


if __name__ == "__main__":
    main()

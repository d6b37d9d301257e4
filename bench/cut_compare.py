#!/usr/bin/python3
"""Two or more record sets compared in the network, with a confidence interval (issue 22).

    bench/cut_compare.py MODEL.onnx RECORDS_A RECORDS_B [RECORDS_C ...] [--processes 20]
                         [--copies 2] [--runs 40] [--layout nhwc]

Why: on a VM the same records built twice in one process run apart by a few percent, and which
copy is slower changes from process to process (bench/NOTES.md, stop 97: ResNet-50's four copies
of one cut read 0.96-1.05 of the first). That placement is the process's, fixed for its life, so
more inferences in one process do not average it out; more processes and more copies do. A
verdict on a 1-2% difference (issue 22's "harl at half time reaches gradient's end") needs both,
and a statement of how sure it is.

Each process is one `tessera run MODEL --records ... --json` that builds `--copies` networks of
every record set and times them interleaved, an inference of each in turn. The copies' order is
rotated from process to process, so no set keeps a position. Per process, each set's latency is
the geometric mean of its copies' medians, and its ratio to the first set's is one sample. Over
the processes: the mean of the log ratios with a 95% t interval, and the A/A floor: the spread
(standard deviation of the log ratio) between two copies of the same set in the same process.

Prints one JSON line per process ("cut_compare_process") and one summary line:
  {"case": "cut_compare", "model", "cpu", "processes", "copies", "runs", "sets" (paths),
   "latency_ms" (set -> median over processes of its per-process latency),
   "ratio_vs_first" (set -> exp of the mean log ratio to the first set),
   "ci95_vs_first" (set -> [low, high]), "verdict_vs_first" (set -> "faster", "slower" or "tie":
   whether the interval lies below 1, above 1, or spans it),
   "copy_floor_sd" (the standard deviation of log(copy 2 / copy 1) over every set and process:
   what two identical networks differ by), "per_task_vs_first" (set -> task -> its "ratio" and
   "ci95" the same way, and "share_of_first": the median over processes of its ms over the first
   set's task, as a share of the first set's latency: what it adds to the network; largest first)}
Runs only when named; never in CI.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Two-sided 95% quantiles of Student's t by degrees of freedom (1-30); 1.96 beyond.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
       2.045, 2.042]


def t95(dof):
    return T95[dof - 1] if 1 <= dof <= len(T95) else 1.96


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def order_of(sets, copies, process):
    """The record sets' instances for one process: `copies` rounds of every set, each round
    rotated by the process index and every other round reversed, so over the processes each set
    stands in every position."""
    order = []
    for c in range(copies):
        shift = (process + c) % len(sets)
        one = list(range(shift, len(sets))) + list(range(shift))
        order += one if c % 2 == 0 else one[::-1]
    return order


def run_process(tessera, model, sets, order, runs, layout):
    """Each instance's median latency (ms) and its ms per task, in `order`'s order, all timed in
    one process."""
    command = [tessera, "run", model, "--layout", layout, "--runs", str(runs), "--threads", "1", "--json",
               "--no-check"]
    for index in order:
        command += ["--records", sets[index]]
    done = subprocess.run(command, capture_output=True, text=True)
    lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError("%s failed (exit %d): %s" % (" ".join(command), done.returncode, done.stderr[-400:]))
    compared = json.loads(lines[-1]).get("compared")
    if not compared or len(compared) != len(order):
        raise RuntimeError("%s: expected %d networks in its JSON, read %s" %
                           (" ".join(command), len(order), len(compared or [])))
    return [entry["latency_ms"] for entry in compared], [entry.get("task_ms") or {} for entry in compared]


def geomean(values):
    return math.exp(statistics.fmean(math.log(v) for v in values))


def interval(logs):
    """exp(mean), and the 95% t interval of the mean, of log ratios."""
    mean = statistics.fmean(logs)
    if len(logs) < 2:
        return math.exp(mean), [None, None]
    half = t95(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), [math.exp(mean - half), math.exp(mean + half)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("sets", nargs="+", help="records files or directories; ratios are to the first")
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("--copies", type=int, default=2, help="networks of each set per process")
    parser.add_argument("--runs", type=int, default=40, help="inferences of each network per process")
    parser.add_argument("--layout", default="nhwc")
    parser.add_argument("--tessera", default=os.path.join(ROOT, "build", "tessera"))
    args = parser.parse_args()
    if len(args.sets) < 2:
        parser.error("name at least two record sets")
    if args.processes < 2 or args.copies < 1 or args.runs < 1:
        parser.error("--processes must be at least 2, --copies and --runs at least 1")
    for path in [args.model] + args.sets:
        if not os.path.exists(path):
            parser.error("%s: no such file or directory" % path)

    sets = args.sets
    logs = {i: [] for i in range(1, len(sets))}
    latency = {i: [] for i in range(len(sets))}
    floor = []
    task_logs = {i: {} for i in logs}    # set -> task -> per-process log ratios to the first set
    task_ms = {i: {} for i in range(len(sets))}  # set -> task -> per-process ms
    for p in range(args.processes):
        order = order_of(sets, args.copies, p)
        ms, tasks = run_process(args.tessera, args.model, sets, order, args.runs, args.layout)
        per_set = {i: [m for o, m in zip(order, ms) if o == i] for i in range(len(sets))}
        set_ms = {i: geomean(v) for i, v in per_set.items()}
        for name in tasks[0]:
            each = {i: [t[name] for o, t in zip(order, tasks) if o == i and t.get(name, 0) > 0] for i in range(len(sets))}
            if any(len(v) != args.copies for v in each.values()):
                continue
            for i in range(len(sets)):
                task_ms[i].setdefault(name, []).append(geomean(each[i]))
            for i in logs:
                task_logs[i].setdefault(name, []).append(math.log(geomean(each[i]) / geomean(each[0])))
        for i in range(len(sets)):
            latency[i].append(set_ms[i])
            if len(per_set[i]) >= 2:
                floor.append(math.log(per_set[i][1] / per_set[i][0]))
        for i in logs:
            logs[i].append(math.log(set_ms[i] / set_ms[0]))
        print(json.dumps({"case": "cut_compare_process", "process": p, "order": order,
                          "latency_ms": [round(m, 4) for m in ms],
                          "ratio_vs_first": {sets[i]: round(set_ms[i] / set_ms[0], 4) for i in logs}}), flush=True)

    ratio, ci, verdict, per_task = {}, {}, {}, {}
    first_total = statistics.median(latency[0])
    for i, values in logs.items():
        r, (low, high) = interval(values)
        ratio[sets[i]] = round(r, 4)
        ci[sets[i]] = [round(low, 4), round(high, 4)]
        verdict[sets[i]] = "faster" if high < 1 else "slower" if low > 1 else "tie"
        # Per task: its ratio with an interval, and what it adds to the network's latency as a
        # share of the first set's (the median over processes of its ms difference), largest first.
        rows = []
        for name, values in task_logs[i].items():
            tr, (tlow, thigh) = interval(values)
            added = statistics.median(a - b for a, b in zip(task_ms[i][name], task_ms[0][name])) / first_total
            rows.append((added, name, tr, tlow, thigh))
        rows.sort(reverse=True)
        per_task[sets[i]] = {name: {"ratio": round(tr, 4), "ci95": [round(tlow or 0, 4), round(thigh or 0, 4)],
                                    "share_of_first": round(added, 4)} for added, name, tr, tlow, thigh in rows}
    summary = {"case": "cut_compare", "model": os.path.basename(args.model), "cpu": cpu_model(),
               "processes": args.processes, "copies": args.copies, "runs": args.runs, "sets": sets,
               "latency_ms": {sets[i]: round(statistics.median(v), 4) for i, v in latency.items()},
               "ratio_vs_first": ratio, "ci95_vs_first": ci, "verdict_vs_first": verdict,
               "copy_floor_sd": round(statistics.stdev(floor), 4) if len(floor) >= 2 else None,
               "per_task_vs_first": per_task}
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print("cut_compare: %s" % e, file=sys.stderr)
        sys.exit(1)

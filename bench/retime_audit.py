#!/usr/bin/python3
"""What a network run's end re-timing did to the kernels its records pick (stop 86, issue 22).

    bench/retime_audit.py RUN_DIR...                 one JSON line per run
    bench/retime_audit.py RUN_DIR --scaled-copy DST  DST: RUN_DIR with each re-timing's scale

A run's end re-times each task's fastest schedules side by side (env::TuningTask::retime); its
retimed.jsonl holds those lines (the most costs a line) beside the confirmations made during the
search. Per run this prints:
  {"run", "end_vs_first" (median over tasks of the end re-timing's median over the same schedule's
   first timing, records.jsonl; "end_vs_first_max" the largest), "workloads", "changed" (tasks
   whose pick, ranked as runtime/record_bests.h ranks, differs with and without the end re-timing),
   "changed_to_never_retimed" (of those, picks the end did not re-time)}
Costs join divided by a line's "scale" where it has one (records from stop 86 on).

--scaled-copy writes what a run from before stop 86 would have recorded: a copy of RUN_DIR whose
retimed.jsonl lines carry "scale", the lowest ratio of re-timed median to earlier median among the
schedules re-timed together (consecutive lines of one workload with as many costs each), so that
`bench/e2e_allocators.py MODEL.onnx RUN_DIR DST --marks END` times the two picks side by side.
Runs only when named; never in CI.
"""
import argparse
import json
import os
import shutil
import statistics
import sys


def read(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def key(r):
    return (r["workload_key"], r.get("target", ""), r["sketch"], json.dumps(r["knobs"], sort_keys=True))


def ok(r):
    return r.get("error") == "none" and r.get("costs")


def picks(lines):
    """workload key -> (median, schedule key): the lowest median of all a schedule's timings, each
    line's costs divided by its scale; a schedule that failed a re-timing is never picked."""
    costs, failed = {}, set()
    for r in lines:
        if not ok(r):
            failed.add(key(r))
            continue
        costs.setdefault(key(r), []).extend(c / r.get("scale", 1) for c in r["costs"])
    best = {}
    for k, c in costs.items():
        if k in failed:
            continue
        m = statistics.median(c)
        if k[0] not in best or m < best[k[0]][0]:
            best[k[0]] = (m, k)
    return best


def audit(run_dir):
    trials = [r for r in read(os.path.join(run_dir, "records.jsonl")) if ok(r)]
    retimes = read(os.path.join(run_dir, "retimed.jsonl"))
    n_end = max((len(r["costs"]) for r in retimes), default=0)
    end = [r for r in retimes if len(r["costs"]) == n_end and ok(r)]
    first = {}
    for r in trials:
        first.setdefault(key(r), statistics.median(r["costs"]))
    ratios = {}
    for r in end:
        if key(r) in first:
            ratios.setdefault(r["workload_key"], []).append(statistics.median(r["costs"]) / first[key(r)])
    per_task = sorted(statistics.median(v) for v in ratios.values())
    without = picks(trials + [r for r in retimes if len(r["costs"]) < n_end])
    with_end = picks(trials + retimes)
    end_keys = {key(r) for r in end}
    changed = [w for w in without if with_end.get(w, (0, None))[1] != without[w][1]]
    return {"run": os.path.basename(os.path.normpath(run_dir)),
            "end_vs_first": round(statistics.median(per_task), 3) if per_task else None,
            "end_vs_first_max": round(per_task[-1], 3) if per_task else None,
            "workloads": len(without), "changed": len(changed),
            "changed_to_never_retimed": sum(with_end[w][1] not in end_keys for w in changed if w in with_end)}


def scaled_copy(run_dir, dst):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(run_dir, dst)
    costs = {}
    for r in read(os.path.join(run_dir, "records.jsonl")):
        if ok(r):
            costs.setdefault(key(r), []).extend(r["costs"])
    groups = []
    for r in read(os.path.join(run_dir, "retimed.jsonl")):
        if groups and r["workload_key"] == groups[-1][-1]["workload_key"] and len(r["costs"]) == len(groups[-1][-1]["costs"]):
            groups[-1].append(r)
        else:
            groups.append([r])
    with open(os.path.join(dst, "retimed.jsonl"), "w") as f:
        for group in groups:
            ratios = [statistics.median(r["costs"]) / statistics.median(costs[key(r)])
                      for r in group if ok(r) and key(r) in costs]
            scale = min(ratios) if ratios else 1.0
            for r in group:
                if ok(r):  # later groups see these timings as the binary does: divided by the scale
                    r["scale"] = scale
                    costs.setdefault(key(r), []).extend(c / scale for c in r["costs"])
                f.write(json.dumps(r) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--scaled-copy", metavar="DST")
    args = parser.parse_args()
    if args.scaled_copy:
        if len(args.runs) != 1:
            sys.exit("retime_audit: --scaled-copy takes one RUN_DIR")
        scaled_copy(args.runs[0], args.scaled_copy)
    for run in args.runs:
        print(json.dumps(audit(run)))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Whether two network tunes of one model end on the same kernels (issue 22).

    bench/best_overlap.py RUN_DIR_A RUN_DIR_B

Each RUN_DIR is one `tessera tune MODEL.onnx` run (bench/e2e_tune.sh leaves them in
build/e2e_tune/MODEL_ALLOCATOR). For every task (workload key) both runs tuned, it takes each
run's fastest correct schedule (sketch and knobs, by the lowest median of a record's timings) and
reports whether the two are the same schedule, the ratio of B's best to A's, and whether each
run ever measured the other's best (and how fast it timed it there). Then the two end estimates
(sum of weight x best, the weights from A's summary.json) and the estimate of the per-task better
of the two: how much two searches of the same tasks differ, and what taking the better of two
independent searches per task would be worth. Timings are the runs' own, taken in their own
minutes; read the ratios with the runs' machine speeds (bench/e2e_allocators.py) in mind.
Prints one JSON line per task ({"case": "best_overlap_task", ...}) and one summary line
({"case": "best_overlap", ...}). Runs only when named; never in CI.
"""
import json
import math
import os
import statistics
import sys


def fastest_schedules(run_dir):
    """workload key -> {(sketch, knobs as JSON): lowest median seconds} over the correct records."""
    out = {}
    with open(os.path.join(run_dir, "records.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("error") != "none" or not r.get("costs"):
                continue
            key = (r["sketch"], json.dumps(r["knobs"], sort_keys=True))
            seconds = statistics.median(r["costs"])
            schedules = out.setdefault(r["workload_key"], {})
            if key not in schedules or seconds < schedules[key]:
                schedules[key] = seconds
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    run_a, run_b = sys.argv[1], sys.argv[2]
    for run in (run_a, run_b):
        if not os.path.exists(os.path.join(run, "records.jsonl")):
            sys.exit("best_overlap: %s is not a network run's directory (no records.jsonl)" % run)
    summary = os.path.join(run_a, "summary.json")
    if not os.path.exists(summary):
        sys.exit("best_overlap: %s has no summary.json (a run killed before its end), which holds the task weights" % run_a)
    a, b = fastest_schedules(run_a), fastest_schedules(run_b)
    with open(summary) as f:
        tasks = {t["workload_key"]: t for t in json.load(f)["tasks"]}
    same = 0
    gaps = []
    end_a = end_b = end_better = 0.0
    for key in sorted(set(a) & set(b)):
        best_a = min(a[key], key=a[key].get)
        best_b = min(b[key], key=b[key].get)
        sa, sb = a[key][best_a], b[key][best_b]
        weight = tasks.get(key, {}).get("weight", 0)
        end_a += weight * sa
        end_b += weight * sb
        end_better += weight * min(sa, sb)
        same += best_a == best_b
        gaps.append(max(sa, sb) / min(sa, sb))
        a_in_b, b_in_a = b[key].get(best_a), a[key].get(best_b)
        print(json.dumps({"case": "best_overlap_task", "task": tasks.get(key, {}).get("name", key), "weight": weight,
                          "best_ms_a": round(sa * 1e3, 4), "best_ms_b": round(sb * 1e3, 4),
                          "b_over_a": round(sb / sa, 4), "same_schedule": best_a == best_b,
                          "schedules_a": len(a[key]), "schedules_b": len(b[key]),
                          "a_best_timed_in_b": round(a_in_b / sa, 4) if a_in_b else None,
                          "b_best_timed_in_a": round(b_in_a / sb, 4) if b_in_a else None}))
    if not gaps:
        sys.exit("best_overlap: the runs share no task")
    gaps.sort()
    print(json.dumps({"case": "best_overlap", "run_a": os.path.basename(os.path.normpath(run_a)),
                      "run_b": os.path.basename(os.path.normpath(run_b)), "tasks": len(gaps), "same_schedule": same,
                      "gap_median": round(gaps[len(gaps) // 2], 4), "gap_max": round(gaps[-1], 4),
                      "estimate_ms_a": round(end_a * 1e3, 3), "estimate_ms_b": round(end_b * 1e3, 3),
                      "b_over_a": round(end_b / end_a, 4), "better_of_both_over_a": round(end_better / end_a, 4)}))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""How fast the machine ran during each tuning run, against another run (issue 22).

    bench/e2e_drift.py RUN_DIR REFERENCE_RUN_DIR [--window 120]

Allocator runs of one model are tuned one after another, 20 minutes each, on a shared machine
whose speed drifts with its other tenants. Each run's estimate at a mark rests on timings taken
in its own minutes, so a slow stretch in one run reads as a worse allocator. This script shows
the drift: the schedules both runs measured (same workload, same steps: the warm-up's defaults,
and what both searches found) have their first timings compared, RUN_DIR's over REFERENCE's, in
windows of RUN_DIR's wall clock (from its first record). A median ratio of 1.15 in a window
means RUN_DIR's machine ran 15% slower then than REFERENCE's did when it timed the same kernels.
Prints one JSON line per window:
  {"case": "e2e_drift", "run", "reference", "from_s", "to_s", "schedules", "median_ratio"}
Cut latencies (bench/e2e_allocators.py) are timed side by side and need no correction; the
runs' estimates, and what each allocator saw while choosing, do. Runs only when named.
"""
import argparse
import datetime
import json
import os
import statistics
import sys


def first_timings(run_dir):
    """(workload key, steps) -> (median of its first correct timing, timestamp) from records.jsonl."""
    first = {}
    with open(os.path.join(run_dir, "records.jsonl")) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("error", "none") not in (None, "none") or not r.get("costs"):
                continue
            key = (r["workload_key"], json.dumps(r["steps"], sort_keys=True))
            first.setdefault(key, (statistics.median(r["costs"]), r["timestamp"]))
    return first


def when(timestamp):
    return datetime.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("reference")
    parser.add_argument("--window", type=float, default=120.0, help="seconds of RUN_DIR's wall clock per line")
    args = parser.parse_args()
    if args.window <= 0:
        parser.error("--window takes positive seconds")
    run, reference = first_timings(args.run_dir), first_timings(args.reference)
    if not run:
        sys.exit("e2e_drift: %s has no correct records" % args.run_dir)
    start = min(when(t) for _, t in run.values())
    windows = {}
    for key, (seconds, timestamp) in run.items():
        if key in reference and reference[key][0] > 0:
            w = int((when(timestamp) - start).total_seconds() // args.window)
            windows.setdefault(w, []).append(seconds / reference[key][0])
    if not windows:
        sys.exit("e2e_drift: the two runs measured no schedule in common")
    for w in sorted(windows):
        print(json.dumps({"case": "e2e_drift", "run": os.path.basename(os.path.normpath(args.run_dir)),
                          "reference": os.path.basename(os.path.normpath(args.reference)),
                          "from_s": w * args.window, "to_s": (w + 1) * args.window, "schedules": len(windows[w]),
                          "median_ratio": round(statistics.median(windows[w]), 3)}))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Where a network tune's time went, from its run directory alone.

    /usr/bin/python3 bench/tune_phases.py RUN_DIR [RUN_DIR ...] [--tasks]

Reads each run's rounds.jsonl (per round: search and measure seconds) and summary.json (per task:
trials, confirmations, and the measurer's build and run seconds) and prints one JSON line per
run:
  trials, rounds, seconds (the rounds' wall time), search_s and measure_s (their wall split),
  build_s (the tuner's wait for compiles, compiling itself meanwhile; compiles on the spare
  cores while the worker times are not in it: runtime::BuildPipeline), run_s (the worker's
  wall time: checks, warm-ups, repeats and confirmations), confirmed (new bests timed again
  beside their rivals), and per trial: search_ms, measure_ms, build_ms, run_ms.
measure_s is about build_s + run_s: the two are the measuring phase's wall time, split.
With --tasks, one more line per task with the same split, largest run_s first.
A run directory from before the split was recorded has no build_s and run_s (null).
"""
import json
import os
import sys

from race_summary import read_lines  # one JSON-lines reader for the bench scripts


def per_trial_ms(seconds, trials):
    return round(1e3 * seconds / trials, 1) if seconds is not None and trials else None


def phases(run_dir, tasks_too):
    rounds_path = os.path.join(run_dir, "rounds.jsonl")
    summary_path = os.path.join(run_dir, "summary.json")
    for path in (rounds_path, summary_path):
        if not os.path.exists(path):
            sys.exit(f"{path}: missing (is {run_dir} a network run directory?)")
    rounds = read_lines([rounds_path])
    with open(summary_path) as f:
        summary = json.load(f)
    tasks = summary.get("tasks", [])
    has_split = any("run_seconds" in t for t in tasks)

    def total(key):
        return sum(t.get(key, 0) for t in tasks) if has_split else None

    trials = sum(t.get("trials", 0) for t in tasks)  # a round's "trials" is its task's count so far
    search = sum(r.get("search_seconds", 0) for r in rounds)
    measure = sum(r.get("measure_seconds", 0) for r in rounds)
    build, run = total("build_seconds"), total("run_seconds")
    out = {"run": run_dir, "trials": trials, "rounds": len(rounds),
           "seconds": round(sum(r.get("seconds", 0) for r in rounds), 1),
           "search_s": round(search, 1), "measure_s": round(measure, 1),
           "build_s": round(build, 1) if build is not None else None,
           "run_s": round(run, 1) if run is not None else None,
           "confirmed": sum(t.get("confirmed", 0) for t in tasks),
           "search_ms": per_trial_ms(search, trials), "measure_ms": per_trial_ms(measure, trials),
           "build_ms": per_trial_ms(build, trials), "run_ms": per_trial_ms(run, trials)}
    print(json.dumps(out))
    if not tasks_too:
        return
    by_task = {}
    for r in rounds:
        entry = by_task.setdefault(r["task"], {"search_s": 0.0, "measure_s": 0.0, "rounds": 0})
        entry["search_s"] += r.get("search_seconds", 0)
        entry["measure_s"] += r.get("measure_seconds", 0)
        entry["rounds"] += 1
    lines = []
    for t in tasks:
        n = t.get("trials", 0)
        logged = by_task.get(t["name"], {"search_s": 0.0, "measure_s": 0.0, "rounds": 0})
        lines.append({"run": run_dir, "task": t["name"], "weight": t.get("weight"), "trials": n,
                      "rounds": logged["rounds"], "best_ms": t.get("best_ms"),
                      "search_s": round(logged["search_s"], 2), "measure_s": round(logged["measure_s"], 2),
                      "build_s": round(t["build_seconds"], 2) if "build_seconds" in t else None,
                      "run_s": round(t["run_seconds"], 2) if "run_seconds" in t else None,
                      "confirmed": t.get("confirmed", 0),
                      "run_ms": per_trial_ms(t.get("run_seconds"), n)})
    for line in sorted(lines, key=lambda x: -(x["run_s"] or 0)):
        print(json.dumps(line))


def main(argv):
    tasks_too = "--tasks" in argv
    dirs = [a for a in argv if a != "--tasks"]
    if not dirs:
        sys.exit(__doc__)
    for d in dirs:
        phases(d, tasks_too)


if __name__ == "__main__":
    main(sys.argv[1:])

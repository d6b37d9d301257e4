#!/usr/bin/python3
"""Allocators compared on measured end-to-end latency at the same tuning times (issue 22).

    bench/e2e_allocators.py MODEL.onnx RUN_DIR... [--marks 300,600,1200] [--rounds 3] [--runs 20]
                            [--separate-processes]

Each RUN_DIR is one `tessera tune MODEL.onnx` run (bench/e2e_tune.sh leaves them in
build/e2e_tune/MODEL_ALLOCATOR). Its records, cut at each mark (the trials its curve.csv counts
when its tuning clock passed `mark` seconds: what the run knew then, with the lines of its
retimed.jsonl and verdicts.jsonl, what the run's own executor ranks by, written before its next
trial), are written to build/e2e_allocators/. A cut before the run's budget ends is then finished
as a run with that budget would have finished: its records and re-timings copied to a run
directory of their own (build/e2e_allocators/finished/RUN_MARK) and `tessera tune` run there on
the run's config.yaml with budget.trials=0, which does no search, only the end's re-timing of each
task's top records and the network's verdict (experiments/network_verdict.h); the cut then holds
those too. Without it (--unfinished, the method before stop 99) the whole run's cut had the end's
verdict and the earlier cuts did not, which favoured the longer budget: on ResNet-50 (stop 98)
gradient's end kept 8 verdicts (the network 0.995x) that harl's half-time cut never got.
--finish-ends finishes the whole run's cut the same way (its end's verdict lines are left out of
it first): for runs tuned before the verdict existed, so that all cuts get one binary's end.
The network is run with each cut in rounds. A round is one process,
`tessera run --records CUT1 --records CUT2 ... --json`, that builds every cut's network and times
them interleaved, an inference of each in turn (the order rotated from round to round), so that
the machine's load falls on all of them alike. With --separate-processes a round instead runs
each cut in a process of its own, one after the other (the method before stop 93): on a shared
host whole processes run 15-40% apart minutes apart, which the interleaving cancels. Each cut's
figure is the best of its per-round medians.

The latency measured inside a tuning process is taken minutes apart from run to run and swings
15% with the machine's load; these cuts are all timed in the same minutes, so the allocators'
curves can be set against each other. Prints one JSON line per run and mark, then one per
model with the issue's criteria:
  {"case": "e2e_allocators", "model", "run" (the run directory's name), "allocator", "mark_s",
   "records", "retimed" (re-timing and verdict lines in the cut), "finished" (null for the whole
   run's cut; else the finishing run's wall seconds and its verdict: kept, judged, taken_back,
   kept_over_tuned), "latency_ms", "rounds_ms", "estimated_ms"
   (the run's own estimate then, from its curve.csv: the sum of what its worker measured, so it
   carries the machine's speed during that run)}
  {"case": "e2e_allocators_summary", "model", "cpu", "marks", "allocators" (run -> allocator),
   "latency_ms" and "estimated_ms" (run -> mark -> ms), "harl_half_vs_gradient_full" (harl's ms
   at half the budget / gradient's at the whole: <= 1 means harl reached gradient's end in at most
   half the time), "harl_end_vs_round_robin_end" (<= 1 means harl did not end worse), both again
   from the runs' estimates (*_estimated) and as the median over rounds of the two cuts' ratio
   in the same round (*_paired: a noisy stretch on one cut's rounds moves it less than the ratio
   of best rounds) with the 95% t interval of its mean over rounds (*_paired_ci95; with three
   rounds it is wide: bench/cut_compare.py gives the verdict), the estimates' two ratios again
   with each run's machine speed divided out (*_estimated_same_speed),
   "machine_speed_vs_first_run" (run -> "time_ratio": the median of
   its time over the first run's on the schedules both measured, "geometric_mean" of the same,
   "same_schedules": how many), for runs with a machine probe (experiments/machine_probe.h) "probe" (run -> its
   timings' count, median, ratio to the first probed run's median, and 10th/90th percentiles over
   its median) and "estimated_ms_probe_speed" (run -> mark -> the estimate with each task's best
   read at the first probed run's probe speed, by the probe's timings within --probe-window
   seconds of when that best was timed) with the criteria from them (*_estimated_probe_speed),
   "per_task_harl_half_vs_gradient_full" (task -> the median over rounds of harl's half-budget
   kernel's ms over gradient's whole-budget one in the same process: which tasks make the
   difference; not with --separate-processes), and "per_run" (harl run -> all of these criteria)}
Each run's allocator is read from its summary.json (a run killed before its end: its directory's
name, MODEL_ALLOCATOR); lines name the run by its directory too, so two runs of one allocator
(harl before and after a change) are told apart. The criteria are given for every harl run
("per_run"), against the first gradient and round-robin runs named; the top-level keys are the
first harl run's. Runs only when named; never in CI.
"""
import argparse
import bisect
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cut_compare  # noqa: E402  (its interval)

ALLOCATORS = ("round_robin", "gradient", "harl")


def log(text):
    print("e2e_allocators: " + text, file=sys.stderr, flush=True)


def allocator_of(run_dir):
    try:
        with open(os.path.join(run_dir, "summary.json")) as f:
            return json.load(f)["allocator"]
    except (OSError, ValueError, KeyError):
        pass
    name = os.path.basename(os.path.normpath(run_dir))
    for a in ALLOCATORS:
        if name.endswith("_" + a) or name == a:
            return a
    return name


def read_lines(run_dir, name):
    """Every record line of the run's `name` in the order written: records.jsonl (one per trial), or
    retimed.jsonl (confirmations during the search and the end's re-timing; none for runs from
    before it existed)."""
    path = os.path.join(run_dir, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def timestamp_of(line):
    """A record line's timestamp (ISO 8601 UTC, whole seconds: strings in time order); "" if none."""
    try:
        return json.loads(line).get("timestamp", "")
    except ValueError:
        return ""


def retimes_before(records, count, retimes):
    """The re-timings the run had made before its trial `count` was written (all of them when the
    cut is the whole run). Timestamps are whole seconds, so a re-timing in the same second as that
    next trial is left out: a cut never takes what the run learned after its mark."""
    if count >= len(records):
        return retimes
    until = timestamp_of(records[count])
    return [line for line in retimes if "" < timestamp_of(line) < until]


def write_cut(records, count, path, retimes):
    """The first `count` records to `path`, with the re-timings made before the next trial."""
    retimes = retimes_before(records, count, retimes)
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in records[:count] + retimes))
    return min(count, len(records)), len(retimes)


def budget_of(run_dir):
    """The run's budget in seconds from its config.yaml (JSON); None when it has none."""
    try:
        with open(os.path.join(run_dir, "config.yaml")) as f:
            seconds = json.load(f)["budget"]["seconds"]
        return float(seconds) if seconds and float(seconds) > 0 else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def finish_cut(tessera, run_dir, records, count, retimes, path, finished_dir):
    """A cut finished as a run whose budget ended there: the first `count` records and the
    re-timings written before the next trial go to `finished_dir`, a run directory of its own,
    where `tessera tune` with the run's config.yaml and budget.trials=0 searches nothing and does
    only the end's re-timing and network verdict. Writes the finished records, re-timings and
    verdicts to `path`; returns (record count, re-timing and verdict lines, what the finishing did)."""
    if os.path.isdir(finished_dir):
        shutil.rmtree(finished_dir)
    os.makedirs(finished_dir)
    retimes = retimes_before(records, count, retimes)
    with open(os.path.join(finished_dir, "records.jsonl"), "w") as f:
        f.write("".join(line + "\n" for line in records[:count]))
    with open(os.path.join(finished_dir, "retimed.jsonl"), "w") as f:
        f.write("".join(line + "\n" for line in retimes))
    command = [tessera, "tune", os.path.join(run_dir, "config.yaml"), "--set", "run_dir=" + finished_dir,
               "--set", "budget.trials=0"]
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (" ".join(command), done.returncode, done.stderr[-400:]))
    lines = [line for name in ("records.jsonl", "retimed.jsonl", "verdicts.jsonl")
             for line in read_lines(finished_dir, name)]
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    with open(os.path.join(finished_dir, "summary.json")) as f:
        verdict = json.load(f).get("network_verdict") or {}
    judged = verdict.get("tasks") or []
    what = {"seconds": round(seconds, 1), "judged": len(judged),
            "kept": sum(1 for t in judged if t.get("kept") != "best"),
            "taken_back": verdict.get("taken_back"), "kept_over_tuned": verdict.get("kept_over_tuned")}
    return min(count, len(records)), len(lines) - min(count, len(records)), what


def curve_at(run_dir, seconds):
    """(trials, estimate ms) when the run's tuning clock passed `seconds` (the end of the round that
    crossed it; the run's end if it never did), from its curve.csv (the
    clock leaves out the preparation and the network's own timings, so it is the budget's);
    None before the run's first estimate."""
    at = None
    with open(os.path.join(run_dir, "curve.csv")) as f:
        for row in csv.DictReader(f):
            if row["task"] != "<network>" or float(row["best_seconds"]) <= 0:
                continue
            at = (int(row["trial"]), float(row["best_seconds"]) * 1e3)
            if float(row["elapsed_seconds"]) >= seconds:
                break  # the round that crossed the mark, as a budget of `seconds` would end
    return at


def schedule_times(run_dir):
    """Each schedule the run measured correctly (its task and steps), with the median of its first
    measurement (not the fastest of several: a run that re-timed a schedule more would read faster)
    and its trial number (1 for the run's first record)."""
    times = {}
    for trial, line in enumerate(read_lines(run_dir, "records.jsonl"), 1):
        record = json.loads(line)
        if record.get("error") != "none" or not record.get("costs"):
            continue
        key = record.get("workload_key", "") + json.dumps(record.get("steps"), sort_keys=True)
        times.setdefault(key, (statistics.median(record["costs"]), trial))
    return times


def trial_clock(run_dir):
    """trial number -> the tuning clock at the end of the round that measured it, from curve.csv's
    estimate rows (trials counted after each round)."""
    rows = []
    with open(os.path.join(run_dir, "curve.csv")) as f:
        rows = [(int(r["trial"]), float(r["elapsed_seconds"])) for r in csv.DictReader(f) if r["task"] == "<network>"]
    trials = [n for n, _ in rows]

    def clock(trial):
        i = bisect.bisect_left(trials, trial)
        return rows[min(i, len(rows) - 1)][1] if rows else 0.0
    return clock


def machine_speed(times, reference):
    """How much slower the machine ran `times`' run than `reference`'s: the median, over the
    schedules both runs measured (the tasks' default schedules, and whatever both searches
    reached), of this run's time over the reference's. Two runs of one sitting are timed up to an
    hour apart, and the estimates (sums of what each run measured) carry that drift; the same
    schedule timed in both runs names it. (median ratio, geometric mean, count); (None, None, 0)
    with nothing in common. The median is the one to divide by: a few single timings far off
    (a kernel first timed in a neighbour's burst) pull the mean, by 16% on one ResNet-50 task's
    fourteen schedules once (median 0.981, geometric mean 0.838; stop 80)."""
    common = [k for k in times if k in reference]
    if not common:
        return None, None, 0
    logs = [math.log(times[k][0] / reference[k][0]) for k in common]
    return math.exp(statistics.median(logs)), math.exp(sum(logs) / len(logs)), len(common)


def probe_timings(run_dir):
    """The run's machine probe (experiments/machine_probe.h: one fixed kernel timed every
    budget.probe_every_s of tuning, outside the budget's clock): [(tuning clock s, seconds per
    call)] from curve.csv's "<machine probe>" rows; [] for a run from before the probe."""
    with open(os.path.join(run_dir, "curve.csv")) as f:
        return [(float(row["elapsed_seconds"]), float(row["best_seconds"])) for row in csv.DictReader(f)
                if row["task"] == "<machine probe>" and float(row["best_seconds"]) > 0]


def probe_near(probes, t, window):
    """The median of the probe's timings within `window` seconds of tuning clock `t` (one timing
    is a 60 ms sample and carries a neighbour's burst; the machine's drift is slower); the nearest
    timing when none is that close."""
    near = [s for at, s in probes if abs(at - t) <= window]
    return statistics.median(near) if near else min(probes, key=lambda p: abs(p[0] - t))[1]


def estimates_at_probe_speed(run_dir, probes, reference, marks, window):
    """mark -> the run's estimate (sum over tasks of weight x best, replayed from rounds.jsonl as
    the run computed it) with each task's best scaled by `reference` over the probe's timing in
    the minutes that best was timed: the estimate as if the machine had run at the reference's
    speed throughout. {} without a probe, a round log or the tasks' weights."""
    try:
        with open(os.path.join(run_dir, "summary.json")) as f:
            weights = {t["name"]: t["weight"] for t in json.load(f)["tasks"]}
    except (OSError, ValueError, KeyError):
        return {}
    if not probes or not weights:
        return {}
    scaled, raw, clock, out = {}, {}, 0.0, {}
    pending = sorted(marks)
    for line in read_lines(run_dir, "rounds.jsonl"):
        r = json.loads(line)
        clock += r["seconds"]
        best = r.get("best_seconds")
        if best is not None and best != raw.get(r["task"]):
            raw[r["task"]] = best
            scaled[r["task"]] = best * reference / probe_near(probes, clock, window)
        while pending and clock >= pending[0] and set(scaled) >= set(weights):
            out[str(int(pending.pop(0)))] = sum(weights[t] * scaled[t] for t in weights) * 1e3
    if set(scaled) >= set(weights):  # marks the run never reached: its end, as curve_at
        for mark in pending:
            out[str(int(mark))] = sum(weights[t] * scaled[t] for t in weights) * 1e3
    return out


def layout_of(run_dir):
    """The activation layout the run tuned in (its config.yaml; runs from before layouts: nchw)."""
    try:
        with open(os.path.join(run_dir, "config.yaml")) as f:
            return json.load(f).get("layout", "nchw")
    except (OSError, ValueError):
        return "nhwc"


def run_network(tessera, model, records, runs, layout):
    """For each records file in `records`, the median latency (ms) of the network built from it and
    its ms per task (None from a single file), all timed in one process, interleaved inference by
    inference (tessera run with one --records per file)."""
    command = [tessera, "run", model, "--layout", layout, "--runs", str(runs), "--threads", "1", "--json"]
    for path in records:
        command += ["--records", path]
    done = subprocess.run(command, capture_output=True, text=True)
    lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError("%s failed (exit %d): %s" % (" ".join(command), done.returncode, done.stderr[-400:]))
    line = json.loads(lines[-1])
    if len(records) == 1:
        return [(line["latency_ms"], None)]
    by_path = {entry["records"]: (entry["latency_ms"], entry.get("task_ms")) for entry in line["compared"]}
    return [by_path[path] for path in records]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("run_dirs", nargs="+")
    parser.add_argument("--marks", default="300,600,1200", help="seconds of each run's tuning clock, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20, help="network runs per timing (tessera run --runs)")
    parser.add_argument("--tessera", default=os.path.join(ROOT, "build", "tessera"))
    parser.add_argument("--unfinished", action="store_true",
                        help="cut the records only, without finishing cuts before a run's end (the method before stop 99)")
    parser.add_argument("--finish-ends", action="store_true",
                        help="finish the whole run's cut too: for runs tuned before the end's verdict existed (before stop 97), "
                             "so that every cut is judged by one binary's end")
    parser.add_argument("--separate-processes", action="store_true",
                        help="time each cut in a process of its own (the method before stop 93)")
    parser.add_argument("--probe-window", type=float, default=30,
                        help="seconds of tuning clock either side whose probe timings a best is read against")
    args = parser.parse_args()
    marks = [float(m) for m in args.marks.split(",") if m.strip()]
    if not marks or any(m <= 0 for m in marks):
        parser.error("--marks takes positive seconds, e.g. 300,600,1200")
    if args.rounds < 1 or args.runs < 1:
        parser.error("--rounds and --runs take positive counts")
    model_name = os.path.splitext(os.path.basename(args.model))[0]
    work = os.path.join(ROOT, "build", "e2e_allocators")
    os.makedirs(work, exist_ok=True)

    cuts = []  # (run, mark, path, (record count, re-timing count, finishing or None), estimate ms)
    layout_of_run = {}
    allocator_of_run = {}
    for run_dir in args.run_dirs:
        if not all(os.path.exists(os.path.join(run_dir, f)) for f in ("records.jsonl", "curve.csv")):
            sys.exit("e2e_allocators: %s is not a tuned network's run directory (no records.jsonl or curve.csv)" % run_dir)
        records = read_lines(run_dir, "records.jsonl")
        retimed = read_lines(run_dir, "retimed.jsonl")
        retimes = retimed + read_lines(run_dir, "verdicts.jsonl")
        budget = budget_of(run_dir)
        run = os.path.basename(os.path.normpath(run_dir))
        if run in allocator_of_run:
            sys.exit("e2e_allocators: two run directories named %s" % run)
        allocator_of_run[run] = allocator_of(run_dir)
        layout_of_run[run] = layout_of(run_dir)
        for mark in marks:
            path = os.path.join(work, "%s_%d.jsonl" % (run, mark))
            trials, estimate = curve_at(run_dir, mark) or (0, None)
            at_end = budget is None or mark >= budget - 1e-6
            if args.unfinished or (at_end and not args.finish_ends) or trials == 0:
                cuts.append((run, mark, path, write_cut(records, trials, path, retimes) + (None,), estimate))
                continue
            log("%s at %d s: finishing the cut as a %d s run would (the end's re-timing and verdict)" % (run, mark, mark))
            finished_dir = os.path.join(work, "finished", "%s_%d" % (run, mark))
            try:
                cut = finish_cut(args.tessera, run_dir, records, trials, retimed, path, finished_dir)
            except (RuntimeError, OSError, ValueError) as e:  # a cut finished wrong would mislead; stop
                sys.exit("e2e_allocators: %s at %d s could not be finished (%s); --unfinished cuts without it" % (run, mark, e))
            log("%s at %d s: finished in %.0f s, %d of %d verdicts kept" % (run, mark, cut[2]["seconds"], cut[2]["kept"], cut[2]["judged"]))
            cuts.append((run, mark, path, cut, estimate))
    if not args.separate_processes and len(set(layout_of_run.values())) > 1:
        sys.exit("e2e_allocators: the runs were tuned in different layouts (%s): their cuts cannot be built in one process; "
                 "use --separate-processes" % ", ".join("%s %s" % kv for kv in layout_of_run.items()))
    log("%s: %d cuts, %d rounds%s" % (model_name, len(cuts), args.rounds,
                                      " of one process per cut" if args.separate_processes else " of one process each"))

    timings = {i: [] for i in range(len(cuts))}
    task_timings = {i: [] for i in range(len(cuts))}  # (round, {task: ms per inference}) when in one process
    errors = {}
    for r in range(args.rounds):
        order = list(range(len(cuts)))
        shift = r * len(cuts) // args.rounds
        order = order[shift:] + order[:shift]
        for group in ([[i] for i in order] if args.separate_processes else [order]):
            layout = layout_of_run[cuts[group[0]][0]]
            try:
                times = run_network(args.tessera, args.model, [cuts[i][2] for i in group], args.runs, layout)
            except RuntimeError as e:  # one failed run leaves that round out, not the comparison
                for i in group:
                    errors.setdefault(i, str(e))
                log("round %d: %s: %s" % (r + 1, ", ".join("%s at %d s" % cuts[i][:2] for i in group), e))
                continue
            for i, (ms, task_ms) in zip(group, times):
                timings[i].append((r, ms))
                if task_ms:
                    task_timings[i].append((r, task_ms))
                log("round %d: %s at %d s: %.3f ms" % (r + 1, cuts[i][0], cuts[i][1], ms))

    table, estimates = {}, {}
    for i, (run, mark, _, (count, retimed, finished), estimate) in enumerate(cuts):
        best = min(ms for _, ms in timings[i]) if timings[i] else None
        if best is not None:
            table.setdefault(run, {})[str(int(mark))] = best
        if estimate:
            estimates.setdefault(run, {})[str(int(mark))] = estimate
        line = {"case": "e2e_allocators", "model": model_name, "run": run,
                "allocator": allocator_of_run[run], "mark_s": mark,
                "records": count, "retimed": retimed, "finished": finished,
                "latency_ms": round(best, 3) if best is not None else None,
                "estimated_ms": round(estimate, 3) if estimate else None,
                "rounds_ms": [round(ms, 3) for _, ms in timings[i]]}
        if i in errors:
            line["error"] = errors[i]
        print(json.dumps(line), flush=True)

    full, half = str(int(max(marks))), str(int(max(marks) / 2))
    summary = {"case": "e2e_allocators_summary", "model": model_name, "marks": marks, "latency_ms": table}
    try:
        summary["cpu"] = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        summary["cpu"] = None
    summary["allocators"] = allocator_of_run
    summary["estimated_ms"] = {a: {m: round(v, 3) for m, v in e.items()} for a, e in estimates.items()}
    run_names = list(allocator_of_run)  # in the order named, as args.run_dirs
    times = {run: schedule_times(d) for run, d in zip(run_names, args.run_dirs)}
    # run -> (median and geometric mean of its time / the first run's on the same schedules, how many)
    speed = {run: machine_speed(times[run], times[run_names[0]]) for run in run_names}
    summary["machine_speed_vs_first_run"] = {run: {"same_schedules": c, "time_ratio": round(r, 4) if r else None,
                                                   "geometric_mean": round(g, 4) if g else None}
                                             for run, (r, g, c) in speed.items()}
    # The probe: each run's median timing over the first run's (the machine's speed by one fixed
    # kernel, to set beside the same-schedules ratio above), and the estimates at the first run's
    # probe speed, task by task at the minutes each best was timed.
    probes = {run: probe_timings(d) for run, d in zip(run_names, args.run_dirs)}
    probed = [run for run in run_names if probes[run]]
    probe_estimates = {}
    if probed:
        reference = statistics.median(s for _, s in probes[probed[0]])
        summary["probe"] = {}
        for run, d in zip(run_names, args.run_dirs):
            if not probes[run]:
                continue
            times_of_run = sorted(s for _, s in probes[run])
            median = statistics.median(times_of_run)
            summary["probe"][run] = {
                "timings": len(times_of_run), "median_ms": round(median * 1e3, 4),
                "ratio_vs_first_probed": round(median / reference, 4),
                # the spread of its timings: 10th and 90th percentile over the median
                "p10_p90": [round(times_of_run[len(times_of_run) // 10] / median, 3),
                            round(times_of_run[(len(times_of_run) * 9) // 10] / median, 3)]}
            probe_estimates[run] = estimates_at_probe_speed(d, probes[run], reference, marks, args.probe_window)
            # The test of the probe: the same schedules' ratio, each timing first divided by the
            # probe's near it. Near 1 where the raw ratio is not: the probe saw the drift.
            if run != probed[0]:
                first_dir = args.run_dirs[run_names.index(probed[0])]
                at_probe = {}
                for r, directory in ((run, d), (probed[0], first_dir)):
                    clock = trial_clock(directory)
                    at_probe[r] = {k: (t / probe_near(probes[r], clock(n), args.probe_window), n) for k, (t, n) in times[r].items()}
                ratio = machine_speed(at_probe[run], at_probe[probed[0]])[0]
                summary["probe"][run]["same_schedules_ratio_at_probe_speed"] = round(ratio, 4) if ratio else None
        summary["estimated_ms_probe_speed"] = {run: {m: round(v, 3) for m, v in e.items()}
                                               for run, e in probe_estimates.items() if e}
    first = {}  # allocator -> its first run named
    for run, allocator in allocator_of_run.items():
        first.setdefault(allocator, run)
    cut_index = {(run, str(int(mark))): i for i, (run, mark) in enumerate(c[:2] for c in cuts)}

    def paired(run_a, mark_a, run_b, mark_b):
        """The median over rounds of A's time over B's in the same round: each ratio is taken
        minutes apart at most, so a noisy stretch that falls on one cut's rounds moves it less
        than it moves a ratio of each cut's best round."""
        a, b = cut_index.get((run_a, mark_a)), cut_index.get((run_b, mark_b))
        if a is None or b is None:
            return None
        in_b = dict(timings[b])
        ratios = [ms / in_b[r] for r, ms in timings[a] if r in in_b]
        return round(statistics.median(ratios), 3) if ratios else None

    def paired_interval(run_a, mark_a, run_b, mark_b):
        """The 95% t interval of the mean log ratio over rounds (bench/cut_compare.py's): whether
        the rounds resolve the criterion at all. Each round builds each cut once, so a cut's
        network placement (a few percent on a VM, fixed for the process) is in every ratio;
        bench/cut_compare.py, with copies and more processes, narrows it."""
        a, b = cut_index.get((run_a, mark_a)), cut_index.get((run_b, mark_b))
        if a is None or b is None:
            return None
        in_b = dict(timings[b])
        logs = [math.log(ms / in_b[r]) for r, ms in timings[a] if r in in_b]
        if len(logs) < 2:
            return None
        return [round(v, 3) for v in cut_compare.interval(logs)[1]]

    per_run = {}
    for run in (r for r, a in allocator_of_run.items() if a == "harl"):
        criteria = {}
        for suffix, t in (("", table), ("_estimated", estimates), ("_estimated_probe_speed", probe_estimates)):
            harl = t.get(run, {})
            gradient, rr = t.get(first.get("gradient"), {}), t.get(first.get("round_robin"), {})
            criteria["harl_half_vs_gradient_full" + suffix] = (round(harl[half] / gradient[full], 3)
                                                               if half in harl and full in gradient else None)
            criteria["harl_end_vs_round_robin_end" + suffix] = (round(harl[full] / rr[full], 3)
                                                                if full in harl and full in rr else None)
        # The estimates' ratios with the two runs' machine speed divided out (machine_speed).
        for name, other in (("harl_half_vs_gradient_full", first.get("gradient")),
                            ("harl_end_vs_round_robin_end", first.get("round_robin"))):
            est = criteria[name + "_estimated"]
            if est is not None and speed.get(run, (None,))[0] and speed.get(other, (None,))[0]:
                criteria[name + "_estimated_same_speed"] = round(est / (speed[run][0] / speed[other][0]), 3)
        criteria["harl_half_vs_gradient_full_paired"] = paired(run, half, first.get("gradient"), full)
        criteria["harl_half_vs_gradient_full_paired_ci95"] = paired_interval(run, half, first.get("gradient"), full)
        # Which tasks make the difference: per task, the median over rounds of harl's half-budget
        # kernel's time over gradient's whole-budget one, timed in the same process.
        a, b = cut_index.get((run, half)), cut_index.get((first.get("gradient"), full))
        if a is not None and b is not None and task_timings[a] and task_timings[b]:
            in_b = dict(task_timings[b])
            per_task = {}
            for r, tasks in task_timings[a]:
                for task, ms in tasks.items():
                    if r in in_b and in_b[r].get(task):
                        per_task.setdefault(task, []).append(ms / in_b[r][task])
            criteria["per_task_harl_half_vs_gradient_full"] = {t: round(statistics.median(v), 3) for t, v in per_task.items()}
        criteria["harl_end_vs_round_robin_end_paired"] = paired(run, full, first.get("round_robin"), full)
        criteria["harl_end_vs_round_robin_end_paired_ci95"] = paired_interval(run, full, first.get("round_robin"), full)
        per_run[run] = criteria
    summary.update(per_run.get(first.get("harl"), {}))
    summary["per_run"] = per_run
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()

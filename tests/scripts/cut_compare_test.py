#!/usr/bin/python3
"""Checks bench/cut_compare.py: its rotation of the networks' order, its interval, and one real
run on the tiny committed CNN.

    tests/scripts/cut_compare_test.py TESSERA_BINARY
"""
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
spec = importlib.util.spec_from_file_location("cut_compare", os.path.join(ROOT, "bench", "cut_compare.py"))
cut_compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cut_compare)

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


# Over as many processes as there are sets, every set stands in every position exactly once, and
# each process builds `copies` networks of each set. Fails if the order were fixed (the first set
# always built first: the positional bias the rotation is there to cancel) or a copy were lost.
for n_sets in (2, 3, 4):
    for copies in (1, 2, 3):
        sets = ["s%d" % i for i in range(n_sets)]
        orders = [cut_compare.order_of(sets, copies, p) for p in range(n_sets)]
        for p, order in enumerate(orders):
            check(sorted(order) == sorted(list(range(n_sets)) * copies),
                  "process %d of %d sets x %d copies builds %s" % (p, n_sets, copies, order))
        for position in range(n_sets * copies):
            seen = sorted(order[position] for order in orders)
            check(seen == list(range(n_sets)),
                  "%d sets x %d copies: position %d holds %s over %d processes" % (n_sets, copies, position, seen, n_sets))

# The interval by hand: two log ratios, one degree of freedom, t = 12.706.
logs = [math.log(1.01), math.log(1.03)]
ratio, (low, high) = cut_compare.interval(logs)
mean = (logs[0] + logs[1]) / 2
half = 12.706 * statistics.stdev(logs) / math.sqrt(2)
check(abs(ratio - math.exp(mean)) < 1e-12, "interval's ratio %r, expected %r" % (ratio, math.exp(mean)))
check(abs(low - math.exp(mean - half)) < 1e-12 and abs(high - math.exp(mean + half)) < 1e-12,
      "interval [%r, %r], expected [%r, %r]" % (low, high, math.exp(mean - half), math.exp(mean + half)))
# Thirty-one samples: the t quantile is past the table, 1.96.
check(cut_compare.t95(30) == 2.042 and cut_compare.t95(31) == 1.96, "t95(30), t95(31): %r, %r" %
      (cut_compare.t95(30), cut_compare.t95(31)))

# A real run: the tiny CNN's defaults against themselves (two empty records files), two processes,
# two copies each. Every process line names four networks in its rotated order; the summary
# holds one ratio, its interval around it, and a floor. Fails if the JSON of `tessera run` changed
# shape under the script, or the copies were not all built.
tessera = sys.argv[1]
model = os.path.join(ROOT, "tests", "integration", "models", "tiny_cnn.onnx")
with tempfile.TemporaryDirectory() as tmp:
    a, b = os.path.join(tmp, "a.jsonl"), os.path.join(tmp, "b.jsonl")
    for path in (a, b):
        open(path, "w").close()
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "cut_compare.py"), model, a, b,
                           "--processes", "2", "--copies", "2", "--runs", "5", "--tessera", tessera],
                          capture_output=True, text=True)
    check(done.returncode == 0, "cut_compare exited %d: %s" % (done.returncode, done.stderr[-600:]))
    lines = [json.loads(l) for l in done.stdout.splitlines() if l.startswith("{")]
    processes = [l for l in lines if l["case"] == "cut_compare_process"]
    summary = [l for l in lines if l["case"] == "cut_compare"]
    check(len(processes) == 2 and len(summary) == 1, "lines: %s" % done.stdout[-600:])
    if len(processes) == 2 and len(summary) == 1:
        check([p["order"] for p in processes] == [[0, 1, 0, 1], [1, 0, 1, 0]], "orders %s" % [p["order"] for p in processes])
        check(all(len(p["latency_ms"]) == 4 and min(p["latency_ms"]) > 0 for p in processes), "latencies %s" % processes)
        s = summary[0]
        low, high = s["ci95_vs_first"][b]
        check(low <= s["ratio_vs_first"][b] <= high, "ratio %r outside its interval %r" % (s["ratio_vs_first"][b], [low, high]))
        check(s["verdict_vs_first"][b] in ("faster", "slower", "tie") and s["copy_floor_sd"] is not None, "summary %s" % s)

for f in failures:
    print("FAIL: " + f)
print("cut_compare: %d failures" % len(failures))
sys.exit(1 if failures else 0)

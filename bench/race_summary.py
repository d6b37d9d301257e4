#!/usr/bin/env python3
"""Summarizes `bench/run.sh harl_race` output (JSON lines, from files or stdin).

Per task: evolutionary's best after its trials, the challenger's best, whether the challenger
reached evolutionary's final (exact) or 99% of it within half of evolutionary's time (the race's
stop rule), and which source proposed the challenger's fastest candidate. Then, summed over the
tasks, each source's credit: candidates measured, improvements of the task's best, improvements
per 100 measured, and the tasks whose best it found. A race run in parts (TESSERA_SUITE_TASKS)
is summarized by passing every part's output; a task's latest lines win.

    bench/race_summary.py race_part1.jsonl race_part2.jsonl
"""
import json
import sys


def read_lines(paths):
    lines = []
    for path in paths or ["-"]:
        stream = sys.stdin if path == "-" else open(path)
        for number, text in enumerate(stream, 1):
            text = text.strip()
            if not text:
                continue
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{number}: not a JSON line: {e.msg}")
    return lines


def fastest_source(sources):
    timed = [(v["best_seconds"], k) for k, v in sources.items() if v.get("best_seconds", 0) > 0]
    return min(timed)[1] if timed else "-"


def main(paths):
    tasks = {}  # task -> {agent: line}, in first-seen order
    for line in read_lines(paths):
        if "task" not in line or "agent" not in line:
            if "error" in line:
                print(f"error: {line['error']}", file=sys.stderr)
            continue
        tasks.setdefault(line["task"], {})[line["agent"]] = line
    credit = {}
    exact = near = raced = 0
    print(f"{'task':28} {'evo GF/s':>9} {'harl GF/s':>9} {'ratio':>6} {'exact':>5} {'99%':>4} {'s to final':>10}  best from")
    for task, agents in tasks.items():
        evo = agents.get("evolutionary")
        challengers = [a for a in agents if a != "evolutionary"]
        if not evo or not challengers:
            continue
        ours = agents[challengers[0]]
        raced += 1
        hit = ours.get("seconds_to_evolutionary_final", -1) >= 0
        hit99 = ours.get("seconds_to_99pct_of_evolutionary_final", -1) >= 0
        exact += hit
        near += hit99
        sources = ours.get("sources", {})
        best_from = fastest_source(sources)
        for name, c in sources.items():
            total = credit.setdefault(name, {"measured": 0, "improvements": 0, "bests": 0})
            total["measured"] += c.get("measured", 0)
            total["improvements"] += c.get("improvements", 0)
        if best_from in credit:
            credit[best_from]["bests"] += 1
        ratio = ours["best_gflops"] / evo["best_gflops"] if evo["best_gflops"] else 0
        print(f"{task:28} {evo['best_gflops']:9.1f} {ours['best_gflops']:9.1f} {ratio:6.3f} {'yes' if hit else 'no':>5} "
              f"{'yes' if hit99 else 'no':>4} {ours.get('seconds_to_evolutionary_final', -1):10.1f}  {best_from}")
    print(f"\n{raced} tasks raced: {exact} exact, {near} within 1% (in half of evolutionary's time)\n")
    print(f"{'source':10} {'measured':>8} {'improved':>8} {'per 100':>7} {'bests':>5}")
    for name, c in sorted(credit.items(), key=lambda kv: -kv[1]["improvements"] / max(1, kv[1]["measured"])):
        per100 = 100.0 * c["improvements"] / c["measured"] if c["measured"] else 0
        print(f"{name:10} {c['measured']:8d} {c['improvements']:8d} {per100:7.1f} {c['bests']:5d}")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""A random agent written in Python tunes a matmul through Tessera's real measurer.

The agent speaks ask/tell: `propose(task, count)` returns candidates (sketch index, knob
value indices), `observe(task, measurements)` is told how they ran. `tessera.tune` runs the
same search loop `tessera tune` does; the task writes records.jsonl and config.yaml into the
run directory, so `tessera best RUN_DIR` shows the best schedule found. The agent is first
put through the conformance checks built-in agents pass.

  PYTHONPATH=build/python /usr/bin/python3 examples/python/random_agent.py --run-dir runs/py_random
  build/tessera best runs/py_random
"""
import argparse
import random

import tessera


class RandomAgent:
    name = "py_random"

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def propose(self, task, count):
        sketches = task.sketches
        out, seen = [], set()
        for _ in range(100 * count):
            if len(out) == count:
                break
            s = self.rng.randrange(len(sketches))
            knobs = [self.rng.randrange(n) for n in sketches[s]["knob_sizes"]]
            c = (s, knobs)
            key = (s, tuple(knobs))
            if key not in seen and not task.measured(c):
                seen.add(key)
                out.append(c)
        return out

    def observe(self, task, measurements):
        pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--run-dir", default="runs/py_random")
    p.add_argument("--trials", type=int, default=32)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()

    ok, failures = tessera.check_agent(RandomAgent(a.seed))
    print("conformance:", "ok" if ok else "FAILED " + "; ".join(failures))
    if not ok:
        raise SystemExit(1)

    task = tessera.Task("matmul", {"m": 64, "n": 64, "k": 64}, name="py_matmul", run_dir=a.run_dir,
                        seed=a.seed, repeat=2, min_repeat_ms=5)
    tessera.tune(task, RandomAgent(a.seed), trials=a.trials, batch_size=8)
    best = task.best
    print(f"{task.trials} trials through the real measurer, best {task.best_gflops:.1f} GFLOP/s "
          f"(sketch {best['candidate'][0]}, {best['seconds'] * 1e6:.1f} us); records in {a.run_dir}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""REINFORCE on the replay simulator: a policy over knob values learns to tune a matmul.

The policy is one softmax per (sketch, knob) over that knob's values, plus a softmax over
sketches; each trial samples a candidate from it, the simulator measures it, and the policy
moves toward candidates faster than the running mean (reward: log GFLOP/s, baseline: its
moving average). numpy only. At the end it compares the mean GFLOP/s of the policy's last
batches with its first (uniform) ones.

  PYTHONPATH=build/python /usr/bin/python3 examples/python/reinforce.py --trials 256
"""
import argparse
import math

import numpy as np

import tessera


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


class Reinforce:
    name = "py_reinforce"

    def __init__(self, seed, lr=0.5):
        self.rng = np.random.default_rng(seed)
        self.lr, self.baseline, self.history, self.key = lr, None, [], None

    def propose(self, task, count):
        if self.key != task.workload_key:  # a fresh policy for each task it is given
            self.key = task.workload_key
            self.sketch_logits = np.zeros(len(task.sketches))
            self.knob_logits = [[np.zeros(n) for n in s["knob_sizes"]] for s in task.sketches]
        out, seen = [], set()
        for _ in range(50 * count):
            if len(out) == count:
                break
            s = int(self.rng.choice(len(self.sketch_logits), p=softmax(self.sketch_logits)))
            knobs = [int(self.rng.choice(len(l), p=softmax(l))) for l in self.knob_logits[s]]
            key = (s, tuple(knobs))
            if key not in seen and not task.measured((s, knobs)):
                seen.add(key)
                out.append((s, knobs))
        return out

    def observe(self, task, measurements):
        rewards = [math.log(max(m["gflops"], 1e-3)) for m in measurements]
        self.history.append(float(np.mean([m["gflops"] for m in measurements])))
        for m, r in zip(measurements, rewards):
            self.baseline = r if self.baseline is None else 0.9 * self.baseline + 0.1 * r
            advantage = r - self.baseline
            s, knobs = m["candidate"]
            grad = -softmax(self.sketch_logits)
            grad[s] += 1
            self.sketch_logits += self.lr * advantage * grad
            for logits, k in zip(self.knob_logits[s], knobs):
                g = -softmax(logits)
                g[k] += 1
                logits += self.lr * advantage * g


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trials", type=int, default=256)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    task = tessera.Task("matmul", {"m": 128, "n": 128, "k": 128}, simulate=True, seed=a.seed)
    agent = Reinforce(a.seed)
    ok, failures = tessera.check_agent(Reinforce(a.seed))
    print("conformance:", "ok" if ok else "FAILED " + "; ".join(failures))
    if not ok:
        raise SystemExit(1)
    tessera.tune(task, agent, trials=a.trials, batch_size=16)
    h = agent.history
    first, last = np.mean(h[:2]), np.mean(h[-2:])
    print(f"{task.trials} simulated trials, best {task.best_gflops:.1f} GFLOP/s; mean GFLOP/s of a batch: "
          f"first two {first:.1f}, last two {last:.1f}")
    if last > first:
        print(f"learned: the policy's batches run {last / first:.2f}x faster than its first (uniform) ones")
    else:
        print("did not learn: the last batches are no faster than the first")
        raise SystemExit(1)


if __name__ == "__main__":
    main()

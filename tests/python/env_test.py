#!/usr/bin/python3
"""The Python module's TaskEnv keeps Gymnasium's semantics (run by ctest python.env_semantics).

reset(seed) -> (obs, info) with a bool action mask; step(a) -> 5-tuple; the same seed gives
the same start; an illegal action is penalised and leaves the state; an episode truncates at
max_steps; the reward is the change of the score function; a bad op or an out-of-range
candidate is a ValueError; a task made again on a run directory resumes from its records; a
stuck Python agent fails conformance.
"""
import numpy as np

import tessera

task = tessera.Task("matmul", {"m": 64, "n": 48, "k": 32}, simulate=True)
score = lambda f: f.sum(axis=1)  # any deterministic function of the features
env = tessera.TaskEnv(task, score=score, max_steps=5)

obs, info = env.reset(seed=3)
assert obs.dtype == np.float32 and obs.ndim == 1, obs
assert info["action_mask"].dtype == np.bool_ and len(info["action_mask"]) == env.action_count
assert info["valid"]
obs2, info2 = env.reset(seed=3)
assert np.array_equal(obs, obs2) and info["candidate"] == info2["candidate"], "reset(seed) is not reproducible"

legal = np.flatnonzero(info2["action_mask"])
before = info2["score"]
obs3, reward, terminated, truncated, info3 = env.step(int(legal[0]))
assert isinstance(reward, float) and not terminated and not truncated
if info3["valid"]:
    assert abs(reward - (info3["score"] - before)) < 1e-4, (reward, info3["score"], before)

illegal = np.flatnonzero(~info3["action_mask"])
if len(illegal):
    at = env.candidate
    _, r, _, _, bad = env.step(int(illegal[0]))
    assert not bad["valid"] and r == -1.0 and env.candidate == at, "an illegal action must cost the penalty and not move"

env.reset(seed=4)
for i in range(5):
    _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
assert truncated, "no truncation at max_steps"

try:
    tessera.Task("matmul", {"m": -1, "n": 4, "k": 4})
    raise AssertionError("a bad shape was accepted")
except ValueError:
    pass

# A candidate outside the task's knob domains is a ValueError, not a crash.
for bad in [(99, []), (0, [10**6] * 16), (0, [])]:
    try:
        task.measure([bad])
        raise AssertionError(f"{bad} was measured")
    except ValueError:
        pass

# A task made again on the same run directory resumes from its records.
import tempfile
run = tempfile.mkdtemp(prefix="tessera_py_resume_")
first = tessera.Task("matmul", {"m": 32, "n": 32, "k": 32}, run_dir=run, simulate=True)
batch = [first.sample(s) for s in range(4)]
first.measure(batch)
again = tessera.Task("matmul", {"m": 32, "n": 32, "k": 32}, run_dir=run, simulate=True)
assert again.trials == first.trials > 0, (again.trials, first.trials)
assert all(again.measured(c) for c in batch), "restored candidates must count as measured"

# A broken Python agent fails conformance: it proposes the same candidate every round.
class Stuck:
    name = "stuck"
    def propose(self, task, count):
        return [task.sample(1)]
    def observe(self, task, ms):
        pass
ok, failures = tessera.check_agent(Stuck())
assert not ok and any("re-proposed" in f for f in failures), failures
print("OK")

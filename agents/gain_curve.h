// GainCurve: what a task's k-th round of search is worth, learned across a network's tasks; the
// model behind harl's top level (agents/task_allocator.h).
//
// A task's search improves its best fast at first, then ever more slowly. The relative gain of
// a task's k-th round (k = 1: its default schedules; k >= 2: search rounds), pooled over
// ResNet-50's 27 tasks on two logged runs, was 0.016 at k = 2 (the search's initialization:
// random samples, a cost model that has not seen the task), 0.082 at k = 3, then 0.67-0.96 / k^2
// (bench/NOTES.md, stop 65 on an Intel Xeon). On a Zen 5 (stop 66) the first search round was
// the strongest, 0.028-0.049, with 0.013-0.040 at k = 3. Either way a round's worth depends first
// on how far the task's search has gone, and the shape is learned, not assumed.
//
// The curve learns the mean gain of a k-th round from every task's rounds. From the second
// search round on (k >= 3) the means are pooled to fall with k (pool-adjacent-violators,
// weighted by rounds): deep indices hold few tasks' rounds, and one task's late jump there
// read, unpooled, as the worth of every later index (on a Zen 5, stop 83's MobileNetV2 run:
// its curve at index 24 read 0.011 where 29 logged runs pooled give 0.0008; harl left seven
// small tasks at one search round for nine minutes). Pooled, the lone jump is averaged with the
// indices before it. Then each index is shrunk, with one round's weight, toward the index
// before it decayed as 1/(k-1)^2. The prior at k = 2 is 1: an untried task is worth its whole
// share, Ansor's g - g/t optimism at t = 1. So an index no task has reached yet is the last
// learned one, carried on along that decay. Past the first
// search round an index never reads below that decay of the one before: searches deep in their
// rounds gain rarely (on a Zen 5, BERT's heaviest dense layer gained over 0.1% only in its
// 15th, 17th and 73rd rounds), so a run of empty indices says "rarer", not "never". The
// curve's tail then falls as a power of k, and so the allocator's choice among tasks deep in
// their searches follows their shares rather than their round counts.
//
// A task's own rounds scale the curve: `TaskGains::scale` is the gain it found over the gain the
// curve expected of the same rounds, shrunk toward 1 with the evidence of the first two search
// rounds. A task that keeps beating the curve keeps a scale above 1; one that found nothing
// fades, never to zero.
#pragma once

#include <vector>

namespace tessera::agents {

class GainCurve {
 public:
  // A task's k-th round (k >= 2) cut its best by `gain` (relative, in [0, 1]).
  void add(int k, double gain);
  // The expected relative gain of a k-th round (k >= 2); 0 for k < 2.
  double at(int k) const;
  // at(k) + at(k + 1) + ... over `rounds` rounds: what the curve says is left from round k on.
  double tail(int k, int rounds) const;
  // Rounds added at index k.
  int count(int k) const;

 private:
  void pool();
  std::vector<double> sum_, count_;  // per index k - 2
  std::vector<double> pooled_;       // per index k - 2 (k >= 3): the means pooled to fall with k
};

// One task's search rounds against the curve.
struct TaskGains {
  std::vector<int> rounds;  // the indices k of its search rounds
  double found = 0;         // the sum of their relative gains

  // found / expected, both plus the curve's first two search rounds' worth of pseudo-evidence.
  double scale(const GainCurve& curve) const;
};

}  // namespace tessera::agents

// Timing of a compiled kernel in this process: timed warm-up calls, then `repeats` timed repeats
// of `number` calls each, `number` sized from the fastest warm-up call (and grown if still
// short) so that one repeat lasts at least `min_repeat_ms`; a candidate already past the
// give-up limit stops early.
// Returns every repeat's cost per call in seconds. (The isolated, crash-proof runner of the
// measurement layer builds on the same protocol.)
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "runtime/kernel.h"

namespace tessera::runtime {

// Seconds of the steady clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct TimingOptions {
  int warmup = 1;             // warm-up calls first (timed one by one, not reported)
  double min_warmup_ms = 0;   // ...and more until warming up has lasted this long
  int number = 1;             // calls per repeat to start from
  int repeats = 5;
  double min_repeat_ms = 100;
  bool flush_cache = false;   // write a buffer larger than the last-level cache before each repeat
  // Run before every call (warm-up and repeats), outside its timed span; each call is then timed
  // on its own. Measuring with cold constants sets it to evict the weights (evict_from_caches).
  std::function<void()> before_each_call;
  // When the fastest warm-up call, or else the first repeat, costs more than this per call,
  // timing stops there (that call or repeat is the one cost): a candidate that loses that badly
  // needs no more precise time (0: always every repeat).
  double give_up_seconds = 0;
  // A call made before timing (the correctness check's, the kernel's first: cold), or 0. When
  // it is past kColdCallMargin x give_up_seconds, it is the one cost and nothing runs.
  double first_call_seconds = 0;
  // The time a median must beat to be the task's new best (its best so far; 0: none). The
  // median of R repeats is under it only if (R + 1) / 2 of them are, so timing stops once more
  // than R - (R + 1) / 2 repeats were slower: with 3 repeats, after two slower ones. Exact, not
  // a guess: no candidate that would have become the best is cut. Late in a network tune most
  // candidates are within 10% of the best and run every repeat, so this saves a third of their
  // timing (bench/NOTES.md).
  double best_seconds = 0;
};

// How many of `repeats` repeats may be slower than the best before their median cannot beat it.
inline int slower_repeats_allowed(int repeats) { return repeats - (repeats + 1) / 2; }

// How far past the give-up limit a cold first call must be to judge by it alone. A first call
// pays for page faults, cold caches and the clock's ramp, and it is one sample, so a pause of
// the machine lands in it whole. Over 128-trial evolutionary runs on five suite tasks (AMD EPYC,
// Zen 5), the whole check (call, packing and comparison) took at most 3.9x and 4.2x the
// candidate's fastest warm call on the two convolutions, and 1.3-1.8x at the median; past 5x
// the limit (6.25x the best at the default give_up_ratio), a candidate that would have been a
// new best would need a first call 6x its warm one. It saves the warm-up call; the recorded
// cost is then that cold call, an overstatement of a clear loser's time. Calls under
// kMinColdCallToJudge are never judged: the clock's ramp and page faults could be most of them.
inline constexpr double kColdCallMargin = 5.0;
inline constexpr double kMinColdCallToJudge = 1e-3;

// Writes back and evicts `bytes` from `data` out of every cache level (clflushopt per line),
// so the next read of them comes from memory, as a network's weights do: each layer's weights
// are read once per inference, and all of them together are far past the last-level cache.
void evict_from_caches(const void* data, size_t bytes);

// The median of `values` (0 when empty): the statistic every reported time uses.
double median(std::vector<double> values);

struct Timing {
  std::vector<double> seconds;  // per call, one entry per repeat
  int number = 1;               // calls per repeat
  double median() const { return runtime::median(seconds); }
};

// The same protocol for any callable (used to time baselines such as BLAS calls).
Timing time_callable(const std::function<void()>& call, const TimingOptions& options = {});

Timing time_kernel(const Kernel& kernel, const std::vector<float*>& buffers,
                   const TimingOptions& options = {});

}  // namespace tessera::runtime

// The timing protocol's give-up (TimingOptions::give_up_seconds): a callable slower than the
// limit on its cold first call (by a margin), its warm-up or its first repeat is timed no further;
// one within it gets every repeat.
// Repeats stop once their median cannot beat the best. Repeats are sized from the warm-up. And
// the limit and the best cross the worker protocol (a message without it, from an older parent, means
// never).
#include <gtest/gtest.h>

#include <cmath>
#include <chrono>
#include <thread>

#include "runtime/timing.h"
#include "runtime/worker.h"
#include "runtime/worker_protocol.h"

namespace tessera::runtime {
namespace {

void sleep_2ms() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }
void sleep_us(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

TEST(Timing, GivesUpOnlyWhenSlowerThanTheLimit) {
  TimingOptions options;
  options.repeats = 4;
  options.min_repeat_ms = 1;
  options.give_up_seconds = 1e-3;  // the call takes at least 2 ms
  EXPECT_EQ(time_callable(sleep_2ms, options).seconds.size(), 1u);  // fails if the limit is ignored
  options.give_up_seconds = 1.0;
  EXPECT_EQ(time_callable(sleep_2ms, options).seconds.size(), 4u);  // fails if it gives up on a fast call
  options.give_up_seconds = 0;
  EXPECT_EQ(time_callable(sleep_2ms, options).seconds.size(), 4u);  // 0: never
}

// Two warm-up calls, four repeats of at least 1 ms, and a give-up past 1 ms per call.
TimingOptions two_warm_calls_and_a_1ms_limit() {
  TimingOptions options;
  options.warmup = 2;
  options.min_warmup_ms = 0;
  options.repeats = 4;
  options.min_repeat_ms = 1;
  options.give_up_seconds = 1e-3;
  return options;
}

// A warm-up past the limit ends the timing there: the candidate costs its warm-up and nothing
// more (fails if the warm-up is not timed, or its give-up is ignored and the repeats run).
TEST(Timing, GivesUpOnTheWarmUp) {
  int calls = 0;
  Timing t = time_callable(
      [&] {
        ++calls;
        sleep_2ms();
      },
      two_warm_calls_and_a_1ms_limit());
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(t.seconds.size(), 1u);
  EXPECT_GE(t.seconds[0], 2e-3);  // the warm-up call's own time, not a placeholder
}

// A fast warm-up and a slow first repeat: the repeat's give-up still applies (fails if only
// the warm-up is checked against the limit).
TEST(Timing, GivesUpAfterTheFirstRepeatWhenOnlyTheWarmUpWasFast) {
  int calls = 0;
  Timing t = time_callable([&] { sleep_us(calls++ < 2 ? 100 : 2000); }, two_warm_calls_and_a_1ms_limit());
  EXPECT_GT(calls, 2);  // a repeat ran
  ASSERT_EQ(t.seconds.size(), 1u);
  EXPECT_GE(t.seconds[0], 2e-3);
}

// A cold first call (the check's) far past the limit is the one cost: nothing runs. One past
// the limit by less than kColdCallMargin, or shorter than kMinColdCallToJudge, is not judged.
// Fails if the first call is ignored (calls made) or judged without its margin or floor.
TEST(Timing, GivesUpOnAColdFirstCallOnlyFarPastTheLimit) {
  int calls = 0;
  auto count_and_sleep_2ms = [&] {
    ++calls;
    sleep_2ms();
  };
  TimingOptions options = two_warm_calls_and_a_1ms_limit();
  options.first_call_seconds = 1.01 * kColdCallMargin * options.give_up_seconds;
  Timing t = time_callable(count_and_sleep_2ms, options);
  EXPECT_EQ(calls, 0);
  ASSERT_EQ(t.seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(t.seconds[0], options.first_call_seconds);

  options.first_call_seconds = 0.99 * kColdCallMargin * options.give_up_seconds;
  time_callable(count_and_sleep_2ms, options);
  EXPECT_EQ(calls, 2);  // judged by the warm-up instead

  options.give_up_seconds = 0.1 * kMinColdCallToJudge;
  options.first_call_seconds = 0.9 * kMinColdCallToJudge;  // far past that limit, but too short
  time_callable(count_and_sleep_2ms, options);
  EXPECT_EQ(calls, 4);
}

// The warm-up calls' times size the repeats: every call made is either the warm-up or part of
// a timed repeat, and each repeat still lasts min_repeat_ms. Fails if calls are spent growing
// `number` by trial runs (the doubling protocol ran 1, then 5 calls, before its first repeat).
// The repeats' calls are slower than the warm-up's, so an overrun warm-up sleep cannot leave a
// repeat short.
TEST(Timing, TheWarmUpSizesTheRepeats) {
  int calls = 0;
  TimingOptions options;
  options.warmup = 3;
  options.min_warmup_ms = 0;
  options.repeats = 3;
  options.min_repeat_ms = 10;
  Timing t = time_callable([&] { sleep_us(calls++ < 3 ? 2000 : 4000); }, options);
  ASSERT_EQ(t.seconds.size(), 3u);
  EXPECT_EQ(calls, 3 + t.number * 3);
  for (double per_call : t.seconds) EXPECT_GE(per_call * t.number * 1e3, options.min_repeat_ms);
}

// One warm-up call, repeats of one call each (min_repeat_ms 1 and calls of 2 ms or more), no
// give-up limit: only the best decides.
TimingOptions repeats_judged_by_a_1ms_best(int repeats) {
  TimingOptions options;
  options.warmup = 1;
  options.min_warmup_ms = 0;
  options.repeats = repeats;
  options.min_repeat_ms = 1;
  options.best_seconds = 1e-3;
  return options;
}

// Repeats slower than the best: timing stops once their median cannot beat it, two of three,
// three of five (fails if the best is ignored, if one slower repeat is taken as enough, or if
// the count is off by one). A candidate faster than the best gets every repeat.
TEST(Timing, StopsOnceTheMedianCannotBeatTheBest) {
  EXPECT_EQ(time_callable(sleep_2ms, repeats_judged_by_a_1ms_best(3)).seconds.size(), 2u);
  EXPECT_EQ(time_callable(sleep_2ms, repeats_judged_by_a_1ms_best(5)).seconds.size(), 3u);
  EXPECT_EQ(time_callable(sleep_2ms, repeats_judged_by_a_1ms_best(1)).seconds.size(), 1u);
  TimingOptions faster = repeats_judged_by_a_1ms_best(3);
  faster.best_seconds = 1.0;
  EXPECT_EQ(time_callable(sleep_2ms, faster).seconds.size(), 3u);
  faster.best_seconds = 0;  // none
  EXPECT_EQ(time_callable(sleep_2ms, faster).seconds.size(), 3u);
}

// One slow repeat, then fast ones: its median may still beat the best, so every repeat runs
// (fails if the cut counts repeats rather than slower repeats, or stops at the first slower one).
// The best is 10 ms and a fast call sleeps 0.1 ms, so a loaded machine's late wake-ups (a
// millisecond or two when tests run side by side) do not make a fast repeat read as slower.
TEST(Timing, OneSlowerRepeatDoesNotStopTheTiming) {
  int calls = 0;  // the warm-up's, then the first repeat's: slow; the others: fast
  TimingOptions options = repeats_judged_by_a_1ms_best(3);
  options.best_seconds = 10e-3;
  options.min_repeat_ms = 10;
  Timing t = time_callable([&] { sleep_us(calls++ < 2 ? 20000 : 100); }, options);
  ASSERT_EQ(t.seconds.size(), 3u);
  EXPECT_GT(t.seconds[0], 10e-3);
  EXPECT_LT(t.median(), 10e-3);
}

TEST(Timing, GiveUpLimitAndWarmUpCrossTheWorkerProtocol) {
  ObjectCode object;
  object.entry = "k";
  object.bytes = "x";
  MeasureOptions options;
  options.give_up_seconds = 0.25;
  options.min_warmup_ms = 20;
  options.back_to_back_warmup_ms = 7;
  auto message = run_message(object, options);
  auto back = run_from_message(message);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_DOUBLE_EQ(back->second.give_up_seconds, 0.25);
  EXPECT_EQ(back->second.back_to_back_warmup_ms, 7);  // fails if it is not sent
  options.best_seconds = 0.2;
  message = run_message(object, options);
  back = run_from_message(message);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_DOUBLE_EQ(back->second.best_seconds, 0.2);  // fails if the worker never learns the best
  message.header["options"].erase("give_up_seconds");
  message.header["options"].erase("best_seconds");
  message.header["options"].erase("back_to_back_warmup_ms");
  back = run_from_message(message);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->second.give_up_seconds, 0.0);
  EXPECT_EQ(back->second.best_seconds, 0.0);
  EXPECT_EQ(back->second.back_to_back_warmup_ms, 20);  // an older sender's one warm-up
}

// A worker's warm-up: the full one after an idle spell, the short one right after another
// candidate, never longer than the full one. Fails if the idle spell is ignored either way.
TEST(Timing, AWorkerWarmsUpInFullOnlyAfterAnIdleSpell) {
  MeasureOptions options;
  options.min_warmup_ms = 30;
  options.back_to_back_warmup_ms = 3;
  EXPECT_EQ(warmup_ms_after(options, INFINITY), 30);  // its first candidate
  EXPECT_EQ(warmup_ms_after(options, 2 * kIdleSpellSeconds), 30);
  EXPECT_EQ(warmup_ms_after(options, 0.5 * kIdleSpellSeconds), 3);
  options.back_to_back_warmup_ms = 50;
  EXPECT_EQ(warmup_ms_after(options, 0), 30);
}

}  // namespace
}  // namespace tessera::runtime

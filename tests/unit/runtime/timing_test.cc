// The timing protocol's give-up (TimingOptions::give_up_seconds): a callable slower than the
// limit on its first repeat is timed once; one within it gets every repeat. And the limit
// crosses the worker protocol (a message without it, from an older parent, means never).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "runtime/timing.h"
#include "runtime/worker_protocol.h"

namespace tessera::runtime {
namespace {

void sleep_2ms() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

TEST(Timing, GivesUpAfterOneRepeatOnlyWhenSlowerThanTheLimit) {
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

TEST(Timing, GiveUpLimitCrossesTheWorkerProtocol) {
  ObjectCode object;
  object.entry = "k";
  object.bytes = "x";
  MeasureOptions options;
  options.give_up_seconds = 0.25;
  auto message = run_message(object, options);
  auto back = run_from_message(message);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_DOUBLE_EQ(back->second.give_up_seconds, 0.25);
  message.header["options"].erase("give_up_seconds");
  back = run_from_message(message);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->second.give_up_seconds, 0.0);
}

}  // namespace
}  // namespace tessera::runtime

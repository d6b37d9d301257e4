// In-process kernel timing (see timing.h).
#include "runtime/timing.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <limits>

namespace tessera::runtime {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

namespace {

// Evicts the caches by writing 64 MiB (twice this machine's last-level cache).
void flush_caches() {
  static std::vector<char> buffer(64 << 20);
  static char value = 0;
  std::fill(buffer.begin(), buffer.end(), ++value);
}

}  // namespace

__attribute__((target("clflushopt"))) static void evict_lines_opt(const char* begin, const char* end) {
  for (const char* p = begin; p < end; p += 64) __builtin_ia32_clflushopt(p);
  __builtin_ia32_sfence();
}

void evict_from_caches(const void* data, size_t bytes) {
  if (bytes == 0) return;
  const auto start = reinterpret_cast<uintptr_t>(data) & ~uintptr_t{63};
  const char* begin = reinterpret_cast<const char*>(start);
  const char* end = static_cast<const char*>(data) + bytes;
  static const bool has_clflushopt = __builtin_cpu_supports("clflushopt");
  if (has_clflushopt) return evict_lines_opt(begin, end);
  for (const char* p = begin; p < end; p += 64) __builtin_ia32_clflush(p);
  __builtin_ia32_mfence();
}

Timing time_callable(const std::function<void()>& call, const TimingOptions& options) {
  using Clock = std::chrono::steady_clock;
  auto run = [&](int calls) {
    if (options.flush_cache) flush_caches();
    if (options.before_each_call) {
      double total = 0;
      for (int i = 0; i < calls; ++i) {
        options.before_each_call();
        const auto start = Clock::now();
        call();
        total += std::chrono::duration<double>(Clock::now() - start).count();
      }
      return total;
    }
    auto start = Clock::now();
    for (int i = 0; i < calls; ++i) call();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  // Warm-up: caches, page faults, the thread pool's start and the core's clock, which ramps up
  // over milliseconds after an idle spell (a fixed call count is too short for small kernels).
  // Each warm-up call is timed. When the fastest is past the give-up limit, that call is the one
  // cost and timing ends: most candidates of a search lose by that much. In the worker a kernel
  // has run once before, for its check, so even the first warm-up call is not a cold one; a call
  // under kMinCallToJudge could be mostly the clock's own cost, so it is never judged.
  constexpr double kMinCallToJudge = 1e-5;
  Timing timing;
  if (options.give_up_seconds > 0 && options.first_call_seconds >= kMinColdCallToJudge &&
      options.first_call_seconds > kColdCallMargin * options.give_up_seconds) {
    timing.seconds.push_back(options.first_call_seconds);
    return timing;
  }
  const auto warm_start = Clock::now();
  double fastest_call = std::numeric_limits<double>::infinity();
  auto warm_call = [&] {
    if (options.before_each_call) options.before_each_call();
    const auto start = Clock::now();
    call();
    fastest_call = std::min(fastest_call, std::chrono::duration<double>(Clock::now() - start).count());
  };
  for (int i = 0; i < options.warmup; ++i) warm_call();
  while (std::chrono::duration<double, std::milli>(Clock::now() - warm_start).count() < options.min_warmup_ms) {
    warm_call();
  }
  if (options.give_up_seconds > 0 && fastest_call >= kMinCallToJudge && fastest_call > options.give_up_seconds) {
    timing.seconds.push_back(fastest_call);
    return timing;
  }
  // The fastest warm-up call sizes the repeats, so a repeat reaches min_repeat_ms at once
  // instead of by growing runs that are thrown away (a 14 ms kernel took 14 + 42 ms of those
  // before its first repeat, and then repeats of 84 ms: the doubling overshot).
  timing.number = std::max(1, options.number);
  if (std::isfinite(fastest_call) && fastest_call > 0) {  // no warm-up calls: infinite
    const double calls = std::ceil(options.min_repeat_ms / (fastest_call * 1e3));
    timing.number = std::max(timing.number, static_cast<int>(std::min(calls, double{1 << 24})));
  }
  double elapsed = run(timing.number);
  while (elapsed * 1e3 < options.min_repeat_ms && timing.number < (1 << 24)) {
    timing.number = std::max(timing.number * 2,
                             static_cast<int>(timing.number * options.min_repeat_ms /
                                              std::max(elapsed * 1e3, 1e-3)));
    elapsed = run(timing.number);
  }
  timing.seconds.push_back(elapsed / timing.number);
  if (options.give_up_seconds > 0 && timing.seconds[0] > options.give_up_seconds) return timing;
  int slower = 0;  // repeats slower than the best
  auto beaten = [&] {
    if (options.best_seconds <= 0) return false;
    slower += timing.seconds.back() > options.best_seconds;
    return slower > slower_repeats_allowed(options.repeats);
  };
  if (beaten()) return timing;
  for (int r = 1; r < options.repeats; ++r) {
    timing.seconds.push_back(run(timing.number) / timing.number);
    if (beaten()) break;
  }
  return timing;
}

Timing time_kernel(const Kernel& kernel, const std::vector<float*>& buffers,
                   const TimingOptions& options) {
  std::vector<void*> args(buffers.begin(), buffers.end());
  kernel.prepare_unchecked(args.data());  // packing is not part of a call
  return time_callable([&] { kernel.run_unchecked(args.data()); }, options);
}

}  // namespace tessera::runtime

// Greedy first-fit buffer reuse by lifetime (see memory_plan.h).
#include "runtime/memory_plan.h"

namespace tessera::runtime {

MemoryPlan plan_memory(const std::vector<PlanStep>& steps,
                       const std::map<std::string, int64_t>& intermediate_bytes) {
  MemoryPlan plan;
  // The last step reading each planned tensor (its writer when nothing reads it).
  std::map<std::string, size_t> last_use;
  for (size_t s = 0; s < steps.size(); ++s) {
    for (const auto* names : {&steps[s].writes, &steps[s].reads}) {
      for (const std::string& n : *names) {
        if (intermediate_bytes.count(n)) last_use[n] = s;
      }
    }
  }
  std::vector<bool> free_now;
  for (size_t s = 0; s < steps.size(); ++s) {
    for (const std::string& n : steps[s].writes) {
      auto size = intermediate_bytes.find(n);
      if (size == intermediate_bytes.end() || plan.buffer_of.count(n)) continue;
      const int64_t bytes = (size->second + 63) / 64 * 64;
      plan.total_bytes += bytes;
      int chosen = -1;
      for (size_t b = 0; b < free_now.size() && chosen < 0; ++b) {
        if (free_now[b] && plan.buffer_bytes[b] >= bytes) chosen = static_cast<int>(b);
      }
      if (chosen < 0) {
        chosen = static_cast<int>(plan.buffer_bytes.size());
        plan.buffer_bytes.push_back(bytes);
        free_now.push_back(false);
        plan.peak_bytes += bytes;
      }
      free_now[static_cast<size_t>(chosen)] = false;
      plan.buffer_of[n] = chosen;
    }
    for (const auto* names : {&steps[s].reads, &steps[s].writes}) {
      for (const std::string& n : *names) {
        auto last = last_use.find(n);
        if (last != last_use.end() && last->second == s && plan.buffer_of.count(n)) {
          free_now[static_cast<size_t>(plan.buffer_of[n])] = true;
        }
      }
    }
  }
  return plan;
}

}  // namespace tessera::runtime

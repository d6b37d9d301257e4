// The network executor's memory plan: which buffer holds each intermediate tensor.
//
// Steps run in order; a tensor lives from the step that writes it to the last step that reads
// it. Before a step runs, each tensor it writes takes the first free buffer (in creation order)
// large enough for it, or a new one; after the step, the tensors whose last reader it was
// give their buffers back. Outputs are placed before inputs are released, so a step never
// writes over what it reads. Graph inputs, constants and graph outputs are not planned: they
// keep buffers of their own.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessera::runtime {

struct PlanStep {
  std::vector<std::string> reads, writes;
};

struct MemoryPlan {
  std::vector<int64_t> buffer_bytes;  // one entry per buffer to allocate (64-byte multiples)
  std::map<std::string, int> buffer_of;  // intermediate tensor -> index in buffer_bytes
  int64_t peak_bytes = 0;   // sum of buffer_bytes: what the plan allocates
  int64_t total_bytes = 0;  // sum of every intermediate's size: one buffer each
};

// `intermediate_bytes` sizes the tensors to plan; any other name in the steps is ignored.
MemoryPlan plan_memory(const std::vector<PlanStep>& steps,
                       const std::map<std::string, int64_t>& intermediate_bytes);

}  // namespace tessera::runtime

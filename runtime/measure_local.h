// Checks and times a loaded kernel in the calling process: the measurement worker's job for
// each candidate, and the in-process baseline that the cost of isolation is measured against.
#pragma once

#include "runtime/check.h"
#include "runtime/measure.h"

namespace tessera::runtime {

// A buffer that measure.cold_constants evicts before every timed call.
struct ColdBuffer {
  const void* data;
  size_t bytes;
};

// The buffers of `args` (the kernel's arguments, inputs first) that hold the task's constant
// inputs, and the kernel's own buffers packed from them: what a network reads from memory.
std::vector<ColdBuffer> constant_buffers(const Kernel& kernel, const MeasureTask& task, const std::vector<void*>& args);

// Never throws: a kernel that writes outside its buffers or computes wrong values becomes a
// result with kRuntimeError or kWrongAnswer. (A kernel that crashes or hangs takes the calling
// process with it: that is what the isolated Runner is for.)
MeasureResult measure_loaded_kernel(const Kernel& kernel, const MeasureTask& task,
                                    const MeasureOptions& options);

}  // namespace tessera::runtime

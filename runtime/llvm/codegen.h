// LoopNest IR -> LLVM IR for x86-64 CPUs.
//
// The kernel is `void NAME(void** args)` with one buffer pointer per argument (inputs then
// outputs, 64-byte aligned). It calls an always-inlined body whose pointer parameters are
// noalias and aligned, so O3 may keep accumulators in registers. Vectorized loops become
// explicit vector IR (contiguous loads and stores, broadcasts, gathers or scatters only where
// the index is not unit-stride; masked loads under a vector select); unrolled loops are
// unrolled here; parallel loops are outlined into functions called through
// tessera_parallel_for; float arithmetic may contract into FMA.
#pragma once

#include <memory>
#include <string>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "runtime/kernel.h"
#include "schedule/loop_nest.h"
#include "schedule/result.h"

namespace tessera::runtime {

// Emits `func` into a new module; `target` supplies CPU name, features and data layout.
// `fault` plants a test-only fault at the kernel's entry (see Fault in kernel.h).
Result<std::unique_ptr<llvm::Module>> emit_llvm(const schedule::LoweredFunc& func,
                                                llvm::LLVMContext& context,
                                                const llvm::TargetMachine& target,
                                                Fault fault = Fault::kNone);

}  // namespace tessera::runtime

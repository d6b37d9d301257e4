// A small ORC JIT layer: optimize an LLVM module at O3 for the host and look up its kernel.
//
// One JitModule owns one LLJIT and the code it compiled, so kernels compile independently on
// any thread (TOOLCHAIN.md: an LLJIT per task is a thread-safe pattern). Failures come back as
// Errors, never as aborts. The runtime's C symbols (parallel loops, allocation) are bound
// explicitly; libm comes from the process.
#pragma once

#include <memory>
#include <string>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "schedule/result.h"

namespace tessera::runtime {

// The host's target machine (CPU name and features as LLVM detects them).
Result<std::unique_ptr<llvm::TargetMachine>> host_target_machine();

// Runs the O0..O3 pipeline on `module` in place.
void optimize_module(llvm::Module& module, llvm::TargetMachine& target, int opt_level);

class JitModule {
 public:
  // Takes ownership of the (already optimized) module and its context and compiles it.
  static Result<std::unique_ptr<JitModule>> create(std::unique_ptr<llvm::Module> module,
                                                   std::unique_ptr<llvm::LLVMContext> context);
  // The address of the function `name`, compiling on first lookup.
  Result<void*> lookup(const std::string& name);

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

}  // namespace tessera::runtime

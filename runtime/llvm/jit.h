// A small ORC JIT layer: optimize an LLVM module at O3 for the host, emit relocatable object
// code, and link object code into the process to call its kernel.
//
// Compilation (optimize_module, emit_object) uses a TargetMachine per call, so it runs on any
// thread (TOOLCHAIN.md). One JitModule owns one LLJIT and the object it linked. Failures come
// back as Errors, never as aborts. The runtime's C symbols (parallel loops, allocation) are
// bound explicitly; libm comes from the process.
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

// Relocatable ELF object code for `module` (position-independent, small code model).
Result<std::string> emit_object(llvm::Module& module, llvm::TargetMachine& target);

class JitModule {
 public:
  // Links the object code `bytes` (named `name` in messages) into a fresh LLJIT.
  static Result<std::unique_ptr<JitModule>> create(const std::string& bytes, const std::string& name);
  // The address of the function `name`, compiling on first lookup.
  Result<void*> lookup(const std::string& name);

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

}  // namespace tessera::runtime

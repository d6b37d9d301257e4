// ORC LLJIT wrapper and the O3 pipeline (see jit.h).
#include "runtime/llvm/jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>

#include <mutex>
#include <string>

#include "runtime/kernel.h"
#include "runtime/parallel_runtime.h"

namespace tessera::runtime {
namespace {

// LLVM's option behind kHugeSchedulingRegion (kernel.h); null if this LLVM lacks it.
llvm::cl::Option* scheduling_region_option() {
  return llvm::cl::getRegisteredOptions().lookup("dag-maps-huge-region");
}

// Bounds the machine schedulers' dependence tracking, unless the host application set the
// option itself.
void bound_scheduling_regions() {
  llvm::cl::Option* option = scheduling_region_option();
  if (option == nullptr || option->getNumOccurrences() > 0) return;
  (void)option->addOccurrence(0, "dag-maps-huge-region", std::to_string(kHugeSchedulingRegion));
}

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    bound_scheduling_regions();
  });
}

std::string message(llvm::Error error) { return llvm::toString(std::move(error)); }

Result<llvm::orc::JITTargetMachineBuilder> host_builder() {
  initialize_llvm();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return make_error("LLVM cannot target this host: " + message(builder.takeError()));
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // Objects are linked far from the host's runtime symbols: call them through the GOT.
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  return std::move(*builder);
}

}  // namespace

unsigned scheduling_region_bound() {
  initialize_llvm();
  llvm::cl::Option* option = scheduling_region_option();
  return option == nullptr ? 0 : static_cast<llvm::cl::opt<unsigned>*>(option)->getValue();
}

Result<std::unique_ptr<llvm::TargetMachine>> host_target_machine() {
  auto builder = host_builder();
  if (!builder) return builder.error();
  auto tm = builder->createTargetMachine();
  if (!tm) return make_error("LLVM target machine: " + message(tm.takeError()));
  return std::move(*tm);
}

void optimize_module(llvm::Module& module, llvm::TargetMachine& target, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&target);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                   : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = opt_level <= 0 ? pb.buildO0DefaultPipeline(level)
                                               : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

Result<std::string> emit_object(llvm::Module& module, llvm::TargetMachine& target) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (target.addPassesToEmitFile(passes, stream, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return make_error("LLVM cannot emit object code for this target");
  }
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

Result<std::unique_ptr<JitModule>> JitModule::create(const std::string& bytes,
                                                     const std::string& name) {
  auto builder = host_builder();
  if (!builder) return builder.error();
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*builder)).create();
  if (!jit) return make_error("cannot create the LLVM JIT: " + message(jit.takeError()));
  auto& dylib = (*jit)->getMainJITDylib();

  llvm::orc::SymbolMap runtime_symbols;
  auto bind = [&](const char* name, auto* fn) {
    runtime_symbols[(*jit)->mangleAndIntern(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(fn),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  bind("tessera_parallel_for", &tessera_parallel_for);
  bind("tessera_alloc", &tessera_alloc);
  bind("tessera_free", &tessera_free);
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(runtime_symbols)))) {
    return make_error("cannot bind runtime symbols: " + message(std::move(err)));
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return make_error("cannot search the process for symbols: " + message(process.takeError()));
  dylib.addGenerator(std::move(*process));

  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(bytes, name);
  if (auto err = (*jit)->addObjectFile(std::move(buffer))) {
    return make_error("cannot link the object code of '" + name + "': " + message(std::move(err)));
  }
  auto result = std::unique_ptr<JitModule>(new JitModule());
  result->jit_ = std::move(*jit);
  return result;
}

Result<void*> JitModule::lookup(const std::string& name) {
  auto address = jit_->lookup(name);
  if (!address) return make_error("JIT lookup of '" + name + "': " + message(address.takeError()));
  return address->toPtr<void*>();
}

}  // namespace tessera::runtime

// A compiled CPU kernel and the entry point that builds one from a LoweredFunc.
//
// Kernel hides LLVM: callers pass one pointer per argument (inputs then outputs, in the order
// of LoweredFunc::arguments), each 64-byte aligned and large enough; `run` checks this and
// returns an Error instead of calling the kernel with bad buffers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/loop_nest.h"
#include "schedule/result.h"

namespace tessera::runtime {

struct CompileOptions {
  int opt_level = 3;           // 0..3, the LLVM pipeline
  bool keep_llvm_ir = false;   // keep the optimized IR text for inspection
};

class Kernel {
 public:
  using EntryPoint = void (*)(void** args);
  struct Impl;

  Kernel(std::unique_ptr<Impl> impl);
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;
  ~Kernel();

  Result<void> run(const std::vector<float*>& buffers) const;
  // Calls the kernel with no checks (for timing loops, after one checked `run`).
  void run_unchecked(void** args) const { entry_(args); }

  const std::vector<schedule::KernelArgument>& arguments() const;
  double compile_ms() const;
  const std::string& llvm_ir() const;  // empty unless CompileOptions::keep_llvm_ir

 private:
  friend Result<Kernel> compile_cpu(const schedule::LoweredFunc&, const struct CompileOptions&);
  std::unique_ptr<Impl> impl_;
  EntryPoint entry_ = nullptr;
};

Result<Kernel> compile_cpu(const schedule::LoweredFunc& func, const CompileOptions& options = {});

// Aligned float storage for kernel buffers.
struct AlignedBuffer {
  explicit AlignedBuffer(size_t elements);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  float* data() { return data_; }
  size_t size() const { return size_; }

 private:
  float* data_;
  size_t size_;
};

}  // namespace tessera::runtime

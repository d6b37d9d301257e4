// A compiled CPU kernel and the entry point that builds one from a LoweredFunc.
//
// Kernel hides LLVM: callers pass one pointer per argument (inputs then outputs, in the order
// of LoweredFunc::arguments), each 64-byte aligned and large enough; `run` checks this and
// returns an Error instead of calling the kernel with bad buffers. A kernel whose schedule packs
// constant inputs ahead of time (LoweredFunc::packed) owns those buffers: `prepare` fills them
// from the constant inputs once, and every later call reads them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedule/loop_nest.h"
#include "schedule/result.h"

namespace tessera::runtime {

// Faults a kernel can be built with, for testing the measurement layer's isolation only:
// a tuner never sets these. Each is planted at the kernel's entry.
enum class Fault : uint8_t {
  kNone,
  kSegfault,          // stores through a null pointer
  kInfiniteLoop,      // never returns
  kOutOfBoundsWrite,  // writes just past the end of the last output
  kWrongValue,        // runs, then overwrites the first output element with 12345
  kHugeAllocation,    // asks the runtime for a petabyte
};

struct CompileOptions {
  int opt_level = 3;           // 0..3, the LLVM pipeline
  bool keep_llvm_ir = false;   // keep the optimized IR text for inspection
  Fault fault = Fault::kNone;  // tests only
};

// The memory operations a machine-scheduling region tracks as one before LLVM splits its
// dependence maps (LLVM's `-dag-maps-huge-region`, default 1000), set when Tessera first
// initializes LLVM. Both of LLVM's schedulers build a dependence DAG per basic block whose memory
// edges grow with the square of the block, and fully unrolled tiles make blocks of thousands of
// loads and stores: on ResNet-50's 7x7 conv one such candidate spent 97% of a 4.6 s compile in
// them (llc -time-passes). Bounded at 300, it compiles in about 1 s; the suite's best kernels,
// whose blocks are smaller, compile to identical objects (bench/NOTES.md). The option is LLVM's
// process-wide setting: other LLVM users in the process get the bound too.
inline constexpr unsigned kHugeSchedulingRegion = 300;

// The bound LLVM applies in this process now, read back from its options (0 if this LLVM has
// no such option).
unsigned scheduling_region_bound();

// A kernel compiled to relocatable object code: what the builder produces and a measurement
// worker loads (load_kernel), possibly in another process.
struct ObjectCode {
  std::string entry;                                 // the kernel's symbol
  std::vector<schedule::KernelArgument> arguments;   // inputs then outputs
  std::vector<schedule::KernelArgument> packed;      // buffers packed at load ("<entry>_pack")
  std::string bytes;                                 // an ELF relocatable object
  double compile_ms = 0;                             // all of compile_object, of which:
  double optimize_ms = 0;                            //   the IR pipeline (opt_level)
  double codegen_ms = 0;                             //   instruction selection to object code
  std::string llvm_ir;                               // empty unless keep_llvm_ir
};

// LoopNest -> LLVM IR -> O3 -> object code. Thread-safe: each call has its own LLVM context
// and target machine.
Result<ObjectCode> compile_object(const schedule::LoweredFunc& func,
                                  const CompileOptions& options = {});

class Kernel {
 public:
  using EntryPoint = void (*)(void** args, void** packed);
  struct Impl;

  Kernel(std::unique_ptr<Impl> impl);
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;
  ~Kernel();

  // Checks the buffers, packs the constant inputs (if the schedule packs any) and runs; with
  // `call_seconds`, stores the wall time of the kernel's call itself (packing excluded).
  Result<void> run(const std::vector<float*>& buffers, double* call_seconds = nullptr) const;
  // Computes the packed buffers from the constant inputs among `args` (inputs then outputs);
  // nothing when the kernel packs nothing. Once after load, and again if the constants change.
  void prepare_unchecked(void** args) const { prepare_unchecked(args, packed_); }
  // Calls the kernel with no checks (for timing loops, after one checked `run` or `prepare`).
  void run_unchecked(void** args) const { entry_(args, packed_); }
  // The same with packed buffers of the caller's (`packed()` gives their sizes): one set per
  // set of constants, e.g. per layer when layers of one shape share a kernel.
  void prepare_unchecked(void** args, void** packed) const {
    if (pack_) pack_(args, packed);
  }
  void run_unchecked(void** args, void** packed) const { entry_(args, packed); }

  const std::vector<schedule::KernelArgument>& arguments() const;
  const std::vector<schedule::KernelArgument>& packed() const;
  void* const* packed_buffers() const { return packed_; }  // the kernel's own, packed() order
  double compile_ms() const;
  const std::string& llvm_ir() const;  // empty unless CompileOptions::keep_llvm_ir

 private:
  friend Result<Kernel> load_kernel(const ObjectCode&);
  std::unique_ptr<Impl> impl_;
  EntryPoint entry_ = nullptr;
  EntryPoint pack_ = nullptr;
  void** packed_ = nullptr;  // the packed buffers' addresses (owned by impl_)
};

// Links object code into this process (ORC JIT) and finds its entry point.
Result<Kernel> load_kernel(const ObjectCode& object);

// compile_object + load_kernel: a kernel callable in this process.
Result<Kernel> compile_cpu(const schedule::LoweredFunc& func, const CompileOptions& options = {});

// Aligned float storage for kernel buffers.
// Kernel buffers start on a page boundary, in the worker and in benchmarks alike. Where a
// buffer starts modulo 4 KiB decides 4K-aliasing stalls between loads and stores of different
// buffers; with heap-dependent offsets one SGEMM schedule measured 110 GFLOP/s in one worker
// and 40 in the next. Page alignment makes measurements repeatable (and is what large tensor
// allocations get in practice).
inline constexpr size_t kBufferAlignment = 4096;

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

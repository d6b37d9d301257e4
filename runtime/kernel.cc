// Kernel: compile a LoweredFunc to object code, link it into this process, call it safely
// (see kernel.h).
#include "runtime/kernel.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>

#include "runtime/llvm/codegen.h"
#include "runtime/llvm/jit.h"
#include "runtime/memory.h"

namespace tessera::runtime {

struct Kernel::Impl {
  std::unique_ptr<JitModule> jit;
  std::vector<schedule::KernelArgument> arguments;
  std::vector<schedule::KernelArgument> packed;
  std::vector<std::unique_ptr<AlignedBuffer>> packed_buffers;
  std::vector<void*> packed_pointers;
  double compile_ms = 0;
  std::string llvm_ir;
};

Kernel::Kernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;
Kernel::~Kernel() = default;

const std::vector<schedule::KernelArgument>& Kernel::arguments() const { return impl_->arguments; }
const std::vector<schedule::KernelArgument>& Kernel::packed() const { return impl_->packed; }

double Kernel::compile_ms() const { return impl_->compile_ms; }
const std::string& Kernel::llvm_ir() const { return impl_->llvm_ir; }

Result<void> Kernel::run(const std::vector<float*>& buffers, double* call_seconds) const {
  const auto& args = impl_->arguments;
  if (buffers.size() != args.size()) {
    return make_error("kernel takes " + std::to_string(args.size()) + " buffers, got " +
                      std::to_string(buffers.size()));
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i] == nullptr || reinterpret_cast<uintptr_t>(buffers[i]) % 64 != 0) {
      return make_error("buffer '" + args[i].name + "' is null or not 64-byte aligned");
    }
  }
  std::vector<void*> raw(buffers.begin(), buffers.end());
  prepare_unchecked(raw.data());
  const auto start = std::chrono::steady_clock::now();
  entry_(raw.data(), packed_);
  if (call_seconds) *call_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {};
}

namespace {
double since_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

Result<ObjectCode> compile_object(const schedule::LoweredFunc& func, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  auto target = host_target_machine();
  if (!target) return target.error();
  llvm::LLVMContext context;
  auto module = emit_llvm(func, context, **target, options.fault);
  if (!module) return module.error();
  std::string problems;
  llvm::raw_string_ostream problem_stream(problems);
  if (llvm::verifyModule(**module, &problem_stream)) {
    return make_error("generated LLVM IR for '" + func.name + "' is invalid: " + problems);
  }
  const auto optimize_start = std::chrono::steady_clock::now();
  optimize_module(**module, **target, options.opt_level);
  ObjectCode object;
  object.optimize_ms = since_ms(optimize_start);
  object.entry = func.name;
  object.arguments = func.arguments;
  object.packed = func.packed;
  if (options.keep_llvm_ir) {
    llvm::raw_string_ostream ir(object.llvm_ir);
    (*module)->print(ir, nullptr);
  }
  const auto codegen_start = std::chrono::steady_clock::now();
  auto bytes = emit_object(**module, **target);
  if (!bytes) return bytes.error();
  object.codegen_ms = since_ms(codegen_start);
  object.bytes = std::move(*bytes);
  object.compile_ms = since_ms(start);
  return object;
}

Result<Kernel> load_kernel(const ObjectCode& object) {
  auto start = std::chrono::steady_clock::now();
  auto jit = JitModule::create(object.bytes, object.entry);
  if (!jit) return jit.error();
  auto address = (*jit)->lookup(object.entry);
  if (!address) return address.error();
  Kernel::EntryPoint pack = nullptr;
  if (!object.packed.empty()) {
    auto pack_address = (*jit)->lookup(object.entry + "_pack");
    if (!pack_address) return pack_address.error();
    pack = reinterpret_cast<Kernel::EntryPoint>(*pack_address);
  }
  auto impl = std::make_unique<Kernel::Impl>();
  impl->jit = std::move(*jit);
  impl->arguments = object.arguments;
  impl->packed = object.packed;
  for (const schedule::KernelArgument& a : object.packed) {
    impl->packed_buffers.push_back(std::make_unique<AlignedBuffer>(static_cast<size_t>(a.size)));
    impl->packed_pointers.push_back(impl->packed_buffers.back()->data());
  }
  impl->compile_ms = object.compile_ms + since_ms(start);
  impl->llvm_ir = object.llvm_ir;
  void** packed_pointers = impl->packed_pointers.data();
  Kernel kernel(std::move(impl));
  kernel.entry_ = reinterpret_cast<Kernel::EntryPoint>(*address);
  kernel.pack_ = pack;
  kernel.packed_ = packed_pointers;
  return kernel;
}

Result<Kernel> compile_cpu(const schedule::LoweredFunc& func, const CompileOptions& options) {
  auto object = compile_object(func, options);
  if (!object) return object.error();
  return load_kernel(*object);
}

// From the allocator the worker's measurement buffers use (memory.h): a kernel timed in a
// benchmark or run by an application sees the same page sizes as when it was measured.
AlignedBuffer::AlignedBuffer(size_t elements) : size_(elements) {
  data_ = static_cast<float*>(allocate_buffer_memory(std::max<size_t>(elements, 1) * sizeof(float), kBufferAlignment));
}

AlignedBuffer::~AlignedBuffer() { free_buffer_memory(data_); }

}  // namespace tessera::runtime

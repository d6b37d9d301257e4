// LoopNest statements -> LLVM IR: the kernel entry, loops, parallel outlining, allocations.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include "runtime/llvm/codegen.h"
#include "runtime/llvm/emitter.h"
#include "schedule/simplify.h"

namespace tessera::runtime {

using schedule::ExprNode;
using schedule::ForKind;
using schedule::Stmt;
using schedule::StmtKind;
using schedule::StmtNode;

Emitter::Emitter(llvm::Module& module, std::string cpu, std::string features)
    : module_(module), ctx_(module.getContext()), b_(module.getContext()),
      cpu_(std::move(cpu)), features_(std::move(features)) {
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);
  b_.setFastMathFlags(fmf);
}

void Emitter::apply_attributes(llvm::Function* f) {
  f->addFnAttr(llvm::Attribute::NoUnwind);
  if (!cpu_.empty()) f->addFnAttr("target-cpu", cpu_);
  if (!features_.empty()) f->addFnAttr("target-features", features_);
  f->addFnAttr("prefer-vector-width", "512");
}

Result<void> Emitter::emit_kernel(const schedule::LoweredFunc& func, Fault fault) {
  // NAME(args, packed): `args` holds the arguments (inputs then outputs), `packed` the
  // buffers the kernel keeps from load to unload (LoweredFunc::packed).
  auto* ptr = llvm::PointerType::getUnqual(ctx_);
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr}, false);
  auto* kernel = llvm::Function::Create(type, llvm::Function::ExternalLinkage, func.name, module_);
  apply_attributes(kernel);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", kernel));
  std::vector<llvm::Value*> pointers;
  auto bind = [&](const std::vector<schedule::KernelArgument>& list, llvm::Value* array) {
    for (size_t i = 0; i < list.size(); ++i) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr, array, i);
      llvm::Value* p = b_.CreateLoad(ptr, slot, list[i].name);
      scope_.buffers.emplace_back(list[i].name, p);
      buffer_elements_[list[i].name] = list[i].size;
      pointers.push_back(p);
    }
  };
  bind(func.arguments, kernel->getArg(0));
  bind(func.packed, kernel->getArg(1));
  llvm::IRBuilderBase::InsertPoint call_site = b_.saveIP();
  llvm::Function* body = emit_region(func.name + "_body", func.body, nullptr);
  b_.restoreIP(call_site);
  plant_fault(fault, func, pointers, /*after_body=*/false);
  b_.CreateCall(body, pointers);
  plant_fault(fault, func, pointers, /*after_body=*/true);
  b_.CreateRetVoid();
  if (func.pack_body) {
    // NAME_pack(args, packed): computes the packed buffers from the constant inputs.
    auto* pack = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                        func.name + "_pack", module_);
    apply_attributes(pack);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", pack));
    scope_.buffers.clear();
    pointers.clear();
    bind(func.arguments, pack->getArg(0));
    bind(func.packed, pack->getArg(1));
    call_site = b_.saveIP();
    llvm::Function* pack_body = emit_region(func.name + "_pack_body", func.pack_body, nullptr);
    b_.restoreIP(call_site);
    b_.CreateCall(pack_body, pointers);
    b_.CreateRetVoid();
  }
  if (!error_.empty()) return make_error(error_);
  return {};
}

void Emitter::plant_fault(Fault fault, const schedule::LoweredFunc& func,
                          const std::vector<llvm::Value*>& pointers, bool after_body) {
  auto* ptr = llvm::PointerType::getUnqual(ctx_);
  const size_t last = func.arguments.size() - 1;
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  switch (fault) {
    case Fault::kNone: return;
    case Fault::kSegfault:
      if (!after_body) b_.CreateStore(b_.getInt32(1), llvm::ConstantPointerNull::get(ptr), /*isVolatile=*/true);
      return;
    case Fault::kInfiniteLoop:
      if (!after_body) {
        auto* spin = llvm::BasicBlock::Create(ctx_, "spin", f);
        b_.CreateBr(spin);
        b_.SetInsertPoint(spin);
        b_.CreateStore(b_.getInt32(0), pointers[last], /*isVolatile=*/true);
        b_.CreateBr(spin);
        // Unreachable continuation for the rest of the entry code.
        b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "after_spin", f));
      }
      return;
    case Fault::kOutOfBoundsWrite:
      if (after_body) {
        llvm::Value* past = b_.CreateConstInBoundsGEP1_64(b_.getFloatTy(), pointers[last],
                                                          func.arguments[last].size + 3);
        b_.CreateStore(llvm::ConstantFP::get(b_.getFloatTy(), 1.0), past, /*isVolatile=*/true);
      }
      return;
    case Fault::kWrongValue:
      if (after_body) b_.CreateStore(llvm::ConstantFP::get(b_.getFloatTy(), 12345.0), pointers[last]);
      return;
    case Fault::kHugeAllocation:
      if (!after_body) {
        llvm::FunctionCallee alloc_fn = module_.getOrInsertFunction(
            "tessera_alloc", llvm::FunctionType::get(ptr, {b_.getInt64Ty()}, false));
        llvm::Value* p = b_.CreateCall(alloc_fn, {b_.getInt64(int64_t{1} << 50)});
        b_.CreateStore(b_.getInt32(0), p, /*isVolatile=*/true);
      }
      return;
  }
}

llvm::Function* Emitter::emit_region(const std::string& name, const Stmt& body,
                                     const StmtNode* range_loop) {
  auto* ptr = llvm::PointerType::getUnqual(ctx_);
  auto* i64 = b_.getInt64Ty();
  std::vector<llvm::Type*> params(scope_.buffers.size(), ptr);
  params.insert(params.end(), scope_.vars.size(), i64);
  if (range_loop) params.insert(params.end(), 2, i64);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                   llvm::Function::InternalLinkage, name, module_);
  apply_attributes(f);
  f->addFnAttr(llvm::Attribute::AlwaysInline);

  Scope outer = scope_;
  Scope inner;
  unsigned arg = 0;
  for (const auto& [buffer, value] : outer.buffers) {
    f->addParamAttr(arg, llvm::Attribute::NoAlias);
    f->addParamAttr(arg, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
    f->getArg(arg)->setName(buffer);
    inner.buffers.emplace_back(buffer, f->getArg(arg++));
  }
  for (const auto& [v, value] : outer.vars) {
    f->getArg(arg)->setName(v->name);
    inner.vars.emplace_back(v, f->getArg(arg++));
  }
  scope_ = inner;
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  std::vector<llvm::Value*> outer_heap = std::move(heap_buffers_);
  heap_buffers_.clear();
  if (range_loop) {
    emit_serial_loop(*range_loop, f->getArg(arg), f->getArg(arg + 1), false);
  } else {
    emit_stmt(body);
  }
  return_from_function();
  heap_buffers_ = std::move(outer_heap);
  scope_ = std::move(outer);
  return f;
}

void Emitter::emit_stmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) emit_stmt(c);
      return;
    case StmtKind::kStore: emit_store(*s); return;
    case StmtKind::kAllocate: emit_allocate(*s); return;
    case StmtKind::kIfThenElse: {
      if (vec_.var) {
        // Under a vector loop a guard is a lane mask for the stores below it.
        llvm::Value* outer = vec_mask_;
        llvm::Value* cond = broadcast(emit(s->condition, outer));
        vec_mask_ = outer ? b_.CreateAnd(outer, cond) : cond;
        emit_stmt(s->then_case);
        vec_mask_ = outer;
        return;
      }
      llvm::Value* cond = emit(s->condition);
      llvm::Function* f = b_.GetInsertBlock()->getParent();
      auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", f);
      auto* else_bb = s->else_case ? llvm::BasicBlock::Create(ctx_, "else", f) : nullptr;
      auto* merge = llvm::BasicBlock::Create(ctx_, "endif", f);
      b_.CreateCondBr(cond, then_bb, else_bb ? else_bb : merge);
      b_.SetInsertPoint(then_bb);
      emit_stmt(s->then_case);
      b_.CreateBr(merge);
      if (else_bb) {
        b_.SetInsertPoint(else_bb);
        emit_stmt(s->else_case);
        b_.CreateBr(merge);
      }
      b_.SetInsertPoint(merge);
      return;
    }
    case StmtKind::kFor:
      loop_extents_[s->loop_var.get()] = s->extent;
      switch (s->for_kind) {
        case ForKind::kParallel: emit_parallel(*s); return;
        case ForKind::kVectorized: emit_vectorized(*s); return;
        case ForKind::kUnrolled: emit_unrolled(*s); return;
        case ForKind::kSerial:
          emit_serial_loop(*s, b_.getInt64(0), b_.getInt64(s->extent), false);
          return;
        case ForKind::kGpuBlock:
        case ForKind::kGpuThread:
          error_ = "loop '" + s->loop_var->name + "' is bound to a GPU axis; the CPU backend "
                   "cannot compile it";
          return;
      }
  }
}

void Emitter::emit_serial_loop(const StmtNode& loop, llvm::Value* begin, llvm::Value* end,
                               bool hint_vectorize) {
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, loop.loop_var->name + ".header", f);
  auto* body = llvm::BasicBlock::Create(ctx_, loop.loop_var->name + ".body", f);
  auto* exit = llvm::BasicBlock::Create(ctx_, loop.loop_var->name + ".exit", f);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2, loop.loop_var->name);
  iv->addIncoming(begin, preheader);
  b_.CreateCondBr(b_.CreateICmpSLT(iv, end), body, exit);
  b_.SetInsertPoint(body);
  scope_.vars.emplace_back(loop.loop_var.get(), iv);
  emit_stmt(loop.body);
  scope_.vars.pop_back();
  llvm::Value* next = b_.CreateNSWAdd(iv, b_.getInt64(1));
  auto* latch = b_.CreateBr(header);
  iv->addIncoming(next, b_.GetInsertBlock());
  if (hint_vectorize) {
    llvm::MDNode* enable = llvm::MDNode::get(
        ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
               llvm::ConstantAsMetadata::get(b_.getTrue())});
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, {nullptr, enable});
    id->replaceOperandWith(0, id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  b_.SetInsertPoint(exit);
}

void Emitter::emit_unrolled(const StmtNode& loop) {
  for (int64_t i = 0; i < loop.extent; ++i) {
    scope_.vars.emplace_back(loop.loop_var.get(), b_.getInt64(i));
    emit_stmt(loop.body);
    scope_.vars.pop_back();
  }
}

namespace {

// A vectorized loop is emitted as vector IR when its body is straight-line stores, possibly
// under guards (which become masks).
bool is_straight_line(const Stmt& s) {
  if (s->kind == StmtKind::kStore) return true;
  if (s->kind == StmtKind::kIfThenElse) return !s->else_case && is_straight_line(s->then_case);
  if (s->kind != StmtKind::kSeq) return false;
  for (const Stmt& c : s->children) {
    if (!is_straight_line(c)) return false;
  }
  return true;
}

}  // namespace

void Emitter::emit_vectorized(const StmtNode& loop) {
  if (vec_.var != nullptr || loop.extent < 2 || !is_straight_line(loop.body)) {
    // Inner loops or guards under the vector loop: a scalar loop the LLVM vectorizer may take.
    emit_serial_loop(loop, b_.getInt64(0), b_.getInt64(loop.extent), true);
    return;
  }
  // Chunks of power-of-two widths, widest first (24 lanes: 16 + 8; 9: 8 + one scalar step).
  // At odd widths the broadcast operands were read as gathers, which AVX2 code expands lane by
  // lane, and LLVM widened and split the accumulators: MobileNetV2's 96->24 1x1 conv took 4.1 ms
  // at 12 lanes against 0.34 ms at 8 (Zen 3, bench/NOTES.md). A
  // 9-lane vector also met a wrong-code fault of LLVM 19's X86 instruction selection on AVX2
  // (a padded read's hoisted masks, jit_odd_width_test.cc). Chunks keep every vector legal.
  for (int64_t at = 0; at < loop.extent;) {
    int64_t lanes = 1;
    while (lanes * 2 <= loop.extent - at) lanes *= 2;
    if (lanes == 1) {
      scope_.vars.emplace_back(loop.loop_var.get(), b_.getInt64(at));
      emit_stmt(loop.body);
      scope_.vars.pop_back();
    } else {
      vec_ = VectorLoop{loop.loop_var.get(), static_cast<unsigned>(lanes), at};
      emit_stmt(loop.body);
      vec_ = VectorLoop{};
      vec_mask_ = nullptr;
    }
    at += lanes;
  }
}

void Emitter::emit_parallel(const StmtNode& loop) {
  auto* ptr = llvm::PointerType::getUnqual(ctx_);
  auto* i64 = b_.getInt64Ty();
  std::string name = b_.GetInsertBlock()->getParent()->getName().str() + "_par" +
                     std::to_string(regions_++);
  llvm::IRBuilderBase::InsertPoint site = b_.saveIP();
  llvm::Function* region = emit_region(name + "_body", nullptr, &loop);

  // The closure: every buffer and loop variable in scope, in the region's parameter order.
  std::vector<llvm::Type*> fields(scope_.buffers.size(), ptr);
  fields.insert(fields.end(), scope_.vars.size(), i64);
  auto* closure_type = llvm::StructType::get(ctx_, fields);
  auto* trampoline = llvm::Function::Create(
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, i64, i64}, false),
      llvm::Function::InternalLinkage, name, module_);
  apply_attributes(trampoline);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", trampoline));
  std::vector<llvm::Value*> args;
  for (unsigned i = 0; i < fields.size(); ++i) {
    llvm::Value* slot = b_.CreateStructGEP(closure_type, trampoline->getArg(0), i);
    args.push_back(b_.CreateLoad(fields[i], slot));
  }
  args.push_back(trampoline->getArg(1));
  args.push_back(trampoline->getArg(2));
  b_.CreateCall(region, args);
  b_.CreateRetVoid();

  b_.restoreIP(site);
  llvm::Function* current = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&current->getEntryBlock(), current->getEntryBlock().begin());
  llvm::Value* closure = entry.CreateAlloca(closure_type);
  unsigned field = 0;
  for (const auto& [n, v] : scope_.buffers) b_.CreateStore(v, b_.CreateStructGEP(closure_type, closure, field++));
  for (const auto& [n, v] : scope_.vars) b_.CreateStore(v, b_.CreateStructGEP(closure_type, closure, field++));
  llvm::FunctionCallee runtime = module_.getOrInsertFunction(
      "tessera_parallel_for", llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, i64}, false));
  b_.CreateCall(runtime, {trampoline, closure, b_.getInt64(loop.extent)});
}

void Emitter::emit_allocate(const StmtNode& alloc) {
  if (alloc.scope == schedule::StorageScope::kShared) {
    error_ = "buffer '" + alloc.buffer + "' is in GPU shared memory; the CPU backend cannot "
             "allocate it";
    return;
  }
  // Storage is taken once per call of the enclosing function (the kernel body, or one chunk of
  // a parallel loop), at its entry, however deep the Allocate sits: a buffer allocated inside a
  // loop is reused by every iteration instead of being allocated by each.
  auto* ptr = llvm::PointerType::getUnqual(ctx_);
  llvm::Type* elem = scalar_type(alloc.dtype);
  uint64_t bytes = static_cast<uint64_t>(alloc.size) * schedule::dtype_bytes(alloc.dtype);
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::Value* storage;
  if (alloc.scope == schedule::StorageScope::kLocal && bytes <= kMaxStackBytes) {
    auto* a = entry.CreateAlloca(llvm::ArrayType::get(elem, alloc.size), nullptr, alloc.buffer);
    a->setAlignment(llvm::Align(64));
    storage = a;
  } else {
    llvm::FunctionCallee alloc_fn = module_.getOrInsertFunction(
        "tessera_alloc", llvm::FunctionType::get(ptr, {b_.getInt64Ty()}, false));
    storage = entry.CreateCall(alloc_fn, {entry.getInt64(bytes)}, alloc.buffer);
    heap_buffers_.push_back(storage);
  }
  scope_.buffers.emplace_back(alloc.buffer, storage);
  buffer_elements_[alloc.buffer] = alloc.size;
  emit_stmt(alloc.body);
  scope_.buffers.pop_back();
}

void Emitter::return_from_function() {
  auto* ptr = llvm::PointerType::getUnqual(ctx_);
  llvm::FunctionCallee free_fn = module_.getOrInsertFunction(
      "tessera_free", llvm::FunctionType::get(b_.getVoidTy(), {ptr}, false));
  for (llvm::Value* buffer : heap_buffers_) b_.CreateCall(free_fn, {buffer});
  heap_buffers_.clear();
  b_.CreateRetVoid();
}

void Emitter::emit_store(const StmtNode& store) {
  llvm::Value* base = buffer(store.buffer);
  llvm::Type* elem = scalar_type(store.value->dtype);
  llvm::Value* value = emit(store.value, vec_mask_);
  if (!vec_.var || !varies(store.index)) {
    if (value->getType()->isVectorTy()) {
      // Every lane writes the same element: the last lane's write is the one that stays.
      value = b_.CreateExtractElement(value, b_.getInt64(vec_.lanes - 1));
    }
    b_.CreateAlignedStore(value, address(elem, base, store.index), llvm::Align(4));
    return;
  }
  value = broadcast(value);
  int64_t stride = 0;
  if (schedule::linear_coefficient(store.index, vec_.var, &stride) && stride == 1) {
    llvm::Value* first = address(elem, base, store.index);
    if (vec_mask_) {
      b_.CreateMaskedStore(value, first, llvm::Align(4), vec_mask_);
    } else {
      b_.CreateAlignedStore(value, first, llvm::Align(4));
    }
    return;
  }
  llvm::Value* pointers = b_.CreateInBoundsGEP(elem, base, emit(store.index));
  b_.CreateMaskedScatter(value, pointers, llvm::Align(4), vec_mask_);
}

Result<std::unique_ptr<llvm::Module>> emit_llvm(const schedule::LoweredFunc& func,
                                                llvm::LLVMContext& context,
                                                const llvm::TargetMachine& target,
                                                Fault fault) {
  auto module = std::make_unique<llvm::Module>(func.name, context);
  module->setDataLayout(target.createDataLayout());
  module->setTargetTriple(target.getTargetTriple().str());
  Emitter emitter(*module, target.getTargetCPU().str(), target.getTargetFeatureString().str());
  if (auto r = emitter.emit_kernel(func, fault); !r) return r.error();
  return module;
}

}  // namespace tessera::runtime

// LoopNest expressions -> LLVM IR values, scalar or vector (see emitter.h).
#include <algorithm>
#include <cmath>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "runtime/llvm/vector_math.h"

#include "runtime/llvm/emitter.h"
#include "runtime/memory.h"
#include "schedule/evaluate_int.h"
#include "schedule/simplify.h"

namespace tessera::runtime {
namespace {

// Vector reads at constant strides up to this are deinterleaved from one contiguous read
// (Emitter::load_strided); wider strides gather, or read lane by lane from a stack buffer.
constexpr int64_t kMaxDeinterleavedStride = 4;

}  // namespace

using schedule::CallFn;
using schedule::DType;
using schedule::Expr;
using schedule::ExprKind;
using schedule::ExprNode;

llvm::Type* Emitter::scalar_type(DType t) {
  switch (t) {
    case DType::kBool: return b_.getInt1Ty();
    case DType::kInt64: return b_.getInt64Ty();
    case DType::kFloat32: return b_.getFloatTy();
  }
  return nullptr;
}

llvm::Value* Emitter::buffer(const std::string& name) {
  for (auto it = scope_.buffers.rbegin(); it != scope_.buffers.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  error_ = "buffer '" + name + "' is not allocated where it is used";
  return llvm::PoisonValue::get(llvm::PointerType::getUnqual(ctx_));
}

llvm::Value* Emitter::lookup_var(const ExprNode* v) {
  for (auto it = scope_.vars.rbegin(); it != scope_.vars.rend(); ++it) {
    if (it->first == v) return it->second;
  }
  error_ = "variable '" + v->name + "' is used outside the loop that binds it";
  return llvm::PoisonValue::get(b_.getInt64Ty());
}

bool Emitter::varies(const Expr& e) const {
  return vec_.var != nullptr && schedule::uses_var(e, vec_.var);
}

llvm::Value* Emitter::broadcast(llvm::Value* v) {
  if (v->getType()->isVectorTy()) return v;
  return b_.CreateVectorSplat(vec_.lanes, v);
}

llvm::Value* Emitter::address(llvm::Type* elem, llvm::Value* base, const Expr& index) {
  // Unrolled loop variables are constants here: fold them in and peel the constant term off,
  // so that every copy of an unrolled body addresses `base + (same variable part) + constant`
  // and alias analysis sees distinct, provably disjoint elements (which lets O3 keep
  // accumulators in registers).
  schedule::VarMap constants;
  for (const auto& [v, value] : scope_.vars) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(value)) {
      constants.emplace_back(v, Expr(c->getSExtValue()));
    }
  }
  if (vec_.var) constants.emplace_back(vec_.var, Expr(vec_.first));
  Expr flat = schedule::simplify(schedule::substitute(index, constants));
  int64_t offset = 0;
  if (flat->kind == ExprKind::kAdd && schedule::is_const_int(flat->operands[1], &offset)) {
    flat = flat->operands[0];
  } else if (flat->kind == ExprKind::kSub && schedule::is_const_int(flat->operands[1], &offset)) {
    offset = -offset;
    flat = flat->operands[0];
  } else if (schedule::is_const_int(flat, &offset)) {
    return b_.CreateConstInBoundsGEP1_64(elem, base, static_cast<uint64_t>(offset));
  }
  llvm::Value* p = b_.CreateInBoundsGEP(elem, base, emit(flat));
  return offset == 0 ? p : b_.CreateInBoundsGEP(elem, p, b_.getInt64(offset));
}

llvm::Value* Emitter::emit(const Expr& e, llvm::Value* mask) {
  const auto& o = e->operands;
  switch (e->kind) {
    case ExprKind::kIntImm:
      return e->dtype == DType::kBool ? b_.getInt1(e->int_value != 0) : b_.getInt64(e->int_value);
    case ExprKind::kFloatImm:
      return llvm::ConstantFP::get(b_.getFloatTy(), e->float_value);
    case ExprKind::kVar: {
      if (e.get() != vec_.var) return lookup_var(e.get());
      std::vector<llvm::Constant*> lanes;
      for (unsigned i = 0; i < vec_.lanes; ++i) lanes.push_back(b_.getInt64(vec_.first + i));
      return llvm::ConstantVector::get(lanes);
    }
    case ExprKind::kLoad: return emit_load(e, mask);
    case ExprKind::kSelect: return emit_select(e, mask);
    case ExprKind::kCast: return emit_cast(e, emit(o[0], mask));
    case ExprKind::kCall: return emit_call(e, emit(o[0], mask));
    case ExprKind::kNot: return b_.CreateNot(emit(o[0], mask));
    default: break;
  }
  llvm::Value* a = emit(o[0], mask);
  llvm::Value* b = emit(o[1], mask);
  if (a->getType()->isVectorTy() != b->getType()->isVectorTy()) {
    a = broadcast(a);
    b = broadcast(b);
  }
  return emit_binary(e, a, b);
}

llvm::Value* Emitter::emit_load(const Expr& e, llvm::Value* mask) {
  llvm::Type* elem = scalar_type(e->dtype);
  llvm::Value* base = buffer(e->name);
  const Expr& index = e->operands[0];
  if (!varies(index) && !mask) {
    return b_.CreateAlignedLoad(elem, address(elem, base, index), llvm::Align(4));
  }
  auto* zero = llvm::Constant::getNullValue(llvm::VectorType::get(elem, vec_.lanes, false));
  if (!varies(index)) {
    // One element for every lane: read it once, from the element itself when some lane is
    // active (it is in bounds then) and from the first otherwise (masked off lanes may point
    // out of bounds); no gather.
    llvm::Value* any = b_.CreateOrReduce(mask);
    llvm::Value* at = b_.CreateSelect(any, emit(index), b_.getInt64(0));
    return b_.CreateAlignedLoad(elem, b_.CreateInBoundsGEP(elem, base, at), llvm::Align(4));
  }
  int64_t stride = 0;
  const bool linear = schedule::linear_coefficient(index, vec_.var, &stride);
  if (linear && stride == 1) {
    llvm::Value* first = address(elem, base, index);
    if (!mask) return b_.CreateAlignedLoad(zero->getType(), first, llvm::Align(4));
    return b_.CreateMaskedLoad(zero->getType(), masked_address(e->name, index, first, mask), llvm::Align(4), mask,
                               zero);
  }
  if (linear && stride >= 2 && stride <= kMaxDeinterleavedStride) {
    return load_strided(elem, e->name, base, index, stride, mask);
  }
  if (linear && !mask && llvm::isa<llvm::AllocaInst>(base)) return load_lanes(elem, base, index, stride);
  if (!linear) {
    if (llvm::Value* permuted = load_window(elem, e->name, base, index, mask)) return permuted;
  }
  llvm::Value* addresses = b_.CreateInBoundsGEP(elem, base, emit(index));
  return b_.CreateMaskedGather(zero->getType(), addresses, llvm::Align(4), mask, zero);
}

// A masked read whose mask is all off reads no element, yet its address still goes through the
// TLB. A padding row's read points up to whole rows before or after its buffer; in a page the
// kernel does not otherwise touch, each such read cost hundreds of cycles on a Zen 5
// (runtime/memory.h). Large buffers keep kReadMarginBytes of their own memory on either side for
// this (a small one sits among live heap memory, which is how the tuner measures); a read that
// may point further out where it is off (may_point_outside: rows longer than the
// margin) points at its buffer's first element instead, by a select on the uniform select's
// scalar condition (read_guard_) when there is one, else on whether any lane is on. Only those:
// a select on every masked read cost MobileNetV2's unrolled 14-row depthwise tiles 2-3x, in
// spilled addresses.
llvm::Value* Emitter::masked_address(const std::string& name, const Expr& index, llvm::Value* first,
                                     llvm::Value* mask) {
  if (!may_point_outside(name, index)) return first;
  llvm::Value* any = read_guard_ ? read_guard_ : b_.CreateOrReduce(mask);
  return b_.CreateSelect(any, first, buffer(name));
}

// Evaluated at every corner of the loops' box (each variable the read or its guards use at its
// first or last value; constants as they are): a read that is off at some corner and points
// past the margin there may do so in the loop. Past kMaxCornerVariables, or with anything the
// corners cannot evaluate, it may.
bool Emitter::may_point_outside(const std::string& name, const Expr& index) const {
  constexpr size_t kMaxCornerVariables = 8;
  const int64_t margin = static_cast<int64_t>(kReadMarginBytes / sizeof(float));
  auto size = buffer_elements_.find(name);
  if (size == buffer_elements_.end()) return true;  // a buffer it did not bind: assume the worst
  if (guards_.empty()) return false;  // masked by a vector tail only: off lanes sit beside on ones
  auto used = [&](const schedule::ExprNode* v) {
    if (schedule::uses_var(index, v)) return true;
    for (const auto& [cond, side] : guards_) {
      if (schedule::uses_var(cond, v)) return true;
    }
    return false;
  };
  schedule::PointValues at;
  std::vector<std::pair<const schedule::ExprNode*, schedule::Interval>> free;
  for (const auto& [v, value] : scope_.vars) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(value)) {
      at.emplace_back(v, c->getSExtValue());
    } else if (auto extent = loop_extents_.find(v); extent != loop_extents_.end()) {
      if (extent->second == 1) {
        at.emplace_back(v, 0);
      } else if (used(v)) {
        free.emplace_back(v, schedule::Interval{0, extent->second - 1});
      }
    } else if (used(v)) {
      return true;
    }
  }
  if (vec_.var) free.emplace_back(vec_.var, schedule::Interval{vec_.first, vec_.first + vec_.lanes - 1});
  if (free.size() > kMaxCornerVariables) return true;
  const size_t fixed = at.size();
  for (uint32_t corner = 0; corner < (uint32_t{1} << free.size()); ++corner) {
    at.resize(fixed);
    for (size_t i = 0; i < free.size(); ++i) {
      at.emplace_back(free[i].first, (corner >> i) & 1 ? free[i].second.max : free[i].second.min);
    }
    bool off = false;
    for (const auto& [cond, side] : guards_) {
      auto holds = schedule::evaluate_int(cond, at);
      if (!holds) return true;
      off |= (*holds != 0) != side;
    }
    if (!off) continue;  // read here, so inside: the kernel is correct
    auto element = schedule::evaluate_int(index, at);
    if (!element || *element < -margin || *element >= size->second + margin) return true;
  }
  return false;
}

// A vector read `stride` elements apart (a stride-2 convolution or pooling window along its
// vector): one contiguous read of lanes x stride elements, masked to the elements the lanes use
// (so it touches no memory the gather would not), then a shuffle that keeps every stride-th.
// AVX-512 makes it `stride` masked loads and a few vpermt2ps, where a gather costs a load per lane.
llvm::Value* Emitter::load_strided(llvm::Type* elem, const std::string& name, llvm::Value* base, const Expr& index,
                                   int64_t stride, llvm::Value* mask) {
  const unsigned lanes = vec_.lanes, wide = lanes * static_cast<unsigned>(stride);
  std::vector<llvm::Constant*> used;
  std::vector<int> lane_of, kept;
  for (unsigned j = 0; j < wide; ++j) {
    used.push_back(b_.getInt1(j % stride == 0));
    lane_of.push_back(static_cast<int>(j / stride));
  }
  for (unsigned i = 0; i < lanes; ++i) kept.push_back(static_cast<int>(i * stride));
  llvm::Value* wide_mask = llvm::ConstantVector::get(used);
  if (mask) wide_mask = b_.CreateAnd(wide_mask, b_.CreateShuffleVector(mask, lane_of));
  auto* wide_type = llvm::VectorType::get(elem, wide, false);
  llvm::Value* at = address(elem, base, index);
  if (mask) at = masked_address(name, index, at, mask);
  llvm::Value* read = b_.CreateMaskedLoad(wide_type, at, llvm::Align(4), wide_mask,
                                          llvm::Constant::getNullValue(wide_type));
  return b_.CreateShuffleVector(read, kept);
}

// A vector read whose lanes, though not evenly spaced, all fall at constant offsets inside one
// window of `lanes` elements: a grouped convolution vectorized along its output channels reads
// input channel (k / 4) * 4 + rc, lanes [rc, rc, rc, rc, 4 + rc, ...] of the 16 channels from
// k's group on. One masked contiguous read of the window (masked to the elements some active
// lane reads, so it touches no memory the gather would not) and a constant permutation, where a
// gather costs a load per lane. Null when some lane's offset is not a constant or the offsets
// span more than a vector.
llvm::Value* Emitter::load_window(llvm::Type* elem, const std::string& name, llvm::Value* base, const Expr& index,
                                  llvm::Value* mask) {
  const unsigned lanes = vec_.lanes;
  const Expr first = schedule::simplify(schedule::substitute(index, {{vec_.var, Expr(vec_.first)}}));
  std::vector<int64_t> offsets;
  for (unsigned i = 0; i < lanes; ++i) {
    const Expr lane = schedule::substitute(index, {{vec_.var, Expr(vec_.first + static_cast<int64_t>(i))}});
    int64_t offset = 0;
    if (!schedule::is_const_int(schedule::simplify(lane - first), &offset)) return nullptr;
    offsets.push_back(offset);
  }
  const int64_t low = *std::min_element(offsets.begin(), offsets.end());
  const int64_t high = *std::max_element(offsets.begin(), offsets.end());
  if (high - low >= static_cast<int64_t>(lanes)) return nullptr;
  // readers[j]: the lanes that read window element j.
  std::vector<std::vector<int>> readers(lanes);
  std::vector<int> picks;
  for (unsigned i = 0; i < lanes; ++i) {
    readers[static_cast<size_t>(offsets[i] - low)].push_back(static_cast<int>(i));
    picks.push_back(static_cast<int>(offsets[i] - low));
  }
  // The window's mask: element j is read when any lane reading it is active. Without a lane
  // mask that is a constant; with one, the OR of one shuffle of it per reader rank (index
  // `lanes` picks the false vector beside it).
  llvm::Value* window_mask = nullptr;
  if (!mask) {
    std::vector<llvm::Constant*> used;
    for (const auto& r : readers) used.push_back(b_.getInt1(!r.empty()));
    window_mask = llvm::ConstantVector::get(used);
  } else {
    size_t ranks = 0;
    for (const auto& r : readers) ranks = std::max(ranks, r.size());
    llvm::Value* none = llvm::Constant::getNullValue(mask->getType());
    for (size_t rank = 0; rank < ranks; ++rank) {
      std::vector<int> from;
      for (const auto& r : readers) from.push_back(rank < r.size() ? r[rank] : static_cast<int>(lanes));
      llvm::Value* part = b_.CreateShuffleVector(mask, none, from);
      window_mask = window_mask ? b_.CreateOr(window_mask, part) : part;
    }
  }
  auto* type = llvm::VectorType::get(elem, lanes, false);
  llvm::Value* at = address(elem, base, first + Expr(low));
  if (mask) at = masked_address(name, index, at, mask);
  llvm::Value* read = b_.CreateMaskedLoad(type, at, llvm::Align(4),
                                          window_mask, llvm::Constant::getNullValue(type));
  return b_.CreateShuffleVector(read, picks);
}

// A vector read from a stack buffer (a register tile stored on the stack) at a wide constant
// stride: one scalar read per lane. A packed convolution copies its tile [pixels][16 k] out
// along the pixels, 16 floats apart per lane; as a masked gather that copy held ResNet-50's stem
// at 76 GFLOP/s, as lane reads from L1 (vmovss / vinsertps) at 106 (Zen 4, bench/NOTES.md).
llvm::Value* Emitter::load_lanes(llvm::Type* elem, llvm::Value* base, const Expr& index, int64_t stride) {
  llvm::Value* first = address(elem, base, index);
  llvm::Value* vector = llvm::PoisonValue::get(llvm::VectorType::get(elem, vec_.lanes, false));
  for (unsigned i = 0; i < vec_.lanes; ++i) {
    llvm::Value* at = b_.CreateInBoundsGEP(elem, first, b_.getInt64(static_cast<int64_t>(i) * stride));
    vector = b_.CreateInsertElement(vector, b_.CreateAlignedLoad(elem, at, llvm::Align(4)), i);
  }
  return vector;
}

llvm::Value* Emitter::emit_select(const Expr& e, llvm::Value* mask) {
  const auto& o = e->operands;
  llvm::Value* cond = emit(o[0], mask);
  bool lazy = schedule::contains_load(o[1]) || schedule::contains_load(o[2]);
  if (cond->getType()->isVectorTy()) {
    // Each branch is computed only for the lanes that take it, so guarded reads stay in bounds.
    llvm::Value* not_cond = b_.CreateNot(cond);
    llvm::Value* mask_true = mask ? b_.CreateAnd(mask, cond) : cond;
    llvm::Value* mask_false = mask ? b_.CreateAnd(mask, not_cond) : not_cond;
    // The lanes' own masks say where the reads may point (masked_address), not an outer guard.
    llvm::Value* outer_guard = read_guard_;
    read_guard_ = nullptr;
    guards_.emplace_back(o[0], true);
    llvm::Value* t = broadcast(emit(o[1], lazy ? mask_true : mask));
    guards_.back().second = false;
    llvm::Value* f = broadcast(emit(o[2], lazy ? mask_false : mask));
    guards_.pop_back();
    read_guard_ = outer_guard;
    return b_.CreateSelect(cond, t, f);
  }
  bool vector = varies(o[1]) || varies(o[2]) || mask != nullptr;
  if (lazy && vector) {
    // A scalar condition guarding a vector read: a uniform lane mask (a masked load), no
    // branch (vector widths are powers of two, emit_stmt.cc; at 19 or 37 lanes the fuzzer's
    // kernels died of SIGILL).
    llvm::Value* lanes = broadcast(cond);
    llvm::Value* not_lanes = b_.CreateNot(lanes);
    llvm::Value* outer_guard = read_guard_;
    read_guard_ = outer_guard ? b_.CreateAnd(outer_guard, cond) : cond;
    guards_.emplace_back(o[0], true);
    llvm::Value* t = broadcast(emit(o[1], mask ? b_.CreateAnd(mask, lanes) : lanes));
    llvm::Value* not_cond = b_.CreateNot(cond);
    read_guard_ = outer_guard ? b_.CreateAnd(outer_guard, not_cond) : not_cond;
    guards_.back().second = false;
    llvm::Value* f = broadcast(emit(o[2], mask ? b_.CreateAnd(mask, not_lanes) : not_lanes));
    guards_.pop_back();
    read_guard_ = outer_guard;
    return b_.CreateSelect(lanes, t, f);
  }
  if (!lazy) {
    llvm::Value* t = emit(o[1], mask);
    llvm::Value* f = emit(o[2], mask);
    if (vector) { t = broadcast(t); f = broadcast(f); }
    return b_.CreateSelect(cond, t, f);
  }
  // A scalar condition guarding a read: branch, so the untaken read never happens.
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "sel.true", fn);
  auto* else_bb = llvm::BasicBlock::Create(ctx_, "sel.false", fn);
  auto* merge = llvm::BasicBlock::Create(ctx_, "sel.end", fn);
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  llvm::Value* t = emit(o[1], mask);
  if (vector) t = broadcast(t);
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_bb);
  llvm::Value* f = emit(o[2], mask);
  if (vector) f = broadcast(f);
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, then_end);
  phi->addIncoming(f, else_end);
  return phi;
}

llvm::Value* Emitter::emit_binary(const Expr& e, llvm::Value* a, llvm::Value* b) {
  DType operand = e->operands[0]->dtype;
  using llvm::Intrinsic::ID;
  if (operand == DType::kFloat32) {
    switch (e->kind) {
      case ExprKind::kAdd: return b_.CreateFAdd(a, b);
      case ExprKind::kSub: return b_.CreateFSub(a, b);
      case ExprKind::kMul: return b_.CreateFMul(a, b);
      case ExprKind::kDiv: {
        // By a constant: a multiply by its (normal) reciprocal, within 1.5 ulp of the quotient
        // and many times cheaper (gelu's x / sqrt(2), layer norm's sum / n).
        auto* c = llvm::dyn_cast<llvm::Constant>(b);
        if (c && c->getType()->isVectorTy()) c = c->getSplatValue();
        if (auto* fp = llvm::dyn_cast_or_null<llvm::ConstantFP>(c)) {
          const double reciprocal = 1.0 / fp->getValueAPF().convertToDouble();
          if (std::isnormal(static_cast<float>(reciprocal))) {
            return b_.CreateFMul(a, llvm::ConstantFP::get(b->getType(), reciprocal));
          }
        }
        return b_.CreateFDiv(a, b);
      }
      case ExprKind::kMin: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, b);
      case ExprKind::kMax: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, b);
      case ExprKind::kLT: return b_.CreateFCmpOLT(a, b);
      case ExprKind::kLE: return b_.CreateFCmpOLE(a, b);
      case ExprKind::kEQ: return b_.CreateFCmpOEQ(a, b);
      case ExprKind::kNE: return b_.CreateFCmpUNE(a, b);
      default: break;
    }
  } else {
    switch (e->kind) {
      case ExprKind::kAdd: return b_.CreateNSWAdd(a, b);
      case ExprKind::kSub: return b_.CreateNSWSub(a, b);
      case ExprKind::kMul: return b_.CreateNSWMul(a, b);
      case ExprKind::kDiv:
      case ExprKind::kMod: {
        // Floor semantics: C's truncating result, corrected when the signs differ.
        llvm::Value* q = b_.CreateSDiv(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
        llvm::Value* fix = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                        b_.CreateICmpNE(b_.CreateICmpSLT(r, zero),
                                                        b_.CreateICmpSLT(b, zero)));
        if (e->kind == ExprKind::kDiv) return b_.CreateSub(q, b_.CreateZExt(fix, q->getType()));
        return b_.CreateSelect(fix, b_.CreateAdd(r, b), r);
      }
      case ExprKind::kMin: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, b);
      case ExprKind::kMax: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, b);
      case ExprKind::kLT: return b_.CreateICmpSLT(a, b);
      case ExprKind::kLE: return b_.CreateICmpSLE(a, b);
      case ExprKind::kEQ: return b_.CreateICmpEQ(a, b);
      case ExprKind::kNE: return b_.CreateICmpNE(a, b);
      case ExprKind::kAnd: return b_.CreateAnd(a, b);
      case ExprKind::kOr: return b_.CreateOr(a, b);
      default: break;
    }
  }
  error_ = "cannot compile expression " + schedule::to_string(e);
  return llvm::PoisonValue::get(a->getType());
}

llvm::Value* Emitter::emit_cast(const Expr& e, llvm::Value* v) {
  DType from = e->operands[0]->dtype, to = e->dtype;
  llvm::Type* type = scalar_type(to);
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType())) {
    type = llvm::VectorType::get(type, vt->getElementCount());
  }
  llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
  if (to == DType::kFloat32) {
    return from == DType::kBool ? b_.CreateUIToFP(v, type) : b_.CreateSIToFP(v, type);
  }
  if (to == DType::kBool) {
    return from == DType::kFloat32 ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  }
  return from == DType::kFloat32 ? b_.CreateFPToSI(v, type) : b_.CreateZExt(v, type);
}

llvm::Value* Emitter::emit_call(const Expr& e, llvm::Value* v) {
  // Transcendentals are emitted inline (vector_math.h), so vector loops never call libm.
  switch (e->fn) {
    case CallFn::kExp: return vector_math::exp(b_, v);
    case CallFn::kLog: return vector_math::log(b_, v);
    case CallFn::kSqrt: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, v);
    case CallFn::kAbs: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
    case CallFn::kTanh: return vector_math::tanh(b_, v);
    case CallFn::kErf: return vector_math::erf(b_, v);
  }
  error_ = "unknown function in " + schedule::to_string(e);
  return nullptr;
}

}  // namespace tessera::runtime

// Emitter: the state of LoopNest -> LLVM IR translation (private to runtime/llvm/).
//
// Statements (emit_stmt.cc) build loops, outlined parallel regions and allocations;
// expressions (emit_expr.cc) produce scalar or vector values. A vectorized loop is emitted as
// chunks of power-of-two widths; inside one the loop variable is the vector <first, first + 1,
// ..., first + lanes - 1> and any value that depends on it is a vector; everything else stays
// scalar and is broadcast where it meets a vector.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "runtime/kernel.h"
#include "schedule/loop_nest.h"
#include "schedule/result.h"

namespace tessera::runtime {

class Emitter {
 public:
  Emitter(llvm::Module& module, std::string cpu, std::string features);

  Result<void> emit_kernel(const schedule::LoweredFunc& func, Fault fault);

 private:
  struct Scope {
    std::vector<std::pair<std::string, llvm::Value*>> buffers;
    std::vector<std::pair<const schedule::ExprNode*, llvm::Value*>> vars;
  };
  struct VectorLoop {
    const schedule::ExprNode* var = nullptr;
    unsigned lanes = 0;   // a power of two
    int64_t first = 0;    // the loop variable's value in lane 0
  };

  // Test-only faults (kernel.h), before or after the body call.
  void plant_fault(Fault fault, const schedule::LoweredFunc& func,
                   const std::vector<llvm::Value*>& pointers, bool after_body);

  // Statements.
  void emit_stmt(const schedule::Stmt& s);
  void emit_serial_loop(const schedule::StmtNode& loop, llvm::Value* begin, llvm::Value* end,
                        bool hint_vectorize);
  void emit_unrolled(const schedule::StmtNode& loop);
  void emit_vectorized(const schedule::StmtNode& loop);
  void emit_parallel(const schedule::StmtNode& loop);
  void emit_store(const schedule::StmtNode& store);
  void emit_allocate(const schedule::StmtNode& alloc);
  // A function whose pointer parameters are noalias and aligned, holding `body` (or, for a
  // parallel region, the loop `range_loop` over [begin, end)).
  llvm::Function* emit_region(const std::string& name, const schedule::Stmt& body,
                              const schedule::StmtNode* range_loop);
  void apply_attributes(llvm::Function* f);
  // Frees the heap buffers of the current function and returns.
  void return_from_function();

  // Expressions.
  llvm::Value* emit(const schedule::Expr& e, llvm::Value* mask = nullptr);
  // &base[index], with the vector lane (if any) at 0 and the constant part as its own offset.
  llvm::Value* address(llvm::Type* elem, llvm::Value* base, const schedule::Expr& index);
  llvm::Value* emit_load(const schedule::Expr& e, llvm::Value* mask);
  llvm::Value* load_lanes(llvm::Type* elem, llvm::Value* base, const schedule::Expr& index, int64_t stride);
  llvm::Value* load_strided(llvm::Type* elem, const std::string& name, llvm::Value* base,
                            const schedule::Expr& index, int64_t stride, llvm::Value* mask);
  llvm::Value* load_window(llvm::Type* elem, const std::string& name, llvm::Value* base, const schedule::Expr& index,
                           llvm::Value* mask);
  // Where a masked vector read of buffer `name` at `index` (lane 0 at `first`) points.
  llvm::Value* masked_address(const std::string& name, const schedule::Expr& index, llvm::Value* first,
                              llvm::Value* mask);
  // Whether the read of `name` at `index` may point outside it where the selects around it
  // (guards_) turn it off.
  bool may_point_outside(const std::string& name, const schedule::Expr& index) const;
  llvm::Value* emit_select(const schedule::Expr& e, llvm::Value* mask);
  llvm::Value* emit_binary(const schedule::Expr& e, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_cast(const schedule::Expr& e, llvm::Value* v);
  llvm::Value* emit_call(const schedule::Expr& e, llvm::Value* v);
  llvm::Value* broadcast(llvm::Value* v);
  bool varies(const schedule::Expr& e) const;
  llvm::Type* scalar_type(schedule::DType t);
  llvm::Value* buffer(const std::string& name);
  llvm::Value* lookup_var(const schedule::ExprNode* v);

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  std::string cpu_, features_;
  Scope scope_;
  VectorLoop vec_;
  llvm::Value* vec_mask_ = nullptr;  // lanes enabled by the guards around a vector store
  llvm::Value* read_guard_ = nullptr;  // scalar condition of the uniform select around the reads emitted now
  std::vector<std::pair<schedule::Expr, bool>> guards_;  // the select conditions around the read, and the side taken
  std::map<std::string, int64_t> buffer_elements_;            // every buffer bound so far
  std::map<const schedule::ExprNode*, int64_t> loop_extents_;  // every loop emitted so far
  int regions_ = 0;
  std::vector<llvm::Value*> heap_buffers_;  // allocated at the current function's entry
  static constexpr uint64_t kMaxStackBytes = 128 * 1024;  // larger local buffers go to the heap
  std::string error_;  // the first unsupported construct met, if any
};

}  // namespace tessera::runtime

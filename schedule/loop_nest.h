// LoopNest IR: the imperative program a schedule lowers to.
//
// Statements are For (serial, parallel, vectorized, unrolled, GPU block / thread: a loop bound
// to blockIdx / threadIdx dimension `gpu_dim`), Store (one element of a buffer at a flattened
// index), Allocate (an intermediate buffer with a storage scope, live for its body), IfThenElse
// and Seq. Expressions are those of expr.h with exact integer index arithmetic; every Load and
// Store has one flattened index.
// Codegen (runtime/), program features and analyses all read this one IR.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "schedule/expr.h"

namespace tessera::schedule {

enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled, kGpuBlock, kGpuThread };
enum class StorageScope : uint8_t { kGlobal, kLocal, kShared };
enum class StmtKind : uint8_t { kFor, kStore, kAllocate, kIfThenElse, kSeq };

const char* to_string(ForKind kind);
const char* to_string(StorageScope scope);

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind;
  // kFor: `loop_var` over [0, extent).
  Expr loop_var;
  int64_t extent = 0;
  ForKind for_kind = ForKind::kSerial;
  int gpu_dim = 0;  // kGpuBlock / kGpuThread: 0, 1, 2 for x, y, z
  // kStore: buffer[index] = value.  kAllocate: buffer of `size` elements of `dtype`.
  std::string buffer;
  Expr index;
  Expr value;
  int64_t size = 0;
  DType dtype = DType::kFloat32;
  StorageScope scope = StorageScope::kGlobal;
  // kIfThenElse: if (condition) then_case else else_case (else may be null). `skips_padding`
  // marks a guard that skips a block reading only padding (padding_skip.h): later passes keep
  // it where it is instead of sinking it onto the stores inside. `unswitches_padding` marks the
  // test of padding_unswitch (then: the block reads no padding; else: it reads some), which
  // features weigh by how often each branch runs.
  Expr condition;
  bool skips_padding = false;
  bool unswitches_padding = false;
  Stmt then_case, else_case;
  // kFor, kAllocate: body.  kSeq: children in order.
  Stmt body;
  std::vector<Stmt> children;
};

Stmt make_for(Expr loop_var, int64_t extent, ForKind kind, Stmt body, int gpu_dim = 0);
Stmt make_store(std::string buffer, Expr index, Expr value);
Stmt make_allocate(std::string buffer, int64_t size, DType dtype, StorageScope scope, Stmt body);
Stmt make_if(Expr condition, Stmt then_case, Stmt else_case = nullptr);
Stmt make_padding_skip(Expr condition, Stmt then_case);  // an if with skips_padding set
Stmt make_padding_unswitch(Expr condition, Stmt plain, Stmt general);  // ...with unswitches_padding
// `s` (an if) with new parts and its flags kept: what passes that rebuild ifs use.
Stmt rebuild_if(const Stmt& s, Expr condition, Stmt then_case, Stmt else_case);
Stmt make_seq(std::vector<Stmt> children);  // flattens nested Seqs; one child is returned as is

// A kernel: the lowered program with its buffer arguments (inputs then outputs).
struct KernelArgument {
  std::string name;
  int64_t size;  // elements
  DType dtype;
  bool is_output;
};

// A kernel may keep buffers of its own from load to unload: stages packed at load (PackStep,
// e.g. weights in a blocked layout). `pack_body` computes them from the constant inputs once,
// before the first call; `body` reads them like any buffer.
struct LoweredFunc {
  std::string name;
  std::vector<KernelArgument> arguments;
  Stmt body;
  std::vector<KernelArgument> packed;  // empty unless some stage is packed
  Stmt pack_body;                      // null unless `packed` is non-empty
};

// Readable text of a loop nest:
//   parallel (i.0, 0, 16) {
//     for (k, 0, 64) {
//       C[((i*64) + j)] = (C[((i*64) + j)] + (A[...]*B[...]))
std::string to_string(const Stmt& stmt);
std::string to_string(const LoweredFunc& func);

// Visits every statement in pre-order.
void visit(const Stmt& stmt, const std::function<void(const StmtNode&)>& fn);

}  // namespace tessera::schedule

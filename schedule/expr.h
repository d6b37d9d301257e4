// Expressions shared by tensor definitions and the LoopNest IR.
//
// An Expr is an immutable tree node held by shared pointer, so copies are cheap and sub-trees
// are shared freely. Integer expressions (dtype kInt64) describe loop variables and index
// arithmetic with exact floor division; float expressions compute tensor values. A Load reads
// a named buffer: with one index per dimension in a tensor definition, with one flattened index
// in the LoopNest IR. Variables are identified by node identity, never by name.
//
// Adding a new expression kind: add it to ExprKind, give it a builder below, then handle it in
// expr.cc (printing, structural hashing), simplify.cc, reference.cc and runtime/llvm/codegen.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedule/dtype.h"

namespace tessera::schedule {

enum class ExprKind : uint8_t {
  kIntImm, kFloatImm, kVar,
  kAdd, kSub, kMul, kDiv, kMod, kMin, kMax,    // kDiv/kMod: floor semantics on integers
  kLT, kLE, kEQ, kNE, kAnd, kOr, kNot,
  kSelect, kCast, kCall, kLoad,
};

enum class CallFn : uint8_t { kExp, kLog, kSqrt, kTanh, kErf, kAbs };

struct ExprNode;

class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  Expr(int64_t value);  // NOLINT: integer literal
  Expr(int value);      // NOLINT: integer literal
  Expr(double value);   // NOLINT: float32 literal
  Expr(float value);    // NOLINT: float32 literal

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  const ExprNode& operator*() const { return *node_; }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Expr& other) const { return node_ == other.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct ExprNode {
  ExprKind kind;
  DType dtype;
  int64_t int_value = 0;       // kIntImm
  double float_value = 0;      // kFloatImm
  std::string name;            // kVar: readable name; kLoad: buffer name
  CallFn fn = CallFn::kExp;    // kCall
  std::vector<Expr> operands;  // operator arguments; kLoad: indices
};

// Leaves.
Expr int_imm(int64_t value);
Expr bool_imm(bool value);  // an IntImm of dtype kBool
Expr float_imm(double value, DType dtype = DType::kFloat32);
Expr var(std::string name);  // a fresh integer variable

// Operators. Integer operands combine as integers; mixing an integer with a float casts it.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // floor division on integers, true division on floats
Expr operator%(Expr a, Expr b);  // floor modulo, integers only
Expr operator-(Expr a);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);
Expr select(Expr condition, Expr if_true, Expr if_false);
Expr cast(DType dtype, Expr value);
Expr call(CallFn fn, Expr arg);
Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr tanh(Expr x);
Expr erf(Expr x);
Expr abs(Expr x);
Expr load(std::string buffer, std::vector<Expr> indices, DType dtype = DType::kFloat32);

// Builds a node of `kind` over `operands` with the same dtype rules as the operators above.
Expr make_binary(ExprKind kind, Expr a, Expr b);
// Rebuilds `e` with new operands (same kind, name, fn and immediates).
Expr with_operands(const Expr& e, std::vector<Expr> operands);

bool is_const_int(const Expr& e, int64_t* value = nullptr);
bool is_binary(ExprKind kind);
bool is_comparison(ExprKind kind);

// Replaces variables by expressions (keyed by variable node).
using VarMap = std::vector<std::pair<const ExprNode*, Expr>>;
Expr substitute(const Expr& e, const VarMap& map);
// Rewrites every Load through `rewrite` (bottom-up: indices are rewritten first).
Expr rewrite_loads(const Expr& e, const std::function<Expr(const Expr& load)>& rewrite);

// Appends the conjuncts of `e` (the operands of nested &&, left to right; `e` itself when it
// is not an &&) to `out`.
void split_conjuncts(const Expr& e, std::vector<Expr>* out);

bool uses_var(const Expr& e, const ExprNode* var);
void collect_vars(const Expr& e, std::vector<const ExprNode*>* vars);
bool contains_load(const Expr& e);

// Readable form, e.g. "A[((i*1024) + k)]"; variables print by name, or by `names` where it
// has them (the LoopNest printer uses this to tell apart loops of different stages that
// share a name).
std::string to_string(const Expr& e);
using VarNames = std::map<const ExprNode*, std::string>;
std::string to_string(const Expr& e, const VarNames& names);
const char* to_string(CallFn fn);

}  // namespace tessera::schedule

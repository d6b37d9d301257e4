// Expression construction, traversal and printing (see expr.h).
#include "schedule/expr.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <sstream>

namespace tessera::schedule {
namespace {

Expr make(ExprKind kind, DType dtype, std::vector<Expr> operands) {
  auto node = std::make_shared<ExprNode>();
  node->kind = kind;
  node->dtype = dtype;
  node->operands = std::move(operands);
  return Expr(std::move(node));
}

// Integer meets float: the integer side is cast, as in C.
void unify(Expr& a, Expr& b) {
  if (a->dtype == b->dtype) return;
  if (is_float(a->dtype) && !is_float(b->dtype)) b = cast(a->dtype, b);
  else if (is_float(b->dtype) && !is_float(a->dtype)) a = cast(b->dtype, a);
  else if (a->dtype == DType::kBool) a = cast(b->dtype, a);
  else b = cast(a->dtype, b);
}

}  // namespace

Expr::Expr(int64_t value) : Expr(int_imm(value)) {}
Expr::Expr(int value) : Expr(int_imm(value)) {}
Expr::Expr(double value) : Expr(float_imm(value)) {}
Expr::Expr(float value) : Expr(float_imm(value)) {}

Expr int_imm(int64_t value) {
  auto node = std::make_shared<ExprNode>();
  node->kind = ExprKind::kIntImm;
  node->dtype = DType::kInt64;
  node->int_value = value;
  return Expr(std::move(node));
}

Expr bool_imm(bool value) {
  auto node = std::make_shared<ExprNode>();
  node->kind = ExprKind::kIntImm;
  node->dtype = DType::kBool;
  node->int_value = value ? 1 : 0;
  return Expr(std::move(node));
}

Expr float_imm(double value, DType dtype) {
  auto node = std::make_shared<ExprNode>();
  node->kind = ExprKind::kFloatImm;
  node->dtype = dtype;
  node->float_value = value;
  return Expr(std::move(node));
}

Expr var(std::string name) {
  auto node = std::make_shared<ExprNode>();
  node->kind = ExprKind::kVar;
  node->dtype = DType::kInt64;
  node->name = std::move(name);
  return Expr(std::move(node));
}

bool is_binary(ExprKind k) { return k >= ExprKind::kAdd && k <= ExprKind::kOr; }
bool is_comparison(ExprKind k) { return k >= ExprKind::kLT && k <= ExprKind::kNE; }

Expr make_binary(ExprKind kind, Expr a, Expr b) {
  assert(a.defined() && b.defined());
  if (kind == ExprKind::kAnd || kind == ExprKind::kOr) {
    return make(kind, DType::kBool, {std::move(a), std::move(b)});
  }
  unify(a, b);
  DType t = is_comparison(kind) ? DType::kBool : a->dtype;
  return make(kind, t, {std::move(a), std::move(b)});
}

Expr operator+(Expr a, Expr b) { return make_binary(ExprKind::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return make_binary(ExprKind::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return make_binary(ExprKind::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return make_binary(ExprKind::kDiv, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return make_binary(ExprKind::kMod, std::move(a), std::move(b)); }
Expr operator-(Expr a) {
  return is_float(a->dtype) ? float_imm(0.0, a->dtype) - a : int_imm(0) - a;
}
Expr min(Expr a, Expr b) { return make_binary(ExprKind::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return make_binary(ExprKind::kMax, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return make_binary(ExprKind::kLT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return make_binary(ExprKind::kLE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return make_binary(ExprKind::kLT, std::move(b), std::move(a)); }
Expr operator>=(Expr a, Expr b) { return make_binary(ExprKind::kLE, std::move(b), std::move(a)); }
Expr eq(Expr a, Expr b) { return make_binary(ExprKind::kEQ, std::move(a), std::move(b)); }
Expr ne(Expr a, Expr b) { return make_binary(ExprKind::kNE, std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return make_binary(ExprKind::kAnd, std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return make_binary(ExprKind::kOr, std::move(a), std::move(b)); }
Expr operator!(Expr a) { return make(ExprKind::kNot, DType::kBool, {std::move(a)}); }

Expr select(Expr c, Expr t, Expr f) {
  unify(t, f);
  DType dtype = t->dtype;
  return make(ExprKind::kSelect, dtype, {std::move(c), std::move(t), std::move(f)});
}

Expr cast(DType dtype, Expr value) {
  if (value->dtype == dtype) return value;
  return make(ExprKind::kCast, dtype, {std::move(value)});
}

Expr call(CallFn fn, Expr arg) {
  if (!is_float(arg->dtype)) arg = cast(DType::kFloat32, arg);
  DType dtype = arg->dtype;
  Expr e = make(ExprKind::kCall, dtype, {std::move(arg)});
  const_cast<ExprNode*>(e.get())->fn = fn;  // freshly made, not yet shared
  return e;
}
Expr exp(Expr x) { return call(CallFn::kExp, std::move(x)); }
Expr log(Expr x) { return call(CallFn::kLog, std::move(x)); }
Expr sqrt(Expr x) { return call(CallFn::kSqrt, std::move(x)); }
Expr tanh(Expr x) { return call(CallFn::kTanh, std::move(x)); }
Expr erf(Expr x) { return call(CallFn::kErf, std::move(x)); }
Expr abs(Expr x) { return call(CallFn::kAbs, std::move(x)); }

Expr load(std::string buffer, std::vector<Expr> indices, DType dtype) {
  Expr e = make(ExprKind::kLoad, dtype, std::move(indices));
  const_cast<ExprNode*>(e.get())->name = std::move(buffer);  // freshly made
  return e;
}

Expr with_operands(const Expr& e, std::vector<Expr> operands) {
  auto node = std::make_shared<ExprNode>(*e);
  node->operands = std::move(operands);
  return Expr(std::move(node));
}

bool is_const_int(const Expr& e, int64_t* value) {
  if (!e.defined() || e->kind != ExprKind::kIntImm) return false;
  if (value) *value = e->int_value;
  return true;
}

namespace {

// Rebuilds `e` bottom-up through `leaf`, which may replace any node (returning an undefined
// Expr keeps the node and recurses into it). Shared sub-trees that do not change are kept.
template <typename F>
Expr transform(const Expr& e, const F& leaf) {
  if (Expr replaced = leaf(e); replaced.defined()) return replaced;
  if (e->operands.empty()) return e;
  std::vector<Expr> operands;
  operands.reserve(e->operands.size());
  bool changed = false;
  for (const Expr& op : e->operands) {
    operands.push_back(transform(op, leaf));
    changed |= !operands.back().same_as(op);
  }
  return changed ? with_operands(e, std::move(operands)) : e;
}

template <typename F>
bool any_node(const Expr& e, const F& pred) {
  if (pred(e)) return true;
  for (const Expr& op : e->operands) {
    if (any_node(op, pred)) return true;
  }
  return false;
}

}  // namespace

Expr substitute(const Expr& e, const VarMap& map) {
  if (map.empty()) return e;
  return transform(e, [&](const Expr& n) -> Expr {
    if (n->kind != ExprKind::kVar) return Expr();
    for (const auto& [v, value] : map) {
      if (v == n.get()) return value;
    }
    return n;
  });
}

Expr rewrite_loads(const Expr& e, const std::function<Expr(const Expr&)>& rewrite) {
  if (e->kind == ExprKind::kLoad) {
    std::vector<Expr> indices;
    for (const Expr& i : e->operands) indices.push_back(rewrite_loads(i, rewrite));
    return rewrite(with_operands(e, std::move(indices)));
  }
  if (e->operands.empty()) return e;
  std::vector<Expr> operands;
  bool changed = false;
  for (const Expr& op : e->operands) {
    operands.push_back(rewrite_loads(op, rewrite));
    changed |= !operands.back().same_as(op);
  }
  return changed ? with_operands(e, std::move(operands)) : e;
}

void split_conjuncts(const Expr& e, std::vector<Expr>* out) {
  if (e->kind == ExprKind::kAnd) {
    split_conjuncts(e->operands[0], out);
    split_conjuncts(e->operands[1], out);
  } else {
    out->push_back(e);
  }
}

bool uses_var(const Expr& e, const ExprNode* v) {
  return any_node(e, [v](const Expr& n) { return n.get() == v; });
}

void collect_vars(const Expr& e, std::vector<const ExprNode*>* vars) {
  any_node(e, [vars](const Expr& n) {
    if (n->kind == ExprKind::kVar &&
        std::find(vars->begin(), vars->end(), n.get()) == vars->end()) {
      vars->push_back(n.get());
    }
    return false;
  });
}

bool contains_load(const Expr& e) {
  return any_node(e, [](const Expr& n) { return n->kind == ExprKind::kLoad; });
}

const char* to_string(CallFn fn) {
  switch (fn) {
    case CallFn::kExp: return "exp";
    case CallFn::kLog: return "log";
    case CallFn::kSqrt: return "sqrt";
    case CallFn::kTanh: return "tanh";
    case CallFn::kErf: return "erf";
    case CallFn::kAbs: return "abs";
  }
  return "?";
}

namespace {

const char* infix(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd: return " + ";
    case ExprKind::kSub: return " - ";
    case ExprKind::kMul: return "*";
    case ExprKind::kDiv: return "/";
    case ExprKind::kMod: return " % ";
    case ExprKind::kLT: return " < ";
    case ExprKind::kLE: return " <= ";
    case ExprKind::kEQ: return " == ";
    case ExprKind::kNE: return " != ";
    case ExprKind::kAnd: return " && ";
    case ExprKind::kOr: return " || ";
    default: return nullptr;
  }
}

void print(std::ostream& os, const Expr& e, const VarNames* names) {
  const auto& ops = e->operands;
  switch (e->kind) {
    case ExprKind::kIntImm: os << e->int_value; return;
    case ExprKind::kFloatImm: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9gf", e->float_value);
      os << buf;
      return;
    }
    case ExprKind::kVar: {
      auto it = names ? names->find(e.get()) : VarNames::const_iterator();
      os << (names && it != names->end() ? it->second : e->name);
      return;
    }
    case ExprKind::kMin: os << "min("; print(os, ops[0], names); os << ", "; print(os, ops[1], names); os << ")"; return;
    case ExprKind::kMax: os << "max("; print(os, ops[0], names); os << ", "; print(os, ops[1], names); os << ")"; return;
    case ExprKind::kNot: os << "!("; print(os, ops[0], names); os << ")"; return;
    case ExprKind::kSelect:
      os << "select("; print(os, ops[0], names); os << ", "; print(os, ops[1], names); os << ", ";
      print(os, ops[2], names); os << ")";
      return;
    case ExprKind::kCast: os << dtype_name(e->dtype) << "("; print(os, ops[0], names); os << ")"; return;
    case ExprKind::kCall: os << to_string(e->fn) << "("; print(os, ops[0], names); os << ")"; return;
    case ExprKind::kLoad:
      os << e->name << "[";
      for (size_t i = 0; i < ops.size(); ++i) {
        if (i) os << ", ";
        print(os, ops[i], names);
      }
      os << "]";
      return;
    default:
      os << "(";
      print(os, ops[0], names);
      os << infix(e->kind);
      print(os, ops[1], names);
      os << ")";
      return;
  }
}

}  // namespace

std::string to_string(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  std::ostringstream os;
  print(os, e, nullptr);
  return os.str();
}

std::string to_string(const Expr& e, const VarNames& names) {
  if (!e.defined()) return "<undefined>";
  std::ostringstream os;
  print(os, e, &names);
  return os.str();
}

}  // namespace tessera::schedule

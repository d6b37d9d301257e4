// LoopNest IR construction, traversal and printing (see loop_nest.h).
#include "schedule/loop_nest.h"

#include <functional>
#include <algorithm>
#include <sstream>

namespace tessera::schedule {

const char* to_string(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "for";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unrolled";
    case ForKind::kGpuBlock: return "gpu_block";
    case ForKind::kGpuThread: return "gpu_thread";
  }
  return "?";
}

const char* to_string(StorageScope scope) {
  switch (scope) {
    case StorageScope::kGlobal: return "global";
    case StorageScope::kLocal: return "local";
    case StorageScope::kShared: return "shared";
  }
  return "?";
}

Stmt make_for(Expr loop_var, int64_t extent, ForKind kind, Stmt body, int gpu_dim) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kFor;
  n->gpu_dim = gpu_dim;
  n->loop_var = std::move(loop_var);
  n->extent = extent;
  n->for_kind = kind;
  n->body = std::move(body);
  return n;
}

Stmt make_store(std::string buffer, Expr index, Expr value) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kStore;
  n->buffer = std::move(buffer);
  n->index = std::move(index);
  n->value = std::move(value);
  return n;
}

Stmt make_allocate(std::string buffer, int64_t size, DType dtype, StorageScope scope, Stmt body) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kAllocate;
  n->buffer = std::move(buffer);
  n->size = size;
  n->dtype = dtype;
  n->scope = scope;
  n->body = std::move(body);
  return n;
}

Stmt make_if(Expr condition, Stmt then_case, Stmt else_case) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kIfThenElse;
  n->condition = std::move(condition);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  return n;
}

Stmt make_padding_skip(Expr condition, Stmt then_case) {
  auto n = std::make_shared<StmtNode>(*make_if(std::move(condition), std::move(then_case)));
  n->skips_padding = true;
  return n;
}

Stmt make_padding_unswitch(Expr condition, Stmt plain, Stmt general) {
  auto n = std::make_shared<StmtNode>(*make_if(std::move(condition), std::move(plain), std::move(general)));
  n->unswitches_padding = true;
  return n;
}

Stmt rebuild_if(const Stmt& s, Expr condition, Stmt then_case, Stmt else_case) {
  auto n = std::make_shared<StmtNode>(*make_if(std::move(condition), std::move(then_case), std::move(else_case)));
  n->skips_padding = s->skips_padding;
  n->unswitches_padding = s->unswitches_padding;
  return n;
}

Stmt make_seq(std::vector<Stmt> children) {
  std::vector<Stmt> flat;
  for (Stmt& c : children) {
    if (!c) continue;
    if (c->kind == StmtKind::kSeq) {
      flat.insert(flat.end(), c->children.begin(), c->children.end());
    } else {
      flat.push_back(std::move(c));
    }
  }
  if (flat.size() == 1) return flat.front();
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kSeq;
  n->children = std::move(flat);
  return n;
}

void visit(const Stmt& stmt, const std::function<void(const StmtNode&)>& fn) {
  if (!stmt) return;
  fn(*stmt);
  visit(stmt->body, fn);
  visit(stmt->then_case, fn);
  visit(stmt->else_case, fn);
  for (const Stmt& c : stmt->children) visit(c, fn);
}

namespace {

void print(std::ostream& os, const Stmt& s, int indent, const VarNames& names) {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  switch (s->kind) {
    case StmtKind::kFor:
      os << pad << to_string(s->for_kind);
      if (s->for_kind == ForKind::kGpuBlock || s->for_kind == ForKind::kGpuThread) os << "." << "xyz"[s->gpu_dim];
      os << " (" << to_string(s->loop_var, names) << ", 0, " << s->extent
         << ") {\n";
      print(os, s->body, indent + 1, names);
      os << pad << "}\n";
      return;
    case StmtKind::kStore:
      os << pad << s->buffer << "[" << to_string(s->index, names) << "] = "
         << to_string(s->value, names) << "\n";
      return;
    case StmtKind::kAllocate:
      os << pad << "allocate " << s->buffer << "[" << dtype_name(s->dtype) << " * " << s->size
         << "], " << to_string(s->scope) << "\n";
      print(os, s->body, indent, names);
      return;
    case StmtKind::kIfThenElse:
      os << pad << "if (" << to_string(s->condition, names) << ") {"
         << (s->skips_padding ? "  // else only padding\n" : s->unswitches_padding ? "  // else some padding\n" : "\n");
      print(os, s->then_case, indent + 1, names);
      if (s->else_case) {
        os << pad << "} else {\n";
        print(os, s->else_case, indent + 1, names);
      }
      os << pad << "}\n";
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->children) print(os, c, indent, names);
      return;
  }
}

// Nested loops of different stages may share a name ("j.0"); an inner one that would shadow
// an outer one prints with a prime ("j.0'"). Sibling loops keep their plain names.
void assign_names(const Stmt& s, std::vector<std::string>& in_scope, VarNames& names) {
  if (!s) return;
  bool pushed = false;
  if (s->kind == StmtKind::kFor && !names.count(s->loop_var.get())) {
    std::string name = s->loop_var->name;
    while (std::find(in_scope.begin(), in_scope.end(), name) != in_scope.end()) name += "'";
    names[s->loop_var.get()] = name;
  }
  if (s->kind == StmtKind::kFor) {
    in_scope.push_back(names[s->loop_var.get()]);
    pushed = true;
  }
  assign_names(s->body, in_scope, names);
  assign_names(s->then_case, in_scope, names);
  assign_names(s->else_case, in_scope, names);
  for (const Stmt& c : s->children) assign_names(c, in_scope, names);
  if (pushed) in_scope.pop_back();
}

VarNames display_names(const Stmt& stmt) {
  VarNames names;
  std::vector<std::string> in_scope;
  assign_names(stmt, in_scope, names);
  return names;
}

}  // namespace

std::string to_string(const Stmt& stmt) {
  std::ostringstream os;
  if (stmt) print(os, stmt, 0, display_names(stmt));
  return os.str();
}

std::string to_string(const LoweredFunc& func) {
  std::ostringstream os;
  os << "kernel " << func.name << "(";
  for (size_t i = 0; i < func.arguments.size(); ++i) {
    const KernelArgument& a = func.arguments[i];
    os << (i ? ", " : "") << a.name << ": " << dtype_name(a.dtype) << "[" << a.size << "]";
  }
  os << ")\n";
  if (func.pack_body) {
    os << "packed at load:";
    for (const KernelArgument& a : func.packed) os << " " << a.name << "[" << a.size << "]";
    os << "\n" << to_string(func.pack_body) << "every call:\n";
  }
  os << to_string(func.body);
  return os.str();
}

}  // namespace tessera::schedule

// Splitting a GPU LoweredFunc into kernels and checking them (see gpu_check.h).
#include "schedule/gpu_check.h"

#include <string>

#include "schedule/dtype.h"

namespace tessera::schedule {
namespace {

const char* dim_name(ForKind kind, int dim) {
  static const char* block[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
  static const char* thread[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
  return kind == ForKind::kGpuBlock ? block[dim] : thread[dim];
}

// Walks one kernel, recording its launch shape; the first problem found is kept in `error`.
class KernelWalker {
 public:
  KernelWalker(GpuKernel& kernel, const GpuLimits& limits, int index)
      : kernel_(kernel), limits_(limits), where_("kernel " + std::to_string(index)) {}

  void walk(const Stmt& s) {
    if (!s || !error.empty()) return;
    switch (s->kind) {
      case StmtKind::kFor: return walk_for(*s);
      case StmtKind::kAllocate: return walk_allocate(*s);
      case StmtKind::kIfThenElse:
        walk(s->then_case);
        walk(s->else_case);
        return;
      case StmtKind::kSeq:
        for (const Stmt& c : s->children) walk(c);
        return;
      case StmtKind::kStore: return;
    }
  }

  std::string error;

 private:
  void fail(const std::string& why) {
    if (error.empty()) error = where_ + ": " + why;
  }

  void walk_for(const StmtNode& s) {
    const std::string loop = "loop '" + s.loop_var->name + "'";
    switch (s.for_kind) {
      case ForKind::kParallel:
      case ForKind::kVectorized:
        return fail(loop + " is " + to_string(s.for_kind) +
                    ", a CPU annotation the cuda target does not compile (bind it instead)");
      case ForKind::kGpuBlock:
        if (!outer_.empty()) {
          return fail(loop + " is bound to " + dim_name(s.for_kind, s.gpu_dim) + " inside loop '" +
                      outer_ + "'; block loops must be the outermost loops of their kernel");
        }
        break;
      case ForKind::kGpuThread: break;
      default: {
        // Serial and unrolled loops: every thread runs them.
        std::string saved = outer_;
        outer_ = s.loop_var->name;
        walk(s.body);
        outer_ = saved;
        return;
      }
    }
    const bool block = s.for_kind == ForKind::kGpuBlock;
    auto& bound = block ? block_bound_ : thread_bound_;
    if (!bound[s.gpu_dim].empty()) {
      return fail(loop + " and loop '" + bound[s.gpu_dim] + "' are both bound to " +
                  dim_name(s.for_kind, s.gpu_dim) + " on one path");
    }
    auto& size = block ? kernel_.grid : kernel_.block;
    size[s.gpu_dim] = std::max(size[s.gpu_dim], s.extent);
    bound[s.gpu_dim] = s.loop_var->name;
    std::string saved = outer_;
    std::string saved_thread = thread_loop_;
    if (!block) outer_ = thread_loop_ = s.loop_var->name, ++inside_threads_;
    walk(s.body);
    if (!block) --inside_threads_;
    outer_ = saved;
    thread_loop_ = saved_thread;
    bound[s.gpu_dim].clear();
  }

  void walk_allocate(const StmtNode& s) {
    const std::string stage = "stage '" + s.buffer + "'";
    switch (s.scope) {
      case StorageScope::kGlobal:
        return fail(stage + " is a global buffer attached inside the kernel; the cuda target "
                    "keeps global intermediates at root (use scope local or shared)");
      case StorageScope::kShared:
        if (inside_threads_ > 0) {
          return fail(stage + " is in shared memory but computed inside thread loop '" + thread_loop_ +
                      "': the barriers around it would diverge; compute it at a loop outside "
                      "the thread loops");
        }
        kernel_.shared_bytes += s.size * dtype_bytes(s.dtype);
        break;
      case StorageScope::kLocal:
        if (s.size > limits_.max_local_elements) {
          return fail(stage + " keeps " + std::to_string(s.size) + " elements per thread, more than " +
                      std::to_string(limits_.max_local_elements));
        }
        break;
    }
    walk(s.body);
  }

  GpuKernel& kernel_;
  const GpuLimits& limits_;
  std::string where_;
  std::string outer_;  // the innermost enclosing loop that is not a block loop
  std::string thread_loop_;  // the innermost enclosing thread loop
  int inside_threads_ = 0;
  std::array<std::string, 3> block_bound_, thread_bound_;
};

}  // namespace

Result<GpuProgram> plan_gpu_kernels(const LoweredFunc& func, const GpuLimits& limits) {
  if (!func.packed.empty()) {
    return make_error("stage '" + func.packed.front().name +
                      "' is packed at load; the cuda target does not support packed stages yet");
  }
  GpuProgram program;
  Stmt body = func.body;
  while (body && body->kind == StmtKind::kAllocate && body->scope == StorageScope::kGlobal) {
    program.temporaries.push_back(KernelArgument{body->buffer, body->size, body->dtype, false});
    body = body->body;
  }
  std::vector<Stmt> parts;
  if (body && body->kind == StmtKind::kSeq) parts = body->children;
  else if (body) parts.push_back(body);
  for (size_t i = 0; i < parts.size(); ++i) {
    GpuKernel kernel;
    kernel.body = parts[i];
    KernelWalker walker(kernel, limits, static_cast<int>(i));
    walker.walk(parts[i]);
    if (!walker.error.empty()) return make_error(walker.error);
    const std::string where = "kernel " + std::to_string(i) + ": ";
    if (kernel.threads() > limits.max_threads) {
      return make_error(where + std::to_string(kernel.threads()) + " threads per block (" +
                        std::to_string(kernel.block[0]) + " x " + std::to_string(kernel.block[1]) +
                        " x " + std::to_string(kernel.block[2]) + "), more than the limit " +
                        std::to_string(limits.max_threads));
    }
    if (kernel.block[2] > 64 || kernel.grid[1] > 65535 || kernel.grid[2] > 65535) {
      return make_error(where + "a grid or block dimension is past CUDA's limit");
    }
    if (kernel.shared_bytes > limits.max_shared_bytes) {
      return make_error(where + std::to_string(kernel.shared_bytes) +
                        " bytes of shared memory, more than the limit " +
                        std::to_string(limits.max_shared_bytes) + "; stage smaller tiles");
    }
    program.kernels.push_back(std::move(kernel));
  }
  return program;
}

}  // namespace tessera::schedule

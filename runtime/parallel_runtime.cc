// TBB-backed parallel loops and aligned allocation for generated kernels.
#include "runtime/parallel_runtime.h"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <memory>
#include <mutex>

#include "runtime/memory.h"

namespace tessera::runtime {
namespace {

struct Arena {
  std::mutex mutex;
  int threads = 0;
  std::unique_ptr<tbb::task_arena> arena;
};

Arena& arena() {
  static Arena a;
  return a;
}

std::atomic<int> g_threads{0};

}  // namespace

void set_num_threads(int threads) {
  if (threads < 1) threads = 1;
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (a.threads == threads && a.arena) return;
  a.arena = std::make_unique<tbb::task_arena>(threads);
  a.threads = threads;
  g_threads = threads;
}

int num_threads() {
  int t = g_threads.load();
  if (t == 0) {
    set_num_threads(tbb::info::default_concurrency());
    t = g_threads.load();
  }
  return t;
}

}  // namespace tessera::runtime

extern "C" void tessera_parallel_for(void (*body)(void*, int64_t, int64_t), void* ctx,
                                     int64_t extent) {
  using tessera::runtime::arena;
  int threads = tessera::runtime::num_threads();
  if (threads == 1 || extent <= 1) {
    body(ctx, 0, extent);
    return;
  }
  tbb::task_arena* a = arena().arena.get();
  a->execute([&] {
    // Iterations of a generated parallel loop cost the same: split them evenly, once.
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, extent),
        [&](const tbb::blocked_range<int64_t>& r) { body(ctx, r.begin(), r.end()); },
        tbb::static_partitioner());
  });
}

extern "C" void* tessera_alloc(int64_t bytes) {
  size_t size = (static_cast<size_t>(bytes) + 63) / 64 * 64;
  void* p = tessera::runtime::allocate_buffer_memory(size, 64);
  if (!p) {
    // A kernel cannot report failure: say why on stderr (a measurement worker's stderr reaches
    // the Runner's error message) and abort.
    char text[96];
    int n = std::snprintf(text, sizeof text, "tessera_alloc: cannot allocate %lld bytes\n",
                          static_cast<long long>(bytes));
    if (::write(2, text, static_cast<size_t>(n)) < 0) {}
    std::abort();
  }
  return p;
}

extern "C" void tessera_free(void* ptr) { tessera::runtime::free_buffer_memory(ptr); }

// Builder: compiles a batch of candidates to relocatable object code, in parallel on TBB.
//
// Each candidate is a DAG plus schedule steps; it is scheduled, lowered and compiled with its
// own LLVM context and target machine (thread-safe, TOOLCHAIN.md). Failures are results:
// a schedule that does not apply or lower, or LLVM refusing, is a compile error; a candidate
// whose loop nest would unroll past `max_statements` is refused up front as a compile timeout
// (LLVM's time grows with it and cannot be interrupted), and one whose compile still runs past
// `timeout_s` is reported as a compile timeout too.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/measure.h"
#include "schedule/compute_dag.h"
#include "schedule/steps.h"

namespace tessera::runtime {

struct BuildInput {
  const schedule::ComputeDAG* dag = nullptr;
  std::vector<schedule::Step> steps;
  Fault fault = Fault::kNone;  // tests only
};

struct BuildOptions {
  int threads = 0;                 // 0: every core TBB sees
  double timeout_s = 20;
  int64_t max_statements = 200000;  // after unrolling
};

std::vector<BuildResult> build_batch(const std::vector<BuildInput>& inputs,
                                     const BuildOptions& options = {});

// A batch compiled in order while its first candidates are already being timed: one thread per
// CPU of `spare_cpus` (pinned there, never on the CPUs that time) compiles from the front of
// the batch, and so does the caller's thread whenever take() waits for a candidate not yet
// compiled. With a worker timing on one core of two, the batch's compiles use both cores until
// the first candidate is ready and one core after; the timing core no longer idles while the
// batch compiles (bench/NOTES.md, `timing_neighbor` for what that costs the timing).
class BuildPipeline {
 public:
  BuildPipeline(std::vector<BuildInput> inputs, BuildOptions options, const std::vector<int>& spare_cpus);
  ~BuildPipeline();  // waits for the compiles under way; claims no more
  BuildPipeline(const BuildPipeline&) = delete;
  BuildPipeline& operator=(const BuildPipeline&) = delete;

  size_t size() const { return inputs_.size(); }
  // Candidate i's build (once per i), compiling others in this thread until it is ready.
  BuildResult take(size_t i);

 private:
  bool compile_next();  // compiles the next unclaimed candidate; false when none is left

  std::vector<BuildInput> inputs_;
  BuildOptions options_;
  std::vector<BuildResult> results_;
  std::vector<char> ready_;
  size_t next_ = 0;  // the first unclaimed candidate
  bool stopping_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::thread> threads_;
};

// The CPUs this process may run on other than those a worker timing with `threads` threads is
// pinned to (runner.h's measurement_cpus): where a BuildPipeline compiles; empty on one core.
std::vector<int> spare_cpus(int threads);

}  // namespace tessera::runtime

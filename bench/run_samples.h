// A spread sample of a finished run's correct candidates, lowered again from their records: the
// kernels a tuner really measured, for benches that ask how compiling or timing them could be
// cheaper without measuring different kernels (compile_cases.cc, warmup_cases.cc).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "experiments/config.h"
#include "experiments/run_tasks.h"
#include "runtime/check.h"
#include "schedule/lower.h"

namespace tessera::bench {

struct RunSample {
  const schedule::ComputeDAG* dag = nullptr;  // into RunSamples::tasks
  schedule::LoweredFunc func;
};

// Consecutive correct records of one task (a round's batch, as the tuner measured it) and the
// task's best median before them.
struct RunBatch {
  const schedule::ComputeDAG* dag = nullptr;  // into RunSamples::tasks
  std::vector<std::vector<schedule::Step>> schedules;
  double best_before = 0;  // 0: none
};

struct RunSamples {
  experiments::TuneConfig config;
  std::vector<experiments::RunTask> tasks;
  std::vector<RunSample> samples;  // in record order
  std::vector<RunBatch> batches;   // load_run_batches
  size_t correct_records = 0;      // the population they were spread over

  std::filesystem::path run_dir;

  // The task's correctness check, made (or read from the run's checks/) once per workload.
  Result<const runtime::MeasureTask*> check(const schedule::ComputeDAG& dag);

 private:
  std::map<std::string, runtime::MeasureTask> checks_;
};

// `wanted` correct records of the run directory's records.jsonl (its config.yaml names the
// tasks), evenly spaced over them, each applied and lowered.
Result<RunSamples> load_run_samples(const std::filesystem::path& run_dir, int wanted);

// `wanted` batches of at least `least` candidates (up to 16), evenly spaced over the run's
// batches; `samples` stays empty.
Result<RunSamples> load_run_batches(const std::filesystem::path& run_dir, int wanted, size_t least);

}  // namespace tessera::bench

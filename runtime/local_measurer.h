// LocalMeasurer: measures on this machine: a batch is compiled on every core (builder.h), then
// each candidate is checked and timed, one at a time, in an isolated worker (runner.h).
//
// It is the Measurer a TuningTask uses unless told otherwise, and the one each rank of an MPI
// job (mpi/) measures with. The reference outputs a candidate is checked against are computed
// once per workload and kept. A candidate whose warm-up or first timed repeat is more than
// MeasureOptions::give_up_ratio times the fastest so far (the task's best, then this batch's)
// is timed no further, and so is one whose repeats so far leave its median no chance to beat
// that fastest. It counts its wall seconds by phase (build, run). The object code of its last
// 64 compiled candidates is kept, so re-timing one (a new best's confirmation) does not compile
// it again.
#pragma once

#include <deque>
#include <map>
#include <string>

#include "runtime/builder.h"
#include "runtime/check.h"
#include "runtime/measurer.h"
#include "runtime/runner.h"

namespace tessera::runtime {

class LocalMeasurer : public Measurer {
 public:
  // `checks_dir` non-empty: reference checks are kept there across runs (runtime/check_cache.h).
  LocalMeasurer(BuildOptions build, MeasureOptions measure, uint64_t seed, RunnerOptions runner = {},
                std::string checks_dir = "")
      : build_(std::move(build)), measure_(measure), seed_(seed), runner_(std::move(runner)),
        checks_dir_(std::move(checks_dir)) {}

  Result<void> prepare(const schedule::ComputeDAG& dag) override;
  std::vector<MeasureResult> measure(const schedule::ComputeDAG& dag,
                                     const std::vector<Schedule>& schedules) override;
  void measure_each(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules,
                    double best_seconds, const ResultSink& done) override;
  // Builds once, then measures every round from the same object code.
  void retime(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules, int rounds,
              const ResultSink& done) override;

  PhaseSeconds phase_seconds() const override { return phases_; }
  const MeasureOptions& options() const { return measure_; }
  int workers_started() const { return runner_.workers_started(); }

 private:
  // The reference of `dag` (computed on first use), or why there is none.
  Result<const MeasureTask*> reference(const schedule::ComputeDAG& dag);
  std::vector<BuildResult> build(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules);
  // runner_.measure, its wall time counted as running.
  MeasureResult run(const MeasureTask& check, const BuildResult& built, const MeasureOptions& options);
  // Keeps a compiled candidate's object code among the last kKeptObjects; the kept one of
  // `steps`, if any. A new best's confirmation re-times it and its nearest rivals, which all
  // compiled in this batch or an earlier one: they are not compiled again.
  void keep(const schedule::ComputeDAG& dag, const Schedule& steps, const BuildResult& built);
  const BuildResult* kept(const schedule::ComputeDAG& dag, const Schedule& steps) const;
  static constexpr size_t kKeptObjects = 64;

  BuildOptions build_;
  MeasureOptions measure_;
  uint64_t seed_;
  Runner runner_;
  std::string checks_dir_;
  std::map<std::string, MeasureTask> references_;  // by workload key
  std::map<std::string, BuildResult> kept_;        // by workload key and steps
  std::deque<std::string> kept_order_;             // oldest first
  PhaseSeconds phases_;
};

}  // namespace tessera::runtime

// Measurer: what turns schedules into measurements, so a TuningTask can run on this machine's
// hardware, on other machines (mpi/) or on a simulator without its agents knowing.
//
// LocalMeasurer (local_measurer.h) builds on every core and times in an isolated worker: a
// TuningTask's default. The ReplaySimulator (replay_simulator.h) answers from records or from a
// fixed model, for agent tests and studies without hardware; the GpuMeasurer (cuda/) times on a
// GPU; the RemoteMeasurer (mpi/) spreads a batch over the ranks of an MPI job. A Measurer
// answers every schedule exactly once and never throws: a schedule it cannot answer gets an
// error result.
#pragma once

#include <functional>
#include <vector>

#include "runtime/measure.h"
#include "schedule/compute_dag.h"
#include "schedule/result.h"
#include "schedule/steps.h"

namespace tessera::runtime {

using Schedule = std::vector<schedule::Step>;

// Wall seconds a measurer has spent, by phase: building (lowering and compiling, on every core)
// and running (loading, checking and timing, one candidate at a time). Where a candidate's
// time goes, so cheaper trials are a measurement, not a guess.
struct PhaseSeconds {
  double build = 0;
  double run = 0;
};
// Receives the result of schedules[index] (measure_each) or of one round's schedules[index]
// (retime), the moment it exists.
using ResultSink = std::function<void(size_t index, MeasureResult result)>;

class Measurer {
 public:
  virtual ~Measurer() = default;

  // Makes ready to measure `dag` (e.g. its reference outputs), so that a DAG that cannot be
  // checked is refused when its task is created rather than once per candidate.
  virtual Result<void> prepare(const schedule::ComputeDAG& dag) {
    (void)dag;
    return {};
  }

  // One result per schedule, in order.
  virtual std::vector<MeasureResult> measure(const schedule::ComputeDAG& dag,
                                             const std::vector<Schedule>& schedules) = 0;

  // The form a TuningTask calls: every result is handed to `done` as soon as it exists (in any
  // order), so a caller can record it before the rest of the batch is measured. `best_seconds`
  // is the task's fastest so far (0: none), for MeasureOptions::give_up_ratio. By default:
  // measure() and hand the results over in order.
  virtual void measure_each(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules,
                            double best_seconds, const ResultSink& done);

  // `rounds` rounds in which each schedule is measured once more, in turn, side by side on one
  // machine: `done(i, result)` per schedule per round (a schedule that failed may be left out
  // of later rounds). By default: measure_each() once per round.
  virtual void retime(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules, int rounds,
                      const ResultSink& done);

  // Seconds spent so far, by phase (all zero for a measurer that does not split them).
  virtual PhaseSeconds phase_seconds() const { return {}; }
};

}  // namespace tessera::runtime

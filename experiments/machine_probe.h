// MachineProbe: one fixed kernel timed now and then while a network is tuned, so that the run's
// timings can be read at one machine speed afterwards.
//
// A network tune's estimate sums timings taken across its minutes, and the runs of a sitting
// (one per allocator) are taken up to an hour apart on a shared machine whose speed moves by
// 2-6% between them (bench/NOTES.md, stop 79). The same schedules timed in two runs name that
// drift between runs, but not inside one. The probe is the network's heaviest task (weight x
// FLOPs) at its first default schedule, compiled once and timed with the run's own protocol in
// a worker of its own: what it reads changes only with the machine. `tessera tune` times it
// every `budget.probe_every_s` of tuning, outside the budget's clock, and curve.csv keeps each
// timing as a "<machine probe>" row.
//
// The timings never touch the search. A correction applied to the timings that choose a best is
// selected on its own noise (bench/NOTES.md, "A drift check before each batch"); these are for
// reading a run afterwards (bench/e2e_allocators.py).
#pragma once

#include <memory>
#include <string>

#include "env/tuning_task.h"
#include "schedule/result.h"

namespace tessera::experiments {

inline constexpr const char* kMachineProbeRow = "<machine probe>";

class MachineProbe {
 public:
  // Compiles and times the first default schedule of `dag` once (an error when it has none or
  // it fails). `options` are the run's; records, re-timings, confirmations and the measurer are
  // the probe's own (none, none, off, a LocalMeasurer of its own).
  static Result<std::unique_ptr<MachineProbe>> create(const schedule::ComputeDAG& dag, env::TaskOptions options);

  // One timing: the median seconds per call of one more measurement, from the same object code.
  Result<double> time();
  // The first timing (at create).
  double first_seconds() const { return first_seconds_; }

 private:
  explicit MachineProbe(std::unique_ptr<env::TuningTask> task, double first) : task_(std::move(task)), first_seconds_(first) {}
  std::unique_ptr<env::TuningTask> task_;
  double first_seconds_ = 0;
};

}  // namespace tessera::experiments

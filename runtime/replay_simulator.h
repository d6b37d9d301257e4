// ReplaySimulator: measurements without hardware, deterministically.
//
// From records: a schedule of a workload that was measured before (same workload key, same
// steps) gets that record's costs and error again; any other schedule gets the fixed model's
// answer if one is set, else a kRuntimeError "not in the replayed records". From a model: a
// function of the lowered kernel gives its seconds (a schedule that does not lower is a
// kCompileError, as on hardware). `analytic_cpu_seconds` is a built-in model: a roofline-like
// cost from the program features (arithmetic over vector lanes and unrolling, plus bytes
// touched, gathers and strides) — not this machine's truth, but smooth and monotone in the
// things real CPUs reward, which is what agent tests need.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "runtime/measurer.h"
#include "runtime/records.h"
#include "schedule/loop_nest.h"

namespace tessera::runtime {

using SecondsModel = std::function<double(const schedule::LoweredFunc&)>;

double analytic_cpu_seconds(const schedule::LoweredFunc& func);

class ReplaySimulator : public Measurer {
 public:
  explicit ReplaySimulator(SecondsModel model = analytic_cpu_seconds) : model_(std::move(model)) {}
  // Answers the records of `path` (bad lines are skipped, as read_records does); `fallback`
  // answers the rest (empty: they are errors).
  static Result<ReplaySimulator> from_records(const std::string& path, SecondsModel fallback = {});
  static ReplaySimulator from_records(const std::vector<MeasureRecord>& records, SecondsModel fallback = {});

  std::vector<MeasureResult> measure(const schedule::ComputeDAG& dag,
                                     const std::vector<std::vector<schedule::Step>>& schedules) override;
  size_t replayed() const { return replayed_; }  // answers taken from records so far
  size_t modelled() const { return modelled_; }  // answers from the model so far

 private:
  SecondsModel model_;
  std::map<std::string, MeasureResult> known_;  // workload key + canonical steps -> result
  size_t replayed_ = 0, modelled_ = 0;
};

}  // namespace tessera::runtime

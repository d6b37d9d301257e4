// `tessera tune`: the tuning loop that wires the levels together for each task of a config,
// and the run directory it fills.
//
// For each task: sketches and knob spaces (schedule/), an agent from the registry (agents/)
// proposes batches, the TuningTask (env/) builds, runs and records them, the agent observes,
// until the task's trial or time budget is spent or the agent has converged. A progress line
// goes to stderr after each batch. The run directory holds config.yaml (the resolved config),
// records.jsonl, curve.csv (trial, elapsed seconds, best cost per task), summary.json,
// curve.svg, run.log and, for agents that learn a proxy, proxy.pt (its weights). Rerunning with the same run directory resumes from its records: no
// candidate is measured twice, and the trials and time spent count against the budget.
#pragma once

#include <memory>
#include <string>

#include "experiments/config.h"
#include "runtime/measurer.h"
#include "runtime/records.h"

namespace tessera::experiments {

// Runs the experiment; returns the process exit code. A config with a network runs
// run_tune_network (tune_network.h).
// `measurer` set: every task measures through it (an MPI job's ranks, mpi/); unset: this machine.
int run_tune(const TuneConfig& config, std::shared_ptr<runtime::Measurer> measurer = nullptr);

// The records of a run directory to resume from: its trials (records.jsonl), then its
// re-timings (retimed.jsonl), none where a file is missing; refused when any was measured on
// another machine (runtime::check_measured_here); bad lines become `warnings`. Reads only: a
// refused run directory is left as it was. `measured_on`: the fingerprint this run measures
// with (a GPU run's); null: this host's CPU.
Result<std::vector<runtime::MeasureRecord>> read_resumable_records(
    const std::string& run_dir, std::vector<std::string>* warnings,
    const runtime::HardwareFingerprint* measured_on = nullptr);

}  // namespace tessera::experiments

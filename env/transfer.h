// Transfer-tuning: a task's first candidates taken from other runs' records (and, within a
// network run, from the other tasks' bests: sibling_candidates).
//
// Records of other models measured on this machine hold schedules that were fast there. For a
// task, `transfer_candidates` picks, before any search, the fastest correct schedules of the
// same workload (exact candidates), then those of other workloads whose sketch this task also
// has with the same knob names (the conv of another layer, a dense of another width), each
// knob value carried over to the nearest this task's domain allows
// (schedule::KnobSpace::nearest) and kept only when its steps apply to this task's DAG.
// Other workloads come nearest shape first, at most `per_workload` from each, so one model's
// many similar layers do not crowd out the rest. Candidates the task has measured already
// are skipped (a resumed run repeats nothing).
#pragma once

#include <string>
#include <vector>

#include "env/tuning_task.h"
#include "runtime/records.h"

namespace tessera::env {

struct TransferOptions {
  int limit = 8;         // candidates per task at most
  int per_workload = 3;  // from each other workload at most
};

struct TransferPick {
  Candidate candidate;
  std::string from_workload;  // the workload key whose record it came from
  bool exact = false;         // the same workload: the record's own knobs
};

// `records`: other runs' records, already restricted to this machine's fingerprint.
std::vector<TransferPick> transfer_candidates(const TuningTask& task, const std::vector<runtime::MeasureRecord>& records,
                                             const TransferOptions& options = {});

// The fastest schedule each other task of the same run has found so far, carried over to
// `task` the same way (a sketch of the same id, each knob nearest), nearest first, skipping what
// `task` has measured: `limit` at most. A network run can start each task's search round with a
// few of them (TuneConfig::share_bests): ResNet-50's 3x3 convs of different stages share
// sketches, so one task's find is a likely start for its siblings.
std::vector<TransferPick> sibling_candidates(const TuningTask& task, const std::vector<const TuningTask*>& others,
                                            int limit);

// Reads the records of each path (a run directory's records.jsonl, or a records file) and
// keeps the correct ones measured on `fingerprint_id`; `skipped` counts the others' records.
// An unreadable path is an error naming it; bad lines become `warnings`.
Result<std::vector<runtime::MeasureRecord>> read_transfer_records(const std::vector<std::string>& paths,
                                                                  const std::string& fingerprint_id, int* skipped,
                                                                  std::vector<std::string>* warnings);

}  // namespace tessera::env

// The best recorded schedule of each workload measured on this machine: what the network
// executor compiles for a task that was tuned.
//
// Records come from a records.jsonl file or a directory: every *.jsonl file under it, e.g. a
// run directory with its records.jsonl and retimed.jsonl, or a folder of runs (a network run's
// round log, rounds.jsonl, is not records and is skipped). Only correct measurements (no error
// class) whose hardware fingerprint is this machine's count. A schedule timed more than once
// (re-timed at a run's end by env::TuningTask::retime, or measured by several runs) is one
// record holding all its timings, so its median is not the luckiest of them; a re-timing's
// costs join divided by its `scale` (MeasureRecord::scale), so that re-timed schedules are ranked
// against never re-timed ones on one scale, in their side-by-side order. Of those, the one
// with the lowest median cost per workload key wins, among records timed with cold constants if
// the workload has any (ranks_before). A schedule that failed when timed again (a failed record
// of source kRetimeSource) is never chosen, whatever its other timings. A network verdict (a
// record of source kNetworkSource, experiments/network_verdict.h) ranks its schedule by its own
// costs alone, in place of that schedule's timings: what the network measured stands over what a
// kernel timed alone said. Corrupt lines are skipped and reported as warnings, not errors.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/records.h"
#include "schedule/result.h"

namespace tessera::runtime {

// The source of a network verdict: a schedule that ran faster in the network than the
// workload's best by timing, with costs that place it on the records' scale by that ratio (the
// best's ranked cost times the network's time ratio of the two).
inline constexpr const char* kNetworkSource = "network";

struct RecordBests {
  std::map<std::string, MeasureRecord> by_workload;  // workload key -> fastest correct record
  int records_read = 0;
  int other_machine = 0;              // correct records skipped: measured elsewhere
  std::vector<std::string> files;     // the files read
  std::vector<std::string> warnings;  // "path:line: ...", from the reader
};

// An Error when `path` does not exist or a file cannot be read.
Result<RecordBests> load_record_bests(const std::string& path);

}  // namespace tessera::runtime

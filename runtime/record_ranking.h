// Each workload's fastest few recorded schedules in the executor's order: what the network's
// verdict (experiments/network_verdict.h) times against each other where the network runs them.
//
// The same reading and ranking as load_record_bests (record_bests.h: a schedule's timings ranked
// together, cold-timed before warm, network verdicts in place of their schedules' timings, a
// schedule that failed when timed again left out), keeping the first `top` of each workload
// instead of the first alone. Implemented beside it, in record_bests.cc.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/records.h"
#include "schedule/result.h"

namespace tessera::runtime {

// workload key -> its best `top` records, fastest first, each holding all its schedule's timings.
using RecordRanking = std::map<std::string, std::vector<MeasureRecord>>;

// An Error when `path` does not exist or a file cannot be read.
Result<RecordRanking> load_record_ranking(const std::string& path, int top);

}  // namespace tessera::runtime

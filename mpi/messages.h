// The messages between rank 0 and the measuring ranks of an MPI job, as JSON.
//
//   rank 0 -> rank k: {"type": "measure", "batch", "workload_key", "best_seconds", "items"}
//                     {"type": "retime",  "batch", "workload_key", "rounds", "items"}
//                     {"type": "stop", "reason", "peers_lost" (true: end without MPI_Finalize)}
//   rank k -> rank 0: {"type": "hello", ...}                     (cluster.h)
//                     {"type": "result", "batch", "index", "result"}   one per candidate, as measured
//                     {"type": "retimed", "batch"}                     after the last round
// An item is {"index", "steps"}: the candidate's position in rank 0's batch and its schedule.
#pragma once

#include <nlohmann/json.hpp>

#include "runtime/measure.h"

namespace tessera::mpi {

nlohmann::json result_message(uint64_t batch, size_t index, const runtime::MeasureResult& result);
// The result a "result" message carries (a malformed one becomes an error result).
runtime::MeasureResult result_of(const nlohmann::json& message);

}  // namespace tessera::mpi

// Reference checks kept on disk. Preparing a task's correctness check evaluates the reference
// at its sampled output points, most of the time a network tune spends before its budget starts
// (about 50 s for ResNet-50's 27 tasks on two cores). A run directory's `checks/` keeps each
// task's points and reference values, so a resumed or repeated run reads them instead.
//
// A file is used only when it names the same workload, seed and point count and was made from
// the same inputs (a hash of them), and its checksum holds; anything else (another version's
// inputs, a truncated write) is ignored and the check recomputed. Files are written to a
// temporary name and renamed, so a kill mid-write leaves no half file under the real name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/check.h"

namespace tessera::runtime {

// The file in `dir` that holds the checks of `workload_key` for this seed and point count.
std::string checks_file(const std::string& dir, const std::string& workload_key, uint64_t seed,
                        int64_t max_points);

// The checks stored at `path` for `task` (its key, inputs and output sizes already set), or
// nothing when the file is missing or does not match.
std::optional<std::vector<OutputCheck>> load_checks(const std::string& path, const MeasureTask& task,
                                                    uint64_t seed, int64_t max_points);

// Stores `task.checks` at `path` (its directory created when missing).
Result<void> save_checks(const std::string& path, const MeasureTask& task, uint64_t seed, int64_t max_points);

}  // namespace tessera::runtime

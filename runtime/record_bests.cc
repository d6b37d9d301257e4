// Fastest correct record per workload, from a file or a directory of records (see record_bests.h).
#include "runtime/record_bests.h"

#include <algorithm>
#include <filesystem>

namespace tessera::runtime {

Result<RecordBests> load_record_bests(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  RecordBests bests;
  if (fs::is_directory(path, ec)) {
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (it->is_regular_file(ec) && it->path().extension() == ".jsonl") {
        bests.files.push_back(it->path().string());
      }
    }
    std::sort(bests.files.begin(), bests.files.end());
    if (bests.files.empty()) return make_error(path + ": no *.jsonl records files in this directory");
  } else if (fs::exists(path, ec)) {
    bests.files.push_back(path);
  } else {
    return make_error(path + ": no such records file or directory");
  }
  const std::string here = host_fingerprint().id();
  for (const std::string& file : bests.files) {
    auto read = read_records(file);
    if (!read) return read.error();
    bests.warnings.insert(bests.warnings.end(), read->warnings.begin(), read->warnings.end());
    for (MeasureRecord& r : read->records) {
      ++bests.records_read;
      if (r.error != MeasureError::kNone || r.costs.empty()) continue;
      if (r.hardware.id() != here) {
        ++bests.other_machine;
        continue;
      }
      auto found = bests.by_workload.find(r.workload_key);
      if (found == bests.by_workload.end() || ranks_before(r, found->second)) {
        bests.by_workload[r.workload_key] = std::move(r);
      }
    }
  }
  return bests;
}

}  // namespace tessera::runtime

// Fastest correct record per workload, from a file or a directory of records (see record_bests.h).
#include "runtime/record_bests.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>

namespace tessera::runtime {

Result<RecordBests> load_record_bests(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  RecordBests bests;
  if (fs::is_directory(path, ec)) {
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (it->is_regular_file(ec) && it->path().extension() == ".jsonl" && it->path().filename() != "rounds.jsonl") {
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
  // workload key -> (timing class and steps -> the schedule's record, all its costs). The key
  // holds the steps as text; each record's parsed steps are dropped until it wins, since a
  // folder of runs holds thousands of schedules.
  constexpr size_t kClassPrefix = 5;  // "cold " or "warm "
  std::map<std::string, std::map<std::string, MeasureRecord>> schedules;
  std::map<std::string, std::set<std::string>> failed_again;  // workload key -> keys failed when re-timed
  std::map<std::string, std::map<std::string, MeasureRecord>> verdicts;  // as `schedules`, network verdicts only
  for (const std::string& file : bests.files) {
    auto read = read_records(file);
    if (!read) return read.error();
    bests.warnings.insert(bests.warnings.end(), read->warnings.begin(), read->warnings.end());
    for (MeasureRecord& r : read->records) {
      ++bests.records_read;
      if (r.hardware.id() != here) {
        if (r.error == MeasureError::kNone && !r.costs.empty()) ++bests.other_machine;
        continue;
      }
      const std::string key = (r.timed_cold() ? "cold " : "warm ") + r.steps.dump();
      if (r.error != MeasureError::kNone && r.source == kRetimeSource) failed_again[r.workload_key].insert(key);
      if (r.error != MeasureError::kNone || r.costs.empty()) continue;
      if (r.source == kNetworkSource) {  // kept apart: it replaces its schedule's timings below
        auto [it, fresh] = verdicts[r.workload_key].try_emplace(key);
        if (fresh) it->second = std::move(r);
        else it->second.costs.insert(it->second.costs.end(), r.costs.begin(), r.costs.end());
        continue;
      }
      if (r.scale != 1) {  // a re-timing: put on the scale of the first timings it joins
        r.costs = r.comparable_costs();
        r.scale = 1;
      }
      auto [it, fresh] = schedules[r.workload_key].try_emplace(key);
      if (fresh) {
        it->second = std::move(r);
        it->second.steps = nullptr;
      } else {
        it->second.costs.insert(it->second.costs.end(), r.costs.begin(), r.costs.end());
      }
    }
  }
  for (auto& [workload, of_workload] : verdicts) {
    for (auto& [key, verdict] : of_workload) {
      verdict.steps = nullptr;
      schedules[workload][key] = std::move(verdict);
    }
  }
  for (auto& [workload, of_workload] : schedules) {  // each holds one schedule or more
    if (auto failed = failed_again.find(workload); failed != failed_again.end()) {
      for (const std::string& key : failed->second) of_workload.erase(key);
      if (of_workload.empty()) continue;
    }
    auto best = of_workload.begin();
    for (auto it = std::next(best); it != of_workload.end(); ++it) {
      if (ranks_before(it->second, best->second)) best = it;
    }
    MeasureRecord& chosen = bests.by_workload[workload] = std::move(best->second);
    chosen.steps = nlohmann::json::parse(best->first.substr(kClassPrefix));
  }
  return bests;
}

}  // namespace tessera::runtime

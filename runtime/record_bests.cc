// Fastest correct record per workload, from a file or a directory of records (see record_bests.h).
#include "runtime/record_bests.h"
#include "runtime/record_ranking.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>

namespace tessera::runtime {

namespace {

// workload key -> (timing class and steps -> the schedule's record, all its costs). The key
// holds the steps as text; each record's parsed steps are dropped until it wins, since a folder
// of runs holds thousands of schedules.
using Schedules = std::map<std::string, std::map<std::string, MeasureRecord>>;
constexpr size_t kClassPrefix = 5;  // "cold " or "warm "

// Every correct schedule of this machine in `path`, network verdicts in place of their
// schedules' timings and schedules that failed when timed again left out; what was read goes
// to `bests`' files, counts and warnings.
Result<Schedules> read_schedules(const std::string& path, RecordBests& bests) {
  namespace fs = std::filesystem;
  std::error_code ec;
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
  Schedules schedules;
  std::map<std::string, std::set<std::string>> failed_again;  // workload key -> keys failed when re-timed
  Schedules verdicts;  // as `schedules`, network verdicts only
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
  for (const auto& [workload, keys] : failed_again) {
    auto of_workload = schedules.find(workload);
    if (of_workload == schedules.end()) continue;
    for (const std::string& key : keys) of_workload->second.erase(key);
    if (of_workload->second.empty()) schedules.erase(of_workload);
  }
  return schedules;
}

}  // namespace

Result<RecordBests> load_record_bests(const std::string& path) {
  RecordBests bests;
  auto schedules = read_schedules(path, bests);
  if (!schedules) return schedules.error();
  for (auto& [workload, of_workload] : *schedules) {  // each holds one schedule or more
    auto best = of_workload.begin();
    for (auto it = std::next(best); it != of_workload.end(); ++it) {
      if (ranks_before(it->second, best->second)) best = it;
    }
    MeasureRecord& chosen = bests.by_workload[workload] = std::move(best->second);
    chosen.steps = nlohmann::json::parse(best->first.substr(kClassPrefix));
  }
  return bests;
}

Result<RecordRanking> load_record_ranking(const std::string& path, int top) {
  RecordBests read;
  auto schedules = read_schedules(path, read);
  if (!schedules) return schedules.error();
  RecordRanking ranking;
  for (auto& [workload, of_workload] : *schedules) {
    std::vector<std::pair<const std::string*, MeasureRecord*>> ranked;
    for (auto& [key, record] : of_workload) ranked.emplace_back(&key, &record);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return ranks_before(*a.second, *b.second); });
    if (static_cast<int>(ranked.size()) > std::max(top, 0)) ranked.resize(std::max(top, 0));
    std::vector<MeasureRecord>& out = ranking[workload];
    for (auto& [key, record] : ranked) {
      out.push_back(std::move(*record));
      out.back().steps = nlohmann::json::parse(key->substr(kClassPrefix));
    }
  }
  return ranking;
}

}  // namespace tessera::runtime

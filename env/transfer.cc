// Transfer-tuning from other runs' records (see transfer.h).
#include "env/transfer.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace tessera::env {
namespace {

bool faster(const runtime::MeasureRecord* a, const runtime::MeasureRecord* b) {
  return a->median_cost() < b->median_cost();
}

// `knobs` of a schedule of sketch `sketch_id` carried over to `task`: its sketch of that id,
// each knob value nearest this task's domain, kept only when the steps apply.
struct Carry {
  double distance;
  Candidate candidate;
};
std::optional<Carry> carry_over(const TuningTask& task, const std::string& sketch_id, const nlohmann::json& knobs) {
  for (size_t s = 0; s < task.sketches().size(); ++s) {
    const schedule::Sketch& sketch = task.sketches()[s];
    if (sketch.id != sketch_id) continue;
    auto nearest = sketch.knobs.nearest(knobs);
    if (!nearest || !schedule::apply_candidate(task.dag(), sketch, nearest->values)) return std::nullopt;
    return Carry{nearest->distance, Candidate{static_cast<int>(s), nearest->values, ""}};
  }
  return std::nullopt;
}

}  // namespace

std::vector<TransferPick> transfer_candidates(const TuningTask& task, const std::vector<runtime::MeasureRecord>& records,
                                             const TransferOptions& options) {
  std::map<std::string, std::vector<const runtime::MeasureRecord*>> by_workload;
  for (const runtime::MeasureRecord& r : records) {
    if (r.error == runtime::MeasureError::kNone && r.median_cost() > 0) by_workload[r.workload_key].push_back(&r);
  }
  std::vector<TransferPick> picks;
  std::set<Candidate> taken;
  auto take = [&](const Candidate& c, const std::string& from, bool exact) {
    if (static_cast<int>(picks.size()) >= options.limit || task.measured(c) || !taken.insert(c).second) return;
    picks.push_back({c, from, exact});
  };
  // The same workload first: its records are this task's own candidates.
  if (auto same = by_workload.find(task.dag().workload_key()); same != by_workload.end()) {
    std::sort(same->second.begin(), same->second.end(), faster);
    for (const runtime::MeasureRecord* r : same->second) {
      if (auto c = task.candidate_of(*r)) take(*c, r->workload_key, true);
    }
  }
  // Then other workloads' fastest, carried over, nearest shape first.
  using Carried = std::tuple<double, int, Candidate, std::string>;  // distance, rank, candidate, from
  std::vector<Carried> carried;
  for (auto& [key, list] : by_workload) {
    if (key == task.dag().workload_key()) continue;
    std::sort(list.begin(), list.end(), faster);
    int rank = 0;
    for (const runtime::MeasureRecord* r : list) {
      if (rank >= options.per_workload) break;
      if (auto carry = carry_over(task, r->sketch, r->knobs)) {
        carried.emplace_back(carry->distance, rank++, carry->candidate, key);
      }
    }
  }
  std::sort(carried.begin(), carried.end(),
            [](const Carried& a, const Carried& b) { return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b)); });
  for (const auto& [distance, rank, c, from] : carried) take(c, from, false);
  return picks;
}

std::vector<TransferPick> sibling_candidates(const TuningTask& task, const std::vector<const TuningTask*>& others,
                                            int limit) {
  std::vector<std::pair<double, TransferPick>> carried;
  for (const TuningTask* other : others) {
    if (other == &task || !other->best()) continue;
    const Candidate& best = other->best()->candidate;
    const schedule::Sketch& sketch = other->sketch(best);
    auto carry = carry_over(task, sketch.id, sketch.knobs.to_json(best.knobs));
    if (!carry || task.measured(carry->candidate)) continue;
    carried.push_back({carry->distance, {carry->candidate, other->dag().workload_key(), false}});
  }
  std::stable_sort(carried.begin(), carried.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TransferPick> picks;
  std::set<Candidate> taken;
  for (auto& [distance, pick] : carried) {
    if (static_cast<int>(picks.size()) >= limit) break;
    if (taken.insert(pick.candidate).second) picks.push_back(std::move(pick));
  }
  return picks;
}

Result<std::vector<runtime::MeasureRecord>> read_transfer_records(const std::vector<std::string>& paths,
                                                                  const std::string& fingerprint_id, int* skipped,
                                                                  std::vector<std::string>* warnings) {
  std::vector<runtime::MeasureRecord> out;
  for (const std::string& path : paths) {
    const std::filesystem::path p = std::filesystem::is_directory(path) ? std::filesystem::path(path) / "records.jsonl"
                                                                         : std::filesystem::path(path);
    if (!std::filesystem::is_regular_file(p)) {
      return make_error("transfer: no records at '" + p.string() + "' (expected a run directory or a records file)");
    }
    auto file = runtime::read_records(p.string());
    if (!file) return file.error();
    if (warnings) warnings->insert(warnings->end(), file->warnings.begin(), file->warnings.end());
    for (runtime::MeasureRecord& r : file->records) {
      if (r.hardware.id() != fingerprint_id) {
        if (skipped) ++*skipped;
        continue;
      }
      if (r.error == runtime::MeasureError::kNone) out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace tessera::env

// Per-source credit of a task's measurements (see source_credit.h).
#include "runtime/source_credit.h"

#include <cstdio>

namespace tessera::runtime {

void CreditBySource::add(const std::string& source, bool ok, double seconds) {
  SourceCredit& credit = by_source_[source.empty() ? kUnknownSource : source];
  ++credit.measured;
  if (!ok || seconds <= 0) return;
  if (best_seconds_ == 0 || seconds < best_seconds_) {
    ++credit.improvements;
    best_seconds_ = seconds;
  }
  if (credit.best_seconds == 0 || seconds < credit.best_seconds) credit.best_seconds = seconds;
}

nlohmann::json CreditBySource::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [source, c] : by_source_) {
    out[source] = {{"measured", c.measured}, {"improvements", c.improvements}, {"best_seconds", c.best_seconds}};
  }
  return out;
}

std::vector<std::string> CreditBySource::lines() const {
  std::vector<std::string> out;
  for (const auto& [source, c] : by_source_) {
    char line[256];
    if (c.best_seconds > 0) {
      std::snprintf(line, sizeof line, "%s: %d measured, %d improvements, best %.4g ms", source.c_str(), c.measured,
                    c.improvements, c.best_seconds * 1e3);
    } else {
      std::snprintf(line, sizeof line, "%s: %d measured, none correct", source.c_str(), c.measured);
    }
    out.emplace_back(line);
  }
  return out;
}

CreditBySource credit_of(const std::vector<MeasureRecord>& records, const std::string& workload_key) {
  CreditBySource credit;
  for (const MeasureRecord& r : records) {
    if (r.workload_key != workload_key) continue;
    credit.add(r.source, r.error == MeasureError::kNone && !r.costs.empty(), r.median_cost());
  }
  return credit;
}

}  // namespace tessera::runtime

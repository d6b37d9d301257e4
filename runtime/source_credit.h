// SourceCredit: which proposer earned what in one task's search — per source tag (the search
// part or agent that proposed a candidate, e.g. "climb", "ppo", "evolved", "random"), the
// candidates measured, the improvements (measurements faster than every earlier correct one of
// the task) and the fastest found. Kept live by env::TuningTask as it measures, and rebuilt
// from a records file in file order (`tessera best`), so a resumed run is credited whole.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/records.h"

namespace tessera::runtime {

// Records written before sources were recorded carry none; they are credited to this.
inline constexpr const char* kUnknownSource = "unknown";

struct SourceCredit {
  int measured = 0;
  int improvements = 0;
  double best_seconds = 0;  // 0 while none of its candidates ran correctly
};

class CreditBySource {
 public:
  // One measurement, in the order measured: `ok` and `seconds` as the measurement says.
  void add(const std::string& source, bool ok, double seconds);
  const std::map<std::string, SourceCredit>& sources() const { return by_source_; }
  // {"climb": {"measured": 40, "improvements": 3, "best_seconds": 0.0012}, ...}
  nlohmann::json to_json() const;
  // One line per source, e.g. "climb: 40 measured, 3 improvements, best 1.204 ms".
  std::vector<std::string> lines() const;

 private:
  std::map<std::string, SourceCredit> by_source_;
  double best_seconds_ = 0;
};

// The credit of the records of `workload_key`, in their order.
CreditBySource credit_of(const std::vector<MeasureRecord>& records, const std::string& workload_key);

}  // namespace tessera::runtime

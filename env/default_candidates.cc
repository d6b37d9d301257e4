// Default schedules as sketch candidates (see default_candidates.h).
#include "env/default_candidates.h"

#include "runtime/default_schedule.h"

namespace tessera::env {

std::vector<Candidate> default_candidates(const TuningTask& task) {
  std::vector<Candidate> out;
  // Timed with cold constants (a network's tasks), the rule sizes for weights from memory.
  const auto constants = task.cold_constants() ? runtime::Constants::kFromMemory : runtime::Constants::kCached;
  for (const runtime::ScheduleChoice& choice : runtime::default_schedules(task.dag(), constants)) {
    for (size_t s = 0; s < task.sketches().size(); ++s) {
      if (task.sketches()[s].id != choice.sketch) continue;
      if (auto knobs = task.sketches()[s].knobs.from_json(choice.knobs)) {
        out.push_back({static_cast<int>(s), *knobs, "default"});
      }
    }
  }
  return out;
}

}  // namespace tessera::env

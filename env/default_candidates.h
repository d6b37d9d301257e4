// The default schedules of a task (runtime/default_schedule.h: rule-chosen tiles and vector
// widths from the op's structure) as candidates of its sketches, credited to source "default".
//
// Every tuning run measures them first, before any agent proposes: they cost a second or two,
// they are often within a few percent of a long search's best, and an agent that starts from a
// known good point (and a network allocator that knows each task's latency) wastes no trials
// finding one.
#pragma once

#include <vector>

#include "env/tuning_task.h"

namespace tessera::env {

std::vector<Candidate> default_candidates(const TuningTask& task);

}  // namespace tessera::env

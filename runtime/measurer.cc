// The Measurer's default streaming and re-timing in terms of its batch measure (see measurer.h).
#include "runtime/measurer.h"

namespace tessera::runtime {

void Measurer::measure_each(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules,
                            double best_seconds, const ResultSink& done) {
  (void)best_seconds;
  auto results = measure(dag, schedules);
  for (size_t i = 0; i < schedules.size(); ++i) {
    if (i < results.size()) {
      done(i, std::move(results[i]));
      continue;
    }
    MeasureResult missing;
    missing.error = MeasureError::kRuntimeError;
    missing.message = "the measurer returned no result for this schedule";
    done(i, std::move(missing));
  }
}

void Measurer::retime(const schedule::ComputeDAG& dag, const std::vector<Schedule>& schedules, int rounds,
                      const ResultSink& done) {
  for (int round = 0; round < rounds; ++round) measure_each(dag, schedules, 0, done);
}

}  // namespace tessera::runtime

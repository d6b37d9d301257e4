// The network tune's machine probe (see machine_probe.h).
#include "experiments/machine_probe.h"

#include "env/default_candidates.h"

namespace tessera::experiments {

Result<std::unique_ptr<MachineProbe>> MachineProbe::create(const schedule::ComputeDAG& dag, env::TaskOptions options) {
  options.records_path.clear();
  options.retimes_path.clear();
  options.confirm_rounds = 0;
  options.measurer = nullptr;  // its own worker, and its object code never evicted by a search's
  options.on_measured = nullptr;
  auto task = env::TuningTask::create(dag, std::move(options));
  if (!task) return make_error("machine probe: " + task.error().message);
  std::vector<env::Candidate> defaults = env::default_candidates(**task);
  if (defaults.empty()) return make_error("machine probe: the task has no default schedule");
  defaults.resize(1);
  const std::vector<env::Measurement> measured = (*task)->measure(defaults);
  if (measured.empty() || !measured.front().ok()) {
    return make_error("machine probe: its default schedule failed: " +
                      (measured.empty() ? std::string("not measured") : measured.front().result.message));
  }
  return std::unique_ptr<MachineProbe>(new MachineProbe(std::move(*task), measured.front().seconds()));
}

Result<double> MachineProbe::time() {
  const std::vector<env::Retimed> timed = task_->retime(1, 1);
  if (timed.empty() || !timed.front().ok()) {
    return make_error("machine probe: timing failed: " + (timed.empty() ? std::string("no result") : timed.front().message));
  }
  return timed.front().seconds();
}

}  // namespace tessera::experiments

// The measuring ranks' loop (see serve.h).
#include "mpi/serve.h"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mpi/cluster.h"
#include "mpi/messages.h"
#include "schedule/step_json.h"

namespace tessera::mpi {
namespace {

// The schedules of a work message's items; a malformed one is left empty and answered with
// an error by the caller.
std::vector<std::pair<size_t, Result<runtime::Schedule>>> schedules_of(const nlohmann::json& work) {
  std::vector<std::pair<size_t, Result<runtime::Schedule>>> out;
  for (const nlohmann::json& item : work.value("items", nlohmann::json::array())) {
    out.emplace_back(item.value("index", size_t{0}), schedule::steps_from_json(item.value("steps", nlohmann::json())));
  }
  return out;
}

runtime::MeasureResult refused(const std::string& why) {
  runtime::MeasureResult r;
  r.error = runtime::MeasureError::kCompileError;
  r.message = why;
  return r;
}

}  // namespace

void pin_measurements_for_local_rank() {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!local || std::getenv("TESSERA_MEASURE_CPUS")) return;
  const int k = std::atoi(local);
  cpu_set_t allowed;
  if (k < 1 || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (cpus.empty()) return;
  const int n = static_cast<int>(cpus.size());
  setenv("TESSERA_MEASURE_CPUS", std::to_string(cpus[static_cast<size_t>(((n - k) % n + n) % n)]).c_str(), 1);
}

int serve(Comm& comm, const std::map<std::string, schedule::ComputeDAG>& workloads,
          runtime::LocalMeasurer& measurer) {
  if (!say_hello(comm)) {
    std::fprintf(stderr, "tessera rank %d: rank 0 did not take its hello\n", comm.rank());
    return 1;
  }
  for (;;) {
    auto envelope = comm.receive(0, -1);
    if (!envelope) {
      std::fprintf(stderr, "tessera rank %d: lost contact with rank 0\n", comm.rank());
      return 1;
    }
    const nlohmann::json& work = envelope->message;
    const std::string type = work.value("type", "");
    if (type == "stop") {
      if (work.value("peers_lost", false)) comm.skip_finalize();
      const std::string reason = work.value("reason", "done");
      if (reason != "done") std::fprintf(stderr, "tessera rank %d: stopped: %s\n", comm.rank(), reason.c_str());
      return reason == "done" ? 0 : 1;
    }
    if (type != "measure" && type != "retime") continue;
    const uint64_t batch = work.value("batch", uint64_t{0});
    auto items = schedules_of(work);
    auto reply = [&](size_t item, runtime::MeasureResult result) {
      comm.send(0, result_message(batch, items[item].first, result), -1);
    };
    auto known = workloads.find(work.value("workload_key", ""));
    std::vector<size_t> good;  // items whose steps parsed
    std::vector<runtime::Schedule> schedules;
    for (size_t i = 0; i < items.size(); ++i) {
      if (known == workloads.end()) {
        reply(i, refused("rank " + std::to_string(comm.rank()) + " does not know workload '" +
                         work.value("workload_key", "") + "' (were all ranks started with the same command?)"));
      } else if (!items[i].second) {
        reply(i, refused("malformed steps: " + items[i].second.error().message));
      } else {
        good.push_back(i);
        schedules.push_back(*items[i].second);
      }
    }
    if (!schedules.empty() && type == "measure") {
      measurer.measure_each(known->second, schedules, work.value("best_seconds", 0.0),
                            [&](size_t j, runtime::MeasureResult r) { reply(good[j], std::move(r)); });
    } else if (!schedules.empty()) {
      measurer.retime(known->second, schedules, work.value("rounds", 1),
                      [&](size_t j, runtime::MeasureResult r) { reply(good[j], std::move(r)); });
    }
    if (type == "retime") comm.send(0, {{"type", "retimed"}, {"batch", batch}}, -1);
  }
}

}  // namespace tessera::mpi

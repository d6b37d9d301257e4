// Rank 0 tunes through the other ranks; they serve (see tune_mpi.h).
#include "experiments/tune_mpi.h"

#include <cstdio>
#include <map>
#include <memory>

#include "experiments/run_outputs.h"
#include "experiments/run_tasks.h"
#include "experiments/tune.h"
#include "mpi/remote_measurer.h"
#include "mpi/serve.h"
#include "runtime/local_measurer.h"

namespace tessera::experiments {
namespace {

// Every workload the job can send, by key: the config's tasks, or the model's fused tasks.
Result<std::map<std::string, schedule::ComputeDAG>> job_workloads(const TuneConfig& config) {
  auto tasks = run_tasks(config);
  if (!tasks) return tasks.error();
  std::map<std::string, schedule::ComputeDAG> out;
  for (const RunTask& task : *tasks) out.emplace(task.dag.workload_key(), task.dag);
  return out;
}

runtime::BuildOptions build_options(const TuneConfig& config) {
  runtime::BuildOptions build;
  build.timeout_s = config.measure.compile_timeout_s;
  return build;
}

runtime::MeasureOptions measure_options(const TuneConfig& config) {
  runtime::MeasureOptions measure = config.measure;
  measure.threads = config.threads;
  // Ranks on one machine time on different cores (mpi/serve.h): a rank's spare cores are
  // another's timing core, so no rank compiles while it times.
  measure.compile_while_timing = false;
  return measure;
}

int serve_rank(mpi::Comm& comm, const TuneConfig& config) {
  mpi::pin_measurements_for_local_rank();
  auto workloads = job_workloads(config);
  if (!workloads) {  // still serve: every candidate then fails with the reason, rank 0 goes on
    std::fprintf(stderr, "tessera rank %d: %s\n", comm.rank(), workloads.error().message.c_str());
    workloads = std::map<std::string, schedule::ComputeDAG>{};
  }
  runtime::LocalMeasurer measurer(build_options(config), measure_options(config), config.seed);
  return mpi::serve(comm, *workloads, measurer);
}

}  // namespace

bool launched_as_mpi_job() { return mpi::launched_world_size() > 1; }

void release_mpi_launch_binding() { mpi::release_launch_binding(); }

int run_tune_mpi(const TuneConfig& config, int* argc, char*** argv) {
  auto comm = mpi::Comm::init(argc, argv);
  if (!comm) return std::fprintf(stderr, "tessera tune: %s\n", comm.error().message.c_str()), 1;
  if (comm->size() == 1) return run_tune(config);
  if (comm->rank() != 0) return serve_rank(*comm, config);

  auto ranks = mpi::gather_ranks(*comm, config.mpi_assume_identical_hardware, 300);
  if (!ranks) {
    for (int r = 1; r < comm->size(); ++r) comm->send(r, {{"type", "stop"}, {"reason", "refused by rank 0"}}, 5);
    std::fprintf(stderr, "tessera tune: %s\n", ranks.error().message.c_str());
    comm->abort(1);
  }
  std::string who;
  for (const mpi::RankInfo& r : *ranks) {
    if (r.rank > 0) who += "; " + r.name() + " (pid " + std::to_string(r.pid) + ", " + std::to_string(r.cores) + " cores)";
  }
  std::fprintf(stderr, "tessera tune: MPI job of %d ranks: rank 0 on %s searches%s\n", comm->size(),
               (*ranks)[0].host.c_str(), who.c_str());
  mpi::RemoteOptions options;
  options.hang_timeout_s = config.mpi_hang_timeout_s > 0
                               ? config.mpi_hang_timeout_s
                               : config.measure.compile_timeout_s + 2 * config.measure.run_timeout_s + 30;
  options.log = [&](const std::string& line) {
    RunLog(config.run_dir + "/run.log").say("mpi: " + line);
  };
  options.make_local = [&] {
    return std::make_shared<runtime::LocalMeasurer>(build_options(config), measure_options(config), config.seed);
  };
  auto measurer = std::make_shared<mpi::RemoteMeasurer>(*comm, *ranks, options);
  const int status = run_tune(config, measurer);
  measurer->stop_ranks();
  if (status != 0) comm->abort(status);  // mpirun's status (but see Comm::abort)
  return status;
}

}  // namespace tessera::experiments

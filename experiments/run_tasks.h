// The tasks a tuning config names, built: its `tasks:` operators, or the fused tasks of its
// `network:` model (ONNX import, constant folding, fusion). `tessera best`/`replay` read a run
// back through it, and an MPI job sends its workloads from it.
#pragma once

#include <string>
#include <vector>

#include "experiments/config.h"
#include "schedule/compute_dag.h"

namespace tessera::experiments {

struct RunTask {
  std::string name;  // the task's name in the config, or the fused task's ("t3_conv_relu")
  schedule::ComputeDAG dag;
};

// Errors name the task or the model.
Result<std::vector<RunTask>> run_tasks(const TuneConfig& config);

}  // namespace tessera::experiments

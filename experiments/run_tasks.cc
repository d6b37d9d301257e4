// The tasks of a tuning config, built (see run_tasks.h).
#include "experiments/run_tasks.h"

#include "graph/onnx/import.h"
#include "graph/prepare.h"

namespace tessera::experiments {

Result<std::vector<RunTask>> run_tasks(const TuneConfig& config) {
  std::vector<RunTask> tasks;
  if (!config.network.empty()) {
    auto imported = graph::import_onnx(config.network);
    if (!imported) return imported.error();
    auto layout = graph::parse_layout(config.layout);
    if (!layout) return layout.error();
    auto prepared = graph::prepare_network(*imported, *layout, config.winograd);
    if (!prepared) return prepared.error();
    for (graph::FusedTask& t : prepared->tasks.tasks) tasks.push_back({t.name, std::move(t.dag)});
    return tasks;
  }
  for (const TaskSpec& spec : config.tasks) {
    auto dag = build_task(spec);
    if (!dag) return make_error("task '" + spec.name + "': " + dag.error().message);
    tasks.push_back({spec.name, std::move(*dag)});
  }
  return tasks;
}

}  // namespace tessera::experiments

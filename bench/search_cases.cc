// Search on SGEMM: 300 random trials, then Droplet search from the best, through the builder
// and isolated runner; the best kernel found is then timed alternately with OpenBLAS.
#include <cblas.h>

#include <chrono>
#include <cmath>

#include "agents/droplet_search.h"
#include "agents/random_search.h"
#include "agents/search_loop.h"
#include "bench/cases.h"
#include "bench/measure.h"
#include "runtime/parallel_runtime.h"
#include "schedule/ops.h"

namespace tessera::bench {

nlohmann::json run_droplet_sgemm(int64_t n, int random_trials, int droplet_trials) {
  auto dag = schedule::matmul(n, n, n);
  env::TaskOptions options;
  options.measure.run_timeout_s = 10;
  auto task = env::TuningTask::create(*dag, options);
  if (!task) return error_json(task.error().message);
  auto start = std::chrono::steady_clock::now();
  agents::RandomSearch random(1);
  agents::run_search(random, **task, random_trials, 16);
  int after_random = (*task)->trials();
  double random_best = (*task)->best_gflops();
  agents::DropletSearch droplet(1);
  agents::run_search(droplet, **task, droplet_trials, 16);
  double search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto& best = (*task)->best();
  if (!best) return error_json("no candidate measured correctly");

  runtime::set_num_threads(1);
  openblas_set_num_threads(1);
  const schedule::Sketch& sketch = (*task)->sketch(best->candidate);
  auto compiled = compile_and_check(*dag, sketch.steps(best->candidate.knobs));
  if (!compiled) return error_json(compiled.error().message);
  nlohmann::json line = compare_with_openblas(*dag, n, *compiled);
  line["trials"] = (*task)->trials();
  line["random_trials"] = after_random;
  line["random_best_gflops"] = std::round(random_best * 10) / 10;
  line["droplet_trials"] = (*task)->trials() - after_random;
  line["droplet_converged"] = droplet.done();
  line["search_seconds"] = std::round(search_seconds);
  line["best_sketch"] = sketch.id;
  line["best_knobs"] = sketch.knobs.to_json(best->candidate.knobs);
  line["threads"] = 1;
  return line;
}

}  // namespace tessera::bench

// SGEMM: the hand-scheduled Tessera kernel next to OpenBLAS, timed alternately in one process
// so both see the same machine state; the Tessera kernel is checked against the reference
// (sampled) and against OpenBLAS's result before any number is reported.
#include <cblas.h>

#include "bench/cases.h"
#include "bench/measure.h"
#include "runtime/parallel_runtime.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"

namespace tessera::bench {

nlohmann::json run_sgemm(int64_t n, int threads, bool cache_write) {
  auto dag = schedule::matmul(n, n, n);
  if (!dag) return error_json(dag.error().message);
  runtime::set_num_threads(threads);
  openblas_set_num_threads(threads);
  auto steps = cache_write ? schedule::matmul_cache_write_schedule(n, n, n)
                           : schedule::matmul_hand_schedule(n, n, n);
  auto compiled = compile_and_check(*dag, steps);
  if (!compiled) return error_json(compiled.error().message);
  nlohmann::json line = compare_with_openblas(*dag, n, *compiled);
  line["threads"] = threads;
  return line;
}

}  // namespace tessera::bench

// The list of benchmark cases (names are the CLI arguments of bench/run.sh).
#include "bench/cases.h"

namespace tessera::bench {

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = {
      {"sgemm_1024_1t", [] { return run_sgemm(1024, 1); }},
      {"sgemm_1024_2t", [] { return run_sgemm(1024, 2); }},
      {"sgemm_1024_cachewrite_1t", [] { return run_sgemm(1024, 1, true); }},
  };
  return cases;
}

}  // namespace tessera::bench

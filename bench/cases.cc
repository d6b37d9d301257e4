// The list of benchmark cases (names are the CLI arguments of bench/run.sh).
#include "bench/cases.h"

namespace tessera::bench {

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = {
      {"sgemm_1024_1t", [] { return run_sgemm(1024, 1); }},
      {"sgemm_1024_2t", [] { return run_sgemm(1024, 2); }},
      {"sgemm_1024_cachewrite_1t", [] { return run_sgemm(1024, 1, true); }},
      {"measure_sgemm_512", [] { return run_measure_sgemm(512, 64); }},
      {"features_throughput", [] { return run_features_throughput(4000); }},
      {"droplet_sgemm_1024_1t", [] { return run_droplet_sgemm(1024, 300, 400); }},
      {"measure_repeatability", [] { return run_measure_repeatability(512, 10); }},
      {"conv2d_c64_56_k64_1t", [] {
         schedule::Conv2dParams p{1, 64, 56, 56, 64, 3, 3};
         p.pad_h = p.pad_w = 1;
         return run_conv2d_bias_relu(p, 1);
       }},
  };
  return cases;
}

}  // namespace tessera::bench

// The list of benchmark cases (names are the CLI arguments of bench/run.sh).
#include "bench/cases.h"

#include <cstdlib>

namespace tessera::bench {
namespace {

schedule::Conv2dParams resnet_conv2_3x3(schedule::Layout layout = schedule::Layout::kNCHW) {
  schedule::Conv2dParams p{1, 64, 56, 56, 64, 3, 3};
  p.pad_h = p.pad_w = 1;
  p.layout = layout;
  return p;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// TESSERA_SUITE_AGENTS=a,b narrows a suite case to those strategies (in their given order).
std::vector<std::string> suite_agents(std::vector<std::string> all) {
  const char* only = std::getenv("TESSERA_SUITE_AGENTS");
  if (!only) return all;
  std::vector<std::string> picked;
  for (const std::string& a : all) {
    if (("," + std::string(only) + ",").find("," + a + ",") != std::string::npos) picked.push_back(a);
  }
  return picked;
}

}  // namespace

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = {
      {"sgemm_1024_1t", [] { return run_sgemm(1024, 1); }},
      {"sgemm_1024_2t", [] { return run_sgemm(1024, 2); }},
      {"sgemm_1024_cachewrite_1t", [] { return run_sgemm(1024, 1, true); }},
      {"measure_sgemm_512", [] { return run_measure_sgemm(512, 64); }},
      {"features_throughput", [] { return run_features_throughput(4000); }},
      {"compile_levels", [] { return run_compile_levels(); }},
      {"warmup_levels", [] { return run_warmup_levels(); }},
      {"timing_neighbor", [] { return run_timing_neighbor(); }},
      {"measure_protocols", [] { return run_measure_protocols(); }},
      {"proxy_online", [] { return run_proxy_online(); }},
      {"droplet_sgemm_1024_1t", [] { return run_droplet_sgemm(1024, 300, 400); }},
      {"measure_repeatability", [] { return run_measure_repeatability(512, 10); }},
      {"conv2d_c64_56_k64_1t", [] { return run_conv2d_bias_relu(resnet_conv2_3x3(), 1); }},
      {"packed_conv_sweep", [] { return run_packed_conv_sweep(resnet_conv2_3x3()); }},
      // Every op-suite convolution and three more, harl against oneDNN (TESSERA_TRIALS,
      // TESSERA_CONVS, TESSERA_AGENT).
      {"conv_suite", [] { return run_conv_suite(env_int("TESSERA_TRIALS", 1000)); }},
      {"conv_probe", [] { return run_conv_probe(); }},
      // 1,000 trials of evolutionary search on the learned proxy (TESSERA_TRIALS to change).
      {"evo_sgemm_1024_1t", [] { return run_search_sgemm("evolutionary", 1024, env_int("TESSERA_TRIALS", 1000)); }},
      // Tessera tunes CPU convolutions in NHWC (HWIO weights): channels vectorize without
      // waste; oneDNN picks its own formats. The NCHW variant is kept for comparison.
      {"evo_conv2d_c64_56_k64_1t", [] {
         return run_search_conv2d("evolutionary", resnet_conv2_3x3(schedule::Layout::kNHWC),
                                  env_int("TESSERA_TRIALS", 1000));
       }},
      {"evo_conv2d_nchw_c64_56_k64_1t",
       [] { return run_search_conv2d("evolutionary", resnet_conv2_3x3(), env_int("TESSERA_TRIALS", 1000)); }},
      // Strategies side by side on the op suite (TESSERA_SUITE_TRIALS, TESSERA_SUITE_TASKS).
      {"search_suite", [] {
         return run_search_suite(suite_agents({"evolutionary", "random", "droplet"}), env_int("TESSERA_SUITE_TRIALS", 200));
       }},
      // The harl policy: 200 trials on SGEMM 1024 against OpenBLAS, and the op suite with
      // every strategy at the same budget and seed (best at 64 / 200 / 1,000 trials).
      {"harl_sgemm_1024_1t", [] { return run_search_sgemm("harl", 1024, env_int("TESSERA_TRIALS", 200)); }},
      {"harl_suite", [] {
         return run_search_suite(suite_agents({"harl", "evolutionary", "droplet", "random"}),
                                 env_int("TESSERA_SUITE_TRIALS", 1000));
       }},
      // harl against evolutionary's 1,000-trial best, stopped at that best or at half its time.
      {"harl_race", [] {
         return run_search_race(suite_agents({"harl"}), env_int("TESSERA_SUITE_TRIALS", 1000));
       }},
      // The two bests each race recorded, re-timed side by side (after harl_race).
      // Memory-bound ops against LibTorch's own kernels, in GB/s (TESSERA_AGENT, TESSERA_TRIALS).
      {"memory_bound_suite", [] { return run_memory_bound_suite(); }},
      // Non-dividing matmuls and a fused gelu epilogue, harl against OpenBLAS (TESSERA_TRIALS).
      {"odd_matmul_suite", [] { return run_odd_matmul_suite(env_int("TESSERA_TRIALS", 200)); }},
      {"odd_matmul_probe", [] { return run_odd_matmul_probe(); }},
      {"fused_epilogue", [] { return run_fused_epilogue(env_int("TESSERA_TRIALS", 200)); }},
      // Plug-in cost models (examples/) against the built-in proxy at equal trials; run.sh builds them.
      {"plugin_suite", [] { return run_plugin_suite(env_int("TESSERA_SUITE_TRIALS", 128)); }},
      // Which way of timing a kernel alone ranks two runs' kernels as the network does.
      {"network_fidelity", [] { return run_network_fidelity(); }},
      // Every allocator on the searches logged network runs ran, no compiling or timing.
      {"allocator_replay", [] { return run_allocator_replay(); }},
      // The reference evaluator's cost per term against a plain loop (a network tune's preparation).
      {"reference_check", [] { return run_reference_check(); }},
      {"harl_race_recheck", [] { return run_race_recheck("harl", env_int("TESSERA_SUITE_TRIALS", 1000)); }},
  };
  return cases;
}

}  // namespace tessera::bench

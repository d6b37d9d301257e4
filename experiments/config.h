// Tuning experiment configs: YAML files parsed into typed structs, strictly.
//
// Unknown keys, wrong types, missing fields and impossible values (an unknown op or agent, a
// shape the op refuses, a non-positive budget) are errors of the form
//   configs/x.yaml:12:5: search.agent: unknown agent 'ppo2' (expected random, droplet, evolutionary, harl, harl_fixed)
// naming file, line, column and key path. `--set key.path=value` overrides apply on top of the
// file before validation (precedence: --set, then the file, then the defaults documented in
// configs/README.md); an error in an override names the override.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runtime/measure.h"
#include "schedule/compute_dag.h"

namespace tessera::experiments {

struct TaskSpec {
  std::string name;  // defaults to the op name and shape
  std::string op;
  std::map<std::string, int64_t> params;
};

struct SearchSpec {
  std::string agent = "droplet";           // a name in agents/registry.h
  std::map<std::string, double> params;    // agent parameters, validated by the agent registry
};

// The cost model shared by the agents that rank with one: `model` names an entry of the
// cost-model registry (env/cost_model_registry.h; plug-ins add entries), `params` are that
// entry's parameters. The other fields configure the built-in learned proxy, `mlp`
// (env/proxy/), wherever it is used: as the model, or wrapped by another.
struct ProxySpec {
  std::string model = "mlp";
  std::map<std::string, double> params;
  std::vector<int> hidden = {256, 256};
  int64_t epochs = 30;
  int64_t rows_per_train = 32768;          // epochs fall once they would train on more samples (0: never)
  int64_t min_samples = 32;
  double learning_rate = 1e-3;
  double pair_noise = 0.02;                // relative gap at which a training pair counts fully
  std::string weights;                     // pretrained weights to start from; empty: random start
};

struct TuneConfig {
  std::string source;                      // the config file
  std::string run_dir;
  // Plug-in libraries (agents/plugin.h), absolute paths, loaded while the config is read so
  // their agents and cost models are known to the rest of it.
  std::vector<std::string> plugins;
  uint64_t seed = 1;
  int threads = 1;
  // target: {kind: cpu | cuda, arch: sm_XX}; arch only for cuda (runtime/cuda/nvrtc.h lists them).
  std::string target_kind = "cpu";
  std::string cuda_arch = "sm_90";
  std::vector<TaskSpec> tasks;
  // A whole network instead of `tasks`: an ONNX model, its fused tasks tuned together, the
  // `allocator` (agents/task_allocator.h) choosing which task gets each round; the budget is
  // then the whole network's.
  std::string network;
  std::string allocator = "harl";
  // The activation layout between a network's tasks (graph/prepare.h): "nhwc" (the default
  // on CPU: convolutions vectorize over channels with no copies) or "nchw" (the model's own;
  // the default for cuda targets). Tasks, and so records, differ between the two.
  std::string layout = "nhwc";
  // NHWC 3x3 convs that qualify computed by Winograd F(2x2, 3x3) (graph/winograd.h); their
  // tasks, and so records, differ from the direct convs'.
  bool winograd = true;
  // Other runs (directories or records files) whose records measured on this machine seed
  // each task's first round before any search (env/transfer.h); network runs only.
  std::vector<std::string> transfer;
  // Every this many seconds of tuning, and at the end, the network is run end to end with the
  // current best kernels and its measured latency goes beside the estimate (0: at the end only).
  double network_every_s = 300;
  // Every this many seconds of tuning (and at its start and end), a fixed kernel, the heaviest
  // task at its default schedule, is timed outside the budget's clock, so that the run can be
  // read at one machine speed afterwards (experiments/machine_probe.h; 0: off).
  double probe_every_s = 20;
  // Of each search round's batch in a network run, up to this many are the fastest schedules
  // the network's other tasks have found, carried over to the task (env::sibling_candidates;
  // 0: off, the default: on ResNet-50 it found 12 of 27 final bests but no faster network,
  // bench/NOTES.md).
  int share_bests = 0;
  // At the end, each tuned task's kernel and its default are timed against each other in the
  // network, this many inferences of each interleaved (experiments/network_verdict.h): where the
  // default runs faster there, a verdict record makes the executor keep it (0: off).
  int verdict_runs = 30;
  SearchSpec search;
  ProxySpec proxy;
  int64_t trials = 200;                    // per task
  double seconds = 0;                      // per task wall time; 0: no limit
  int batch_size = 16;
  runtime::MeasureOptions measure;
  // The best is re-timed before it is reported: the `retime_top` fastest candidates of a task
  // are measured again side by side, `retime_rounds` times in turn, in one worker (0: off).
  int retime_top = 5;
  int retime_rounds = 5;
  // A new best within `confirm_within` of a rival is timed again beside its two nearest rivals,
  // `confirm_rounds` rounds, before it stands (env::TaskOptions::confirm_rounds; 0: off).
  int confirm_rounds = 2;
  double confirm_within = 0.05;
  // An MPI job (`mpirun -np N tessera tune ...`, mpi/): ranks whose hardware differs from rank
  // 0's are refused unless `assume_identical_hardware`; a rank silent this long while it holds
  // work is lost and its candidates go to others (0: compile + 2 x run timeout + 30 s).
  bool mpi_assume_identical_hardware = false;
  double mpi_hang_timeout_s = 0;
};

Result<TuneConfig> load_config(const std::string& path, const std::vector<std::string>& overrides = {});
// The run directory of `records` (a run directory, or a records file in one): the directory
// itself, else the file's.
std::string run_directory_of(const std::string& records);
// Where a run keeps its reference checks (runtime/check_cache.h): checks/ in the run directory
// of `records`; empty for empty `records` (nothing to keep them beside).
std::string checks_dir_of(const std::string& records);
// The activation layout a network run tuned in, from its config.yaml beside `run` (a run
// directory or a records file in one): its `layout`, "nchw" for a network run from before
// layouts were chosen, nothing where there is no network run's config.
std::optional<std::string> layout_of_run(const std::string& run);
// Whether a network run computed its eligible convs by Winograd, from the same config.yaml: its
// `winograd`, false for a network run from before Winograd convs, nothing where there is no
// network run's config.
std::optional<bool> winograd_of_run(const std::string& run);
// `tessera tune MODEL.onnx`: the config of a network run with every default (run_dir
// runs/<model name>, evolutionary search with the proxy, harl allocator, 2,000 trials or 20
// minutes), overrides on top.
Result<TuneConfig> load_network_config(const std::string& model, const std::vector<std::string>& overrides = {});

// The config with every default filled in, as JSON (which is also valid YAML: the run
// directory keeps it as config.yaml, and load_config reads it back).
nlohmann::json resolved_config(const TuneConfig& config);

// The DAG of a task spec.
Result<schedule::ComputeDAG> build_task(const TaskSpec& spec);

}  // namespace tessera::experiments

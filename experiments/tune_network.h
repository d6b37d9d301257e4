// `tessera tune MODEL.onnx` (or a config with `network:`): a whole network tuned at once.
//
// The model is imported, folded and fused into weighted tasks (graph/); each task gets a
// TuningTask sharing the run's records.jsonl and its own search agent from the registry; the
// allocator (agents/task_allocator.h) picks the task of each round in a NetworkEnv (env/),
// whose objective is the estimated end-to-end latency (sum of weight x best per task). A task's
// first round measures only its default schedules (runtime/default_schedule.h): tuning never
// ends slower than the untuned network, and the estimate is known after seconds per task, not
// a search batch per task, before the allocator's choices begin. A line per round says the
// task chosen and the estimate; curve.csv gets a "<network>" row per round (trials, elapsed,
// estimate), which also carries the time spent across a resume, and rounds.jsonl a line
// (round_log.h) that a resumed run replays into the environment and the allocator, so that
// the rounds and gains it decides by survive a kill. With `transfer:` (--from
// RUN_DIR), each task first gets a transfer round: its defaults and the schedules other runs
// found for it or for similar tasks (env/transfer.h), before the allocator starts. Every
// `budget.network_every_s` of tuning and at the end the network is built from the records
// (runtime::NetworkExecutor) and timed, a "<network measured>" row beside the estimate
// (network_progress.h; curve.svg plots both). At the end every task's best is re-timed and
// summary.json holds the per-task table and the measured latencies. Records are shared with
// single-op runs and other models: a task measured before (same workload key, this machine)
// resumes from them instead of starting from zero.
#pragma once

#include <memory>

#include "experiments/config.h"
#include "runtime/measurer.h"

namespace tessera::experiments {

int run_tune_network(const TuneConfig& config, std::shared_ptr<runtime::Measurer> measurer = nullptr);

}  // namespace tessera::experiments

// RewardProxy: the learned cost model — an MLP over program features, trained online with a
// pairwise ranking loss. It is what the evolutionary search ranks with and the reward the RL
// agents learn from.
//
// Labels are throughput normalized per task (divided by the task's best), so tasks of any
// size train together. Training minimizes RankNet's pairwise logistic loss over pairs of the
// same task, each pair weighted by its relative throughput gap up to `pair_noise` (a pair closer
// than the measurement noise is as likely ordered by noise as by speed, so it counts in
// proportion; pairs further apart count fully), on minibatches drawn from one task at a time, warm-starting from the current
// weights. Inputs are standardized with the training set's mean and spread.
//
// Each `train` makes `epochs` passes, fewer when that would come to more than `rows_per_train`
// samples trained on (at least one pass, so every new sample is seen): the cost of a round's
// training stays flat as a run's measurements grow instead of growing with them.
//
// Cold start: until `min_samples` samples were trained on (and no weights were loaded), the
// proxy is untrained and `predict` returns seeded random scores, as Ansor's random model does,
// so a search still explores. `save` / `load` keep weights and input statistics together.
//
// LibTorch stays inside reward_proxy.cc (its own library, tessera_proxy); this header is
// torch-free.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "env/cost_model.h"
#include "schedule/result.h"

namespace tessera::env {

struct ProxyOptions {
  std::vector<int> hidden = {256, 256};
  double learning_rate = 1e-3;
  double weight_decay = 1e-4;
  int epochs = 30;          // passes over the training set per `train`...
  // ...while they come to at most this many samples trained on; past it, fewer passes (never
  // under one): `train` runs after every round, warm-started, so a set grown to thousands of
  // samples need not be gone over 30 times each round (0: always `epochs`).
  int rows_per_train = 32768;
  int batch_size = 128;     // samples per minibatch (all from one task)
  int min_samples = 32;     // trained samples before predictions replace random scores
  double pair_noise = 0.02; // relative throughput gap at which a pair counts fully
  uint64_t seed = 1;
};

struct TrainReport {
  int samples = 0;
  int epochs = 0;  // passes made (ProxyOptions::epochs, or fewer for a large set)
  int steps = 0;
  double final_loss = 0;  // mean pairwise loss over the last epoch
  double seconds = 0;
};

// The passes a `train` over `samples` samples makes (see ProxyOptions::rows_per_train).
int passes_for(const ProxyOptions& options, size_t samples);

class RewardProxy : public CostModel {
 public:
  explicit RewardProxy(ProxyOptions options = {});
  ~RewardProxy() override;
  RewardProxy(const RewardProxy&) = delete;
  RewardProxy& operator=(const RewardProxy&) = delete;

  std::string name() const override { return "mlp-rank"; }
  void add(const std::vector<ProxySample>& samples) override;
  void train() override { train_report(); }
  TrainReport train_report();
  std::vector<float> predict(const std::vector<std::vector<float>>& features) override;

  // True once predictions come from the network (trained enough, or loaded).
  bool ready() const;
  size_t samples() const;

  Result<void> save(const std::string& path) const;
  // Errors name the file and what does not match (feature count, architecture).
  Result<void> load(const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::env

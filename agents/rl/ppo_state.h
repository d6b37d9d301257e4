// PpoAgent::Impl: what one PPO agent holds — the actor and critic networks, their optimizer,
// the running observation statistics, the recorded steps with their advantages — and the
// small tensor helpers the PPO files share. Internal to agents/rl/ (it includes LibTorch);
// ppo.h is the interface. The PPO code map: ppo.cc acts and records trajectories (with their
// GAE advantages), ppo_update.cc learns from them (the clipped objective), ppo_checkpoint.cc
// saves and loads this state.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "agents/rl/ppo.h"

namespace tessera::agents::rl {
namespace ppo_internal {

inline torch::nn::Sequential mlp(int in, const std::vector<int>& hidden, int out) {
  torch::nn::Sequential net;
  int width = in;
  for (int h : hidden) {
    net->push_back(torch::nn::Linear(width, h));
    net->push_back(torch::nn::Tanh());
    width = h;
  }
  net->push_back(torch::nn::Linear(width, out));
  return net;
}

struct Step {
  std::vector<float> observation;  // standardized, as the policy saw it
  std::vector<bool> mask;
  int action;
  float log_prob;
  float value;
  float reward = 0;
};

}  // namespace ppo_internal

struct PpoAgent::Impl {
  using Step = ppo_internal::Step;
  int observation_size, action_count;
  PpoOptions options;
  std::mt19937_64 rng;
  torch::nn::Sequential actor{nullptr}, critic{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  // Running observation statistics (Welford).
  std::vector<double> mean, m2;
  double count = 0;
  std::vector<Step> open;                 // the trajectory being recorded
  std::vector<Step> closed;               // finished trajectories' steps
  std::vector<float> advantages, returns; // per closed step
  Step pending;                           // the last act(), until recorded
  bool has_pending = false;

  Impl(int obs, int actions, PpoOptions o)
      : observation_size(obs), action_count(actions), options(std::move(o)), rng(options.seed),
        mean(static_cast<size_t>(obs), 0.0), m2(static_cast<size_t>(obs), 0.0) {
    torch::manual_seed(options.seed);
    actor = ppo_internal::mlp(obs, options.hidden, actions);
    critic = ppo_internal::mlp(obs, options.hidden, 1);
    std::vector<torch::Tensor> params = actor->parameters();
    for (auto& p : critic->parameters()) params.push_back(p);
    optimizer = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(options.learning_rate));
  }

  std::vector<float> standardize(const std::vector<float>& raw, bool learn) {
    if (learn) {
      count += 1;
      for (size_t i = 0; i < raw.size(); ++i) {
        double d = raw[i] - mean[i];
        mean[i] += d / count;
        m2[i] += d * (raw[i] - mean[i]);
      }
    }
    std::vector<float> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      double sd = count > 1 ? std::sqrt(m2[i] / (count - 1)) : 1.0;
      out[i] = static_cast<float>(std::clamp((raw[i] - mean[i]) / std::max(sd, 1e-3), -10.0, 10.0));
    }
    return out;
  }

  static torch::Tensor row(const std::vector<float>& v) {
    return torch::from_blob(const_cast<float*>(v.data()), {1, static_cast<int64_t>(v.size())}).clone();
  }
  static torch::Tensor mask_tensor(const std::vector<std::vector<bool>>& masks, int actions) {
    auto m = torch::zeros({static_cast<int64_t>(masks.size()), actions}, torch::kBool);
    auto a = m.accessor<bool, 2>();
    for (size_t i = 0; i < masks.size(); ++i) {
      for (int j = 0; j < actions; ++j) a[static_cast<int64_t>(i)][j] = masks[i][static_cast<size_t>(j)];
    }
    return m;
  }
  static torch::Tensor masked_log_softmax(const torch::Tensor& logits, const torch::Tensor& mask) {
    return torch::log_softmax(logits.masked_fill(mask.logical_not(), -1e9), 1);
  }
};

}  // namespace tessera::agents::rl

// CostModel: ranks candidates of a task by predicted speed, so a search can look at thousands
// of candidates and measure only the most promising few.
//
// A model learns from measured samples (program features -> throughput, grouped by task) and
// scores feature vectors; a higher score means "predicted faster", and scores compare only
// within one task. The learned RewardProxy (env/proxy/, LibTorch) is the default; anything
// that implements this interface (an analytic model, a remote model, a test double) can stand
// in for it, since agents see only this header.
//
// Adding a cost model: implement the four methods, keep randomness seeded from the
// constructor, and make `predict` cheap for a batch of a few thousand vectors.
#pragma once

#include <string>
#include <vector>

namespace tessera::env {

struct ProxySample {
  std::vector<float> features;  // schedule::extract_features of the lowered candidate
  double throughput = 0;        // 1 / seconds (0 for a failed candidate)
  std::string group;            // workload key: throughputs are compared within a group only
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string name() const = 0;
  // Adds measured samples to the training set (kept until the model is destroyed).
  virtual void add(const std::vector<ProxySample>& samples) = 0;
  // Fits the model to every sample added so far.
  virtual void train() = 0;
  // One score per feature vector, higher = predicted faster.
  virtual std::vector<float> predict(const std::vector<std::vector<float>>& features) = 0;
};

}  // namespace tessera::env

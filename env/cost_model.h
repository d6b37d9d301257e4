// CostModel: ranks candidates of a task by predicted speed, so a search can look at thousands
// of candidates and measure only the most promising few.
//
// A model learns from measured samples (program features -> throughput, grouped by task) and
// scores feature vectors; a higher score means "predicted faster", and scores compare only
// within one task. The learned RewardProxy (env/proxy/, LibTorch) is the default; anything
// that implements this interface (an analytic model, a remote model, a test double) can stand
// in for it, since agents see only this header.
//
// A model that reads the schedule itself rather than features (TLP-style: the sequence of
// schedule steps) returns true from `reads_steps`; it is then given each candidate's steps
// beside its features, in ProxySample::steps and through `predict_with_steps`.
//
// Adding a cost model: implement the four methods (and the two step ones if it reads steps),
// keep randomness seeded from the constructor, make `predict` cheap for a batch of a few
// thousand vectors, and give it an entry in the cost-model registry (cost_model_registry.h),
// built in or from a plug-in (agents/plugin.h); configs then choose it as `proxy.model`.
#pragma once

#include <string>
#include <vector>

namespace tessera::env {

struct ProxySample {
  std::vector<float> features;  // schedule::extract_features of the lowered candidate
  double throughput = 0;        // 1 / seconds (0 for a failed candidate)
  std::string group;            // workload key: throughputs are compared within a group only
  // The candidate's schedule steps in order, each as its JSON text (schedule/step_json.h);
  // filled only for models that read steps.
  std::vector<std::string> steps{};
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

  // True for models that read the schedule steps (they are then passed beside features).
  virtual bool reads_steps() const { return false; }
  // One score per candidate, given its features and its steps (empty lists unless the model
  // reads steps). The default ignores the steps.
  virtual std::vector<float> predict_with_steps(const std::vector<std::vector<float>>& features,
                                                const std::vector<std::vector<std::string>>& steps) {
    return predict(features);
  }
};

}  // namespace tessera::env

// A cost model for tests: a fixed linear function of the features, deterministic, untrainable
// and with local optima, so rewards and climbs on it are checkable.
#pragma once

#include <string>
#include <vector>

#include "env/cost_model.h"

namespace tessera::test_support {

class LinearModel : public env::CostModel {
 public:
  std::string name() const override { return "linear"; }
  void add(const std::vector<env::ProxySample>&) override {}
  void train() override {}
  std::vector<float> predict(const std::vector<std::vector<float>>& rows) override {
    std::vector<float> out;
    for (const auto& r : rows) {
      float s = 0;
      for (size_t i = 0; i < r.size(); ++i) s += r[i] * static_cast<float>((i % 5) - 2);
      out.push_back(s);
    }
    return out;
  }
};

}  // namespace tessera::test_support

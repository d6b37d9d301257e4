// Tiny plug-ins for the loader's tests, one library per variant (TEST_PLUGIN_*): a good one
// (an agent and a cost model that conform), and one for each way a library must be refused:
// a wrong interface version, no entry point, a name clash, a throwing factory, a factory that
// returns nothing, a registering function that throws.
#include <random>
#include <set>
#include <stdexcept>

#include "agents/plugin.h"

namespace {

using namespace tessera;

// Uniform samples, never one twice: the smallest agent that passes conformance.
class SampleAgent : public agents::SearchAgent {
 public:
  SampleAgent(std::string name, uint64_t seed) : name_(std::move(name)), rng_(seed) {}
  std::string name() const override { return name_; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override {
    std::vector<env::Candidate> out;
    std::set<env::Candidate> chosen;
    for (int tries = 0; static_cast<int>(out.size()) < count && tries < 100 * count; ++tries) {
      env::Candidate c = task.sample(rng_);
      if (!task.measured(c) && chosen.insert(c).second) out.push_back(c);
    }
    return out;
  }
  void observe(const env::TuningTask&, const std::vector<env::Measurement>&) override {}

 private:
  std::string name_;
  std::mt19937_64 rng_;
};

// Scores by the sum of the features: deterministic and always finite.
class SumModel : public env::CostModel {
 public:
  std::string name() const override { return "sum"; }
  void add(const std::vector<env::ProxySample>&) override {}
  void train() override {}
  std::vector<float> predict(const std::vector<std::vector<float>>& rows) override {
    std::vector<float> out;
    for (const auto& r : rows) {
      float s = 0;
      for (float v : r) s += v;
      out.push_back(s);
    }
    return out;
  }
};

[[maybe_unused]] agents::AgentEntry sample_agent(const std::string& name) {
  return {name, "uniform samples (test plug-in)", {{"unused", env::Param::Kind::kInteger, 0, 3, "a parameter"}}, false,
          [name](const agents::AgentParams&, const agents::AgentContext& c) {
            return std::make_unique<SampleAgent>(name, c.seed);
          }};
}

[[maybe_unused]] env::CostModelEntry sum_model(const std::string& name) {
  return {name, "sum of the features (test plug-in)", {},
          [](const env::ParamValues&, const env::CostModelContext&) { return std::make_shared<SumModel>(); }};
}

[[maybe_unused]] void add_entries(agents::PluginRegistrar& r) {
#if defined(TEST_PLUGIN_GOOD)
  r.add_agent(sample_agent("plugin_sampler"));
  r.add_cost_model(sum_model("plugin_sum"));
#elif defined(TEST_PLUGIN_CLASH)
  r.add_agent(sample_agent("clash_first"));   // fine on its own, but the library is refused
  r.add_agent(sample_agent("random"));        // a built-in agent's name
#elif defined(TEST_PLUGIN_THROWING_FACTORY)
  r.add_agent(sample_agent("thrower_first"));
  r.add_agent({"thrower", "throws when built", {}, false,
               [](const agents::AgentParams&, const agents::AgentContext&) -> std::unique_ptr<agents::SearchAgent> {
                 throw std::runtime_error("boom");
               }});
#elif defined(TEST_PLUGIN_NULL_FACTORY)
  r.add_cost_model({"null_model", "builds nothing", {},
                    [](const env::ParamValues&, const env::CostModelContext&) { return std::shared_ptr<env::CostModel>(); }});
#elif defined(TEST_PLUGIN_THROWING_REGISTER)
  r.add_agent(sample_agent("never_registered"));
  throw std::runtime_error("cannot register");
#else
  r.add_agent(sample_agent("wrong_version_agent"));
#endif
}

}  // namespace

#if defined(TEST_PLUGIN_WRONG_VERSION)
extern "C" __attribute__((visibility("default"))) const tessera::agents::PluginDescriptor* tessera_plugin() {
  static const tessera::agents::PluginDescriptor descriptor{tessera::agents::kPluginInterfaceVersion + 998,
                                                             "wrong_version", add_entries};
  return &descriptor;
}
#elif defined(TEST_PLUGIN_NO_ENTRY)
extern "C" __attribute__((visibility("default"))) int not_a_tessera_plugin() { return 1; }
#else
TESSERA_PLUGIN("test_plugin", add_entries)
#endif

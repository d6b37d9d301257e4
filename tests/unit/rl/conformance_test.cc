// Conformance: every registered agent (the built-in ones, the learned ones and any plug-in
// registered before this runs) passes agents/conformance.h on the replay simulator — the
// same checks `tessera conformance --plugin` runs on plug-ins — and so does the built-in
// learned proxy as a cost model. The checks themselves are shown to catch agents that repeat
// a batch or propose measured candidates.
#include <gtest/gtest.h>

#include <set>

#include "agents/conformance.h"
#include "agents/random_search.h"
#include "agents/rl/register.h"
#include "env/proxy/reward_proxy.h"

namespace tessera::agents {
namespace {

std::string describe(const ConformanceReport& report) {
  std::string text = report.subject + ":";
  for (const std::string& f : report.failures) text += "\n  " + f;
  return text;
}

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, ActsOnTheSimulator) {
  AgentParams small;
  if (GetParam() == "evolutionary") small = {{"population", 256}, {"generations", 2}};
  if (GetParam() == "droplet") small = {{"warmup_trials", 8}};
  env::ProxyOptions proxy;
  proxy.min_samples = 8;
  AgentContext context{5, std::make_shared<env::RewardProxy>(proxy), ""};
  ConformanceReport report = check_agent_conformance(GetParam(), small, context);
  EXPECT_TRUE(report.ok()) << describe(report);
  EXPECT_GE(report.batches, 2);
  EXPECT_GT(report.trials, 8);
}

std::vector<std::string> registered() {
  rl::register_rl_agents();
  return agent_names();
}

INSTANTIATE_TEST_SUITE_P(Registry, Conformance, ::testing::ValuesIn(registered()),
                         [](const auto& info) { return info.param; });

TEST(Conformance, EveryBuiltInAgentIsCovered) {
  auto names = registered();
  for (const char* expected : {"random", "droplet", "evolutionary", "harl", "harl_fixed"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

TEST(Conformance, TheLearnedProxyConformsAsACostModel) {
  env::RewardProxy proxy;
  ConformanceReport report = check_cost_model_conformance("cost model 'mlp'", proxy);
  EXPECT_TRUE(report.ok()) << describe(report);
}

// An agent that proposes the same batch every round (a stuck agent): the checks must say so.
class Stuck : public SearchAgent {
 public:
  std::string name() const override { return "stuck"; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override {
    std::mt19937_64 rng(1);
    std::vector<env::Candidate> out;
    for (int i = 0; i < count; ++i) out.push_back(task.sample(rng));
    return out;
  }
  void observe(const env::TuningTask&, const std::vector<env::Measurement>&) override {}
};

TEST(Conformance, TheChecksCatchAnAgentThatRepeatsItself) {
  Stuck stuck;
  ConformanceReport report = check_agent_conformance(stuck);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(describe(report).find("re-proposed a measured candidate"), std::string::npos) << describe(report);
}

}  // namespace
}  // namespace tessera::agents

// The agent registry: every entry builds from its defaults, parameters are checked against
// its table, and errors say what is allowed.
#include <gtest/gtest.h>

#include "agents/registry.h"

namespace tessera::agents {
namespace {

// A cost model that scores by the first feature: enough to construct agents that need one.
class FirstFeatureModel : public env::CostModel {
 public:
  std::string name() const override { return "first-feature"; }
  void add(const std::vector<env::ProxySample>&) override {}
  void train() override {}
  std::vector<float> predict(const std::vector<std::vector<float>>& f) override {
    std::vector<float> out;
    for (const auto& row : f) out.push_back(row.empty() ? 0.f : row[0]);
    return out;
  }
};

TEST(AgentRegistry, EveryEntryBuildsFromItsDefaults) {
  AgentContext context{3, std::make_shared<FirstFeatureModel>()};
  ASSERT_GE(agent_registry().size(), 3u);
  for (const AgentEntry& entry : agent_registry()) {
    auto agent = make_agent(entry.name, {}, context);
    ASSERT_TRUE(agent.ok()) << entry.name << ": " << agent.error().message;
    EXPECT_EQ((*agent)->name(), entry.name);
    EXPECT_FALSE(entry.summary.empty()) << entry.name;
  }
}

TEST(AgentRegistry, UnknownNamesAndParametersAreRefusedWithTheAlternatives) {
  auto unknown = make_agent("ppo2", {}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "unknown agent 'ppo2' (expected random, droplet, evolutionary)");
  auto param = make_agent("droplet", {{"radius", 2}}, {});
  ASSERT_FALSE(param.ok());
  EXPECT_EQ(param.error().message,
            "search.params.radius: agent 'droplet' has no parameter 'radius' (expected warmup_trials, "
            "max_radius, p_value)");
}

TEST(AgentRegistry, ParameterKindsAndBoundsAreChecked) {
  const AgentEntry* evo = find_agent("evolutionary");
  ASSERT_NE(evo, nullptr);
  EXPECT_TRUE(check_param(*evo, "population", 64).ok());
  EXPECT_EQ(check_param(*evo, "population", 1).error().message, "must be at least 2");
  EXPECT_EQ(check_param(*evo, "generations", 1.5).error().message, "expected an integer");
  EXPECT_EQ(check_param(*evo, "eps_greedy", 1.5).error().message, "must be a probability in [0, 1]");
  EXPECT_EQ(check_param(*evo, "eps_greedy", 0.25).value(), 0.25);
}

TEST(AgentRegistry, AgentsThatRankNeedACostModel) {
  auto agent = make_agent("evolutionary", {}, AgentContext{1, nullptr});
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.error().message, "agent 'evolutionary' needs a cost model and none was given");
}

TEST(AgentRegistry, PluginsRegisterNewAgents) {
  register_agent({"always_random", "a plug-in under test", {{"unused", AgentParam::Kind::kInteger, 0, 5, ""}},
                  false, [](const AgentParams& p, const AgentContext& c) {
                    EXPECT_EQ(p.at("unused"), 5);
                    return make_agent("random", {}, c).value();
                  }});
  auto agent = make_agent("always_random", {}, AgentContext{});
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ((*agent)->name(), "random");
}

}  // namespace
}  // namespace tessera::agents

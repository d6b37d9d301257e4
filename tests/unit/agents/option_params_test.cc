// Parameters declared once (agents/option_params.h): the declaration's default is the options
// struct's own, `fill` writes validated values into the members (ints, doubles, booleans), and
// the registry's entries list exactly the declarations (so YAML is checked against them).
#include "agents/option_params.h"

#include <gtest/gtest.h>

#include "agents/evolutionary_search.h"

namespace tessera::agents {
namespace {

struct Knobs {
  int steps = 7;
  double share = 0.25;
  bool spread = true;
  struct {
    int depth = 3;
  } inner;
};

const OptionParams<Knobs>& knob_params() {
  using K = AgentParam::Kind;
  static const OptionParams<Knobs> p{{
      param<Knobs>("steps", K::kInteger, 1, "how many", [](Knobs& o) -> int& { return o.steps; }),
      param<Knobs>("share", K::kProbability, 0, "how much", [](Knobs& o) -> double& { return o.share; }),
      param<Knobs>("spread", K::kBoolean, 0, "whether", [](Knobs& o) -> bool& { return o.spread; }),
      param<Knobs>("depth", K::kInteger, 0, "nested", [](Knobs& o) -> int& { return o.inner.depth; }),
  }};
  return p;
}

TEST(OptionParams, DefaultsComeFromTheStruct) {
  const std::vector<AgentParam> declared = knob_params().declared();
  ASSERT_EQ(declared.size(), 4u);
  EXPECT_EQ(declared[0].fallback, 7);
  EXPECT_EQ(declared[1].fallback, 0.25);
  EXPECT_EQ(declared[2].fallback, 1);
  EXPECT_EQ(declared[3].fallback, 3);
  EXPECT_EQ(declared[2].kind, AgentParam::Kind::kBoolean);
}

TEST(OptionParams, FillWritesEveryMember) {
  const Knobs k = knob_params().fill({{"steps", 9}, {"share", 0.5}, {"spread", 0}, {"depth", 5}});
  EXPECT_EQ(k.steps, 9);
  EXPECT_EQ(k.share, 0.5);
  EXPECT_FALSE(k.spread);
  EXPECT_EQ(k.inner.depth, 5);
  Knobs start;
  start.steps = 2;
  EXPECT_EQ(knob_params().fill({{"share", 0.75}}, start).steps, 2) << "a value not given keeps start's";
}

TEST(OptionParams, BooleansAreZeroOrOne) {
  AgentEntry entry{"knobs", "", knob_params().declared(), false, nullptr};
  EXPECT_TRUE(check_param(entry, "spread", 1).ok());
  EXPECT_FALSE(check_param(entry, "spread", 2).ok());
  EXPECT_FALSE(check_param(entry, "spread", 0.5).ok());
}

TEST(OptionParams, DescriptionsSayBooleansAsConfigsWriteThem) {
  const std::vector<std::string> lines = describe_params(knob_params().declared());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "steps: integer >= 1, default 7 — how many");
  EXPECT_EQ(lines[2], "spread: boolean, default true — whether");
}

TEST(OptionParams, TheRegistryListsTheDeclarationsWithTheStructsDefaults) {
  const AgentEntry* evolutionary = find_agent("evolutionary");
  ASSERT_NE(evolutionary, nullptr);
  const EvolutionOptions defaults;
  std::map<std::string, double> fallback;
  for (const AgentParam& p : evolutionary->params) fallback[p.name] = p.fallback;
  EXPECT_EQ(fallback.at("population"), defaults.population);
  EXPECT_EQ(fallback.at("generations"), defaults.generations);
  EXPECT_EQ(fallback.at("mutation_probability"), defaults.mutation_probability);
  EXPECT_EQ(fallback.at("eps_greedy"), defaults.eps_greedy);
  EXPECT_EQ(fallback.at("init_from_best"), defaults.init_from_best);
  EXPECT_FALSE(describe_params(evolutionary->params).empty());
}

}  // namespace
}  // namespace tessera::agents

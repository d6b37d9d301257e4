// Agent parameter values as configs write them (agents/param_values.h): a boolean takes the
// YAML words and 1/0 and nothing else, and resolved_params lists every declared parameter with
// the value a run uses, set or defaulted.
#include "agents/param_values.h"

#include <gtest/gtest.h>

namespace tessera::agents {
namespace {

TEST(ParamValues, BooleansTakeTheYamlWordsAndOneOrZero) {
  for (const char* word : {"true", "True", "TRUE", "yes", "Yes", "on", "ON", "1"}) {
    auto v = read_boolean(word);
    ASSERT_TRUE(v.ok()) << word << ": " << v.error().message;
    EXPECT_EQ(*v, 1) << word;
  }
  for (const char* word : {"false", "False", "no", "NO", "off", "Off", "0"}) {
    auto v = read_boolean(word);
    ASSERT_TRUE(v.ok()) << word << ": " << v.error().message;
    EXPECT_EQ(*v, 0) << word;
  }
}

TEST(ParamValues, AnythingElseIsRefusedSayingWhatIsAllowed) {
  EXPECT_EQ(read_boolean("maybe").error().message,
            "expected a boolean (true/false, yes/no, on/off or 1/0), got 'maybe'");
  for (const char* word : {"2", "0.5", "-1", "t", "yess", ""}) EXPECT_FALSE(read_boolean(word).ok()) << word;
}

AgentEntry knobs() {
  using K = AgentParam::Kind;
  return {"knobs", "test entry",
          {{"steps", K::kInteger, 1, 7, "how many"}, {"spread", K::kBoolean, 0, 1, "whether"},
           {"share", K::kProbability, 0, 0.25, "how much"}},
          false, nullptr};
}

TEST(ParamValues, IsBooleanFollowsTheDeclaration) {
  const AgentEntry entry = knobs();
  EXPECT_TRUE(is_boolean(entry, "spread"));
  EXPECT_FALSE(is_boolean(entry, "steps"));
  EXPECT_FALSE(is_boolean(entry, "missing"));
}

TEST(ParamValues, ResolvedParamsListEveryDeclarationInOrderWithItsValue) {
  // Not registered: a test entry in the global registry (its factory null) would break the
  // registry's own tests that build every entry when both run in one process.
  const AgentEntry entry = knobs();
  const std::vector<ParamSetting> all = resolved_params(&entry, {{"share", 0.5}});
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].param.name, "steps");
  EXPECT_EQ(all[0].value, 7) << "a parameter not set has its default";
  EXPECT_EQ(all[1].param.kind, AgentParam::Kind::kBoolean);
  EXPECT_EQ(all[1].value, 1);
  EXPECT_EQ(all[2].value, 0.5) << "a parameter set has the config's value";
  const std::vector<ParamSetting> unknown = resolved_params("no-such-agent", {{"x", 2}});
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].param.name, "x");
  EXPECT_EQ(unknown[0].value, 2);
}

}  // namespace
}  // namespace tessera::agents

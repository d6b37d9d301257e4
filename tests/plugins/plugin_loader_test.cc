// The plug-in loader (agents/plugin_loader.h) on the tiny libraries of test_plugin.cc: a good
// one registers an agent and a cost model that pass conformance; each bad one is refused with
// one line naming its path and registers nothing, not even its entries that were fine.
#include <gtest/gtest.h>

#include <filesystem>

#include "agents/conformance.h"
#include "agents/plugin_loader.h"
#include "env/cost_model_registry.h"

namespace tessera::agents {
namespace {

namespace fs = std::filesystem;

std::string refusal(const char* path) {
  auto loaded = load_plugin(path);
  if (loaded) return "accepted";
  EXPECT_EQ(loaded.error().message.find('\n'), std::string::npos) << "more than one line";
  EXPECT_EQ(loaded.error().message.rfind(std::string("plugin ") + fs::absolute(path).lexically_normal().string() + ": ", 0), 0u)
      << "does not name the path: " << loaded.error().message;
  return loaded.error().message.substr(loaded.error().message.find(".so: ") + 5);
}

TEST(PluginLoader, AGoodPluginRegistersAgentsAndCostModelsThatConform) {
  auto loaded = load_plugin(PLUGIN_GOOD);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->name, "test_plugin");
  EXPECT_EQ(loaded->agents, std::vector<std::string>{"plugin_sampler"});
  EXPECT_EQ(loaded->cost_models, std::vector<std::string>{"plugin_sum"});
  ASSERT_NE(find_agent("plugin_sampler"), nullptr);
  ConformanceReport agent = check_agent_conformance("plugin_sampler", {{"unused", 1}}, AgentContext{});
  EXPECT_TRUE(agent.ok()) << (agent.failures.empty() ? "" : agent.failures[0]);
  auto model = env::make_cost_model("plugin_sum", {}, {});
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_TRUE(check_cost_model_conformance("plugin_sum", **model).ok());
  // Its parameters are checked like a built-in's.
  EXPECT_FALSE(make_agent("plugin_sampler", {{"unused", 0.5}}, {}).ok());
  // Loading the same file again (YAML and --plugin both naming it) is not a clash.
  auto again = load_plugin(PLUGIN_GOOD);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->already_loaded);
}

TEST(PluginLoader, AMissingFileIsRefused) {
  EXPECT_EQ(refusal("/nonexistent/libnothing.so"), "no such file");
}

TEST(PluginLoader, ABareNameIsNotLookedUpOnTheLoaderSearchPath) {
  // libm.so.6 is on the dynamic loader's path, but only the named path may be loaded.
  auto loaded = load_plugin("libm.so.6");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message, "plugin " + (fs::current_path() / "libm.so.6").string() + ": no such file");
}

TEST(PluginLoader, ALibraryWithoutTheEntryPointIsRefused) {
  EXPECT_EQ(refusal(PLUGIN_NO_ENTRY), "no entry point 'tessera_plugin' (define one with TESSERA_PLUGIN, agents/plugin.h)");
}

TEST(PluginLoader, AWrongInterfaceVersionIsRefusedBeforeAnythingIsCalled) {
  EXPECT_EQ(refusal(PLUGIN_WRONG_VERSION),
            "built for plug-in interface version 1000, this Tessera loads version 2 (rebuild it against this Tessera)");
  EXPECT_EQ(find_agent("wrong_version_agent"), nullptr);
}

TEST(PluginLoader, ANameClashRefusesTheWholeLibrary) {
  EXPECT_EQ(refusal(PLUGIN_CLASH), "agent 'random' is already registered");
  EXPECT_EQ(find_agent("clash_first"), nullptr) << "a refused library registered part of itself";
  auto random = make_agent("random", {}, AgentContext{});
  ASSERT_TRUE(random.ok());
  EXPECT_EQ((*random)->name(), "random") << "the built-in agent was replaced";
}

TEST(PluginLoader, AThrowingFactoryIsRefused) {
  EXPECT_EQ(refusal(PLUGIN_THROWING_FACTORY), "agent 'thrower': its factory threw: boom");
  EXPECT_EQ(find_agent("thrower_first"), nullptr);
  EXPECT_EQ(find_agent("thrower"), nullptr);
}

TEST(PluginLoader, AFactoryThatBuildsNothingIsRefused) {
  EXPECT_EQ(refusal(PLUGIN_NULL_FACTORY), "cost model 'null_model': its factory returned nothing");
  EXPECT_EQ(env::find_cost_model("null_model"), nullptr);
}

TEST(PluginLoader, AThrowingRegistrationIsRefused) {
  EXPECT_EQ(refusal(PLUGIN_THROWING_REGISTER), "registering its entries threw: cannot register");
  EXPECT_EQ(find_agent("never_registered"), nullptr);
}

TEST(PluginLoader, ARefusedLibraryCanBeRefusedAgain) {
  // Not remembered as loaded: the second attempt is checked (and refused) again.
  EXPECT_EQ(refusal(PLUGIN_CLASH), "agent 'random' is already registered");
  EXPECT_EQ(refusal(PLUGIN_CLASH), "agent 'random' is already registered");
}

TEST(PluginLoader, ThrowingFactoriesOfRegisteredAgentsBecomeErrors) {
  register_agent({"throws_later", "registered in-process", {}, false,
                  [](const AgentParams&, const AgentContext&) -> std::unique_ptr<SearchAgent> {
                    throw std::runtime_error("later");
                  }});
  auto agent = make_agent("throws_later", {}, {});
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.error().message, "agent 'throws_later': its factory threw: later");
}

}  // namespace
}  // namespace tessera::agents

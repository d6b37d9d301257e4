// The bad-config corpus (tests/reject/configs/): each file states on its first line the
// message it must be refused with ("# expect: <file>:<line>:<column>: <key path>: <what>"),
// and load_config must refuse it with exactly that, before anything is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "agents/registry.h"
#include "experiments/config.h"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> corpus() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(TESSERA_SOURCE_DIR) / "tests/reject/configs")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class BadConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(BadConfig, IsRefusedWithFileLineAndKey) {
  const std::string path = GetParam();
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  const std::string prefix = "# expect: ";
  ASSERT_EQ(first.rfind(prefix, 0), 0u) << path << " has no '# expect:' line";
  const std::string expected = first.substr(prefix.size());
  auto config = tessera::experiments::load_config(path);
  ASSERT_FALSE(config.ok()) << path << " was accepted";
  EXPECT_NE(config.error().message.find(expected), std::string::npos)
      << "got:      " << config.error().message << "\nexpected: " << expected;
  EXPECT_FALSE(fs::exists("/tmp/x")) << "a refused config created its run directory";
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadConfig, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = fs::path(info.param).stem().string();
                           return name;
                         });

TEST(BadConfig, CorpusHasAtLeastTwentyFiles) { EXPECT_GE(corpus().size(), 20u); }

TEST(ConfigOverrides, SetWinsOverTheFileAndIsValidated) {
  const std::string path = std::string(TESSERA_SOURCE_DIR) + "/configs/quickstart.yaml";
  auto config = tessera::experiments::load_config(path, {"budget.trials=7", "tasks.0.params.m=64"});
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->trials, 7);
  EXPECT_EQ(config->tasks[0].params.at("m"), 64);
  auto bad = tessera::experiments::load_config(path, {"budget.trials=none"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("budget.trials: expected an integer, got 'none'"), std::string::npos)
      << bad.error().message;
  auto malformed = tessera::experiments::load_config(path, {"budget.trials"});
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.error().message.find("--set budget.trials: expected key.path=value"), std::string::npos);
}

TEST(ConfigOverrides, ShippedConfigsAreValid) {
  for (const char* name : {"quickstart.yaml", "op_suite.yaml"}) {
    auto config = tessera::experiments::load_config(std::string(TESSERA_SOURCE_DIR) + "/configs/" + name);
    EXPECT_TRUE(config.ok()) << name << ": " << config.error().message;
  }
}

// The run directory keeps the resolved config as config.yaml; it must load back to the same.
TEST(ConfigOverrides, ResolvedConfigLoadsBackUnchanged) {
  const std::string source = ::testing::TempDir() + "/evolutionary_config.yaml";
  std::ofstream(source) << "run_dir: /tmp/x\ntasks: [{op: matmul, params: {m: 8, n: 8, k: 8}}]\n"
                           "search: {agent: evolutionary}\n";
  auto config = tessera::experiments::load_config(
      source, {"search.params.eps_greedy=0.1", "proxy.hidden=[64, 32]", "proxy.weights=w.pt",
               "measure.back_to_back_warmup_ms=5", "measure.compile_while_timing=false", "proxy.rows_per_train=4096"});
  ASSERT_TRUE(config.ok()) << config.error().message;
  const std::string path = ::testing::TempDir() + "/resolved_config.yaml";
  std::ofstream(path) << tessera::experiments::resolved_config(*config).dump(2);
  auto again = tessera::experiments::load_config(path);
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto a = tessera::experiments::resolved_config(*config), b = tessera::experiments::resolved_config(*again);
  EXPECT_EQ(a, b);
  EXPECT_EQ(b["proxy"]["hidden"], nlohmann::json::array({64, 32}));
  EXPECT_EQ(b["search"]["params"]["eps_greedy"], 0.1);
  EXPECT_EQ(b["proxy"]["weights"], "w.pt");
  EXPECT_EQ(b["measure"]["back_to_back_warmup_ms"], 5.0);  // fails if the key is dropped on the way out
  EXPECT_EQ(b["measure"]["compile_while_timing"], false);
  EXPECT_EQ(b["proxy"]["rows_per_train"], 4096);  // fails if the key is dropped on the way out
}

// Boolean agent parameters take the words YAML writes for them (harl's `spread` is one); the
// value reaches the run's parameters as 1 or 0, and anything else is refused naming the field.
TEST(AgentParams, BooleansTakeYamlWords) {
  const std::string source = ::testing::TempDir() + "/harl_spread_config.yaml";
  auto load_with = [&](const std::string& spread) {
    std::ofstream(source) << "run_dir: /tmp/x\ntasks: [{op: matmul, params: {m: 8, n: 8, k: 8}}]\n"
                             "search:\n  agent: harl\n  params:\n    spread: " << spread << "\n";
    return tessera::experiments::load_config(source);
  };
  for (const auto& [word, value] : std::vector<std::pair<std::string, double>>{
           {"true", 1}, {"false", 0}, {"yes", 1}, {"no", 0}, {"on", 1}, {"off", 0}, {"True", 1}, {"1", 1}, {"0", 0}}) {
    auto config = load_with(word);
    ASSERT_TRUE(config.ok()) << "spread: " << word << ": " << config.error().message;
    EXPECT_EQ(config->search.params.at("spread"), value) << "spread: " << word;
  }
  for (const std::string word : {"maybe", "2", "0.5", "[1]"}) {
    auto config = load_with(word);
    ASSERT_FALSE(config.ok()) << "spread: " << word << " was accepted";
    EXPECT_NE(config.error().message.find("harl_spread_config.yaml:6:13: search.params.spread: expected a boolean"),
              std::string::npos)
        << config.error().message;
  }
  ASSERT_TRUE(load_with("true").ok());
  auto overridden = tessera::experiments::load_config(source, {"search.params.spread=off"});
  ASSERT_TRUE(overridden.ok()) << overridden.error().message;
  EXPECT_EQ(overridden->search.params.at("spread"), 0);
}

// The run directory's config.yaml lists every parameter the agent declares, set or not, with
// the value the run used (booleans as true/false), and still loads back to the same.
TEST(AgentParams, ResolvedConfigListsEveryParameter) {
  const std::string source = ::testing::TempDir() + "/harl_resolved_config.yaml";
  std::ofstream(source) << "run_dir: /tmp/x\ntasks: [{op: matmul, params: {m: 8, n: 8, k: 8}}]\n"
                           "search: {agent: harl, params: {trajectories: 8, spread: false}}\n";
  auto config = tessera::experiments::load_config(source);
  ASSERT_TRUE(config.ok()) << config.error().message;
  const nlohmann::json resolved = tessera::experiments::resolved_config(*config);
  const nlohmann::json& params = resolved["search"]["params"];
  const tessera::agents::AgentEntry* harl = tessera::agents::find_agent("harl");
  ASSERT_NE(harl, nullptr);
  EXPECT_EQ(params.size(), harl->params.size()) << params.dump();
  for (const tessera::agents::AgentParam& p : harl->params) {
    ASSERT_TRUE(params.contains(p.name)) << p.name << " is missing from " << params.dump();
    if (p.name == "trajectories") EXPECT_EQ(params[p.name], 8);
    else if (p.name == "spread") EXPECT_EQ(params[p.name], false);
    else if (p.kind == tessera::agents::AgentParam::Kind::kBoolean) EXPECT_EQ(params[p.name], p.fallback != 0);
    else EXPECT_EQ(params[p.name].get<double>(), p.fallback) << p.name;
  }
  const std::string path = ::testing::TempDir() + "/harl_resolved_again.yaml";
  std::ofstream(path) << resolved.dump(2);
  auto again = tessera::experiments::load_config(path);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(tessera::experiments::resolved_config(*again), resolved);
}

}  // namespace

// The conformance command (see conformance.h).
#include "experiments/conformance.h"

#include <cstdio>

#include "agents/conformance.h"
#include "agents/plugin_loader.h"
#include "env/cost_model_registry.h"
#include "experiments/search_setup.h"

namespace tessera::experiments {
namespace {

void print(const agents::ConformanceReport& report) {
  if (report.ok() && report.pairwise_accuracy >= 0) {
    std::printf("%s: ok (trained on %d simulated trials; held-out pairwise accuracy %.2f, 0.5 is chance)\n",
                report.subject.c_str(), report.trials, report.pairwise_accuracy);
    return;
  }
  if (report.ok()) {
    std::printf("%s: ok (%d batches, %d trials, best %.1f GFLOP/s on the simulator)\n", report.subject.c_str(),
                report.batches, report.trials, report.best_gflops);
    return;
  }
  std::printf("%s: FAILED\n", report.subject.c_str());
  for (const std::string& f : report.failures) std::printf("  %s\n", f.c_str());
}

}  // namespace

int run_conformance(const std::vector<std::string>& args) {
  std::vector<std::string> plugins, agent_names, model_names;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "--plugin" && has_value) plugins.push_back(args[++i]);
    else if (args[i] == "--agent" && has_value) agent_names.push_back(args[++i]);
    else if (args[i] == "--model" && has_value) model_names.push_back(args[++i]);
    else {
      std::fprintf(stderr, "tessera conformance: unexpected argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  auto loaded = load_plugins(plugins);
  if (!loaded) {
    std::fprintf(stderr, "tessera conformance: %s\n", loaded.error().message.c_str());
    return 2;
  }
  // Without names: what the plug-ins registered, or everything when none was given.
  if (agent_names.empty() && model_names.empty()) {
    if (plugins.empty()) {
      agent_names = agents::agent_names();
      model_names = env::cost_model_names();
    }
    for (const agents::LoadedPlugin& p : agents::loaded_plugins()) {
      agent_names.insert(agent_names.end(), p.agents.begin(), p.agents.end());
      model_names.insert(model_names.end(), p.cost_models.begin(), p.cost_models.end());
    }
  }
  int failed = 0;
  for (const std::string& name : model_names) {
    ProxySpec spec;
    spec.model = name;
    auto model = make_cost_model(spec, 1);
    agents::ConformanceReport report;
    if (!model) {
      report.subject = "cost model '" + name + "'";
      report.failures.push_back(model.error().message);
    } else {
      report = agents::check_cost_model_conformance("cost model '" + name + "'", **model);
    }
    print(report);
    failed += report.ok() ? 0 : 1;
  }
  for (const std::string& name : agent_names) {
    ProxySpec spec;
    spec.min_samples = 8;  // the learned proxy ranks after the first batch of the short run
    auto model = make_cost_model(spec, 1);
    if (!model) {
      std::fprintf(stderr, "tessera conformance: %s\n", model.error().message.c_str());
      return 1;
    }
    agents::AgentContext context{5, *model, ""};
    agents::ConformanceReport report = agents::check_agent_conformance(name, {}, context);
    print(report);
    failed += report.ok() ? 0 : 1;
  }
  if (agent_names.empty() && model_names.empty()) {
    std::printf("nothing to check: the plug-ins register no agent and no cost model\n");
    return 1;
  }
  std::printf("%d checked, %d failed\n", static_cast<int>(agent_names.size() + model_names.size()), failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace tessera::experiments

// bench plugin_suite: the example plug-in cost models against the built-in proxy. On a few
// op-suite tasks (TESSERA_SUITE_TASKS; default resnet50_conv4_3x3, mobilenetv2_pw_expand,
// bert_attention_out) the evolutionary agent tunes with each cost model — `mlp` (built in,
// LibTorch), `tlp` (examples/tlp_cost_model) and `pruner` (examples/pruner_screen, screening
// for mlp) — at the same trials (TESSERA_SUITE_TRIALS, 128), seed and measurement settings,
// one JSON line per task and model. The plug-ins come from $TESSERA_PLUGINS (colon-separated
// paths; bench/run.sh builds examples/ against an installed Tessera and sets it).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "agents/search_loop.h"
#include "bench/cases.h"
#include "experiments/config.h"
#include "experiments/search_setup.h"

namespace tessera::bench {
namespace {

double round1(double v) { return std::round(v * 10) / 10; }

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

nlohmann::json tune_with(const experiments::TaskSpec& spec, const experiments::TuneConfig& config,
                         const std::string& model_name, int trials) {
  nlohmann::json line = {{"task", spec.name}, {"model", model_name}, {"agent", "evolutionary"}};
  auto failed = [&](const std::string& message) {
    line["error"] = message;
    return line;
  };
  auto dag = experiments::build_task(spec);
  if (!dag) return failed(dag.error().message);
  env::TaskOptions options;
  options.measure = config.measure;
  options.measure.threads = 1;
  options.seed = config.seed;
  auto task = env::TuningTask::create(*dag, options);
  if (!task) return failed(task.error().message);
  experiments::ProxySpec proxy;
  proxy.model = model_name;
  auto model = experiments::make_cost_model(proxy, config.seed);
  if (!model) return failed(model.error().message);
  experiments::SearchSpec search{"evolutionary", {{"population", 512}, {"generations", 3}}};
  auto agent = experiments::make_agent(search, config.seed, *model);
  if (!agent) return failed(agent.error().message);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  double at64 = 0;
  nlohmann::json curve = nlohmann::json::array();
  agents::StopRule stop;
  stop.trials = trials;
  agents::run_search_loop(**agent, **task, stop, {.batch_size = 32}, [&](const agents::LoopProgress& p) {
    if (p.trials <= 64) at64 = (*task)->best_gflops();
    curve.push_back({p.trials, round1(p.elapsed_seconds), round1((*task)->best_gflops())});
    std::fprintf(stderr, "[plugin_suite %s %s] %d/%d trials, best %.1f GFLOP/s\n", spec.name.c_str(),
                 model_name.c_str(), p.trials, trials, (*task)->best_gflops());
    return true;
  });
  line.update({{"workload", dag->summary()}, {"trials", (*task)->trials()}, {"best_gflops", round1((*task)->best_gflops())},
               {"best_gflops_at_64", round1(at64)}, {"search_seconds", round1(std::chrono::duration<double>(Clock::now() - start).count())},
               {"curve", curve}, {"threads", 1}, {"seed", config.seed}});
  return line;
}

}  // namespace

nlohmann::json run_plugin_suite(int trials) {
  const char* plugins = std::getenv("TESSERA_PLUGINS");
  if (!plugins) return error_json("plugin_suite: set TESSERA_PLUGINS (bench/run.sh plugin_suite builds the examples and sets it)");
  if (auto loaded = experiments::load_plugins(split(plugins, ':')); !loaded) return error_json(loaded.error().message);
  auto config = experiments::load_config(TESSERA_SOURCE_DIR "/configs/op_suite.yaml");
  if (!config) return error_json(config.error().message);
  const char* only = std::getenv("TESSERA_SUITE_TASKS");
  const auto names = split(only ? only : "resnet50_conv4_3x3,mobilenetv2_pw_expand,bert_attention_out", ',');
  nlohmann::json lines = nlohmann::json::array();
  for (const std::string& name : names) {
    for (const experiments::TaskSpec& spec : config->tasks) {
      if (spec.name != name) continue;
      for (const char* model : {"mlp", "tlp", "pruner"}) lines.push_back(tune_with(spec, *config, model, trials));
    }
  }
  return lines;
}

}  // namespace tessera::bench

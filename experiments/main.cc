// The `tessera` command-line tool: parses the command line and dispatches to its commands.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/config.h"
#include "experiments/conformance.h"
#include "experiments/inspect.h"
#include "experiments/list_agents.h"
#include "experiments/proxy_eval.h"
#include "experiments/quickstart.h"
#include "experiments/run_network.h"
#include "experiments/search_setup.h"
#include "experiments/tune.h"
#include "experiments/tune_mpi.h"

namespace {

struct Command {
  const char* name;
  const char* usage;
  const char* help;
};

const Command kCommands[] = {
    {"tune", "tessera tune CONFIG|MODEL.onnx [--set key.path=value ...] [--key.path=value ...] [--from RUN_DIR ...] [--plugin LIB.so ...]",
     "Run the tuning experiment CONFIG describes (see configs/README.md). Progress goes to stderr;\n"
     "the run directory gets config.yaml, records.jsonl, curve.csv, curve.svg, summary.json,\n"
     "run.log, proxy.pt (the learned proxy), agent_state/ (harl's PPO agents) and retimed.jsonl\n"
     "(the fastest few of each task timed again at the end; tessera run --records RUN_DIR ranks\n"
     "a schedule by all its timings). Rerunning with\n"
     "the same run directory resumes from its records and agent state. --set overrides a\n"
     "config value (it wins over the file, which wins over the defaults), e.g.\n"
     "--set budget.trials=50 --set tasks.0.params.m=256.\n"
     "MODEL.onnx tunes a whole network: its fused tasks share the budget, an allocator (harl,\n"
     "gradient, round_robin: --set allocator=...) picks the task of each round, and the network\n"
     "is run with the tuned kernels at the end (defaults: runs/<model>, harl's search per task,\n"
     "2,000 trials or 1,200 s: --set budget.seconds=600). Every budget.network_every_s (300) of\n"
     "tuning the network is also run with the best kernels so far, its latency beside the estimate\n"
     "in curve.csv and curve.svg; rounds.jsonl logs the rounds, which a resumed run replays into\n"
     "the allocator. --from RUN_DIR (repeatable; YAML transfer:) measures first, for\n"
     "each task, the fastest schedules other runs on this machine found for it or for similar\n"
     "tasks; --budget.trials=0 then is pure transfer. --key.path=value is --set key.path=value.\n"
     "--plugin loads a plug-in library (agents and cost models, docs/plugins.md) before the\n"
     "config is read, as the config's own `plugins:` list does."},
    {"validate", "tessera validate CONFIG [--set key.path=value ...] [--plugin LIB.so ...]",
     "Check CONFIG without running it: prints the resolved config, or the first error with its\n"
     "file, line, column and key. Writes nothing."},
    {"best", "tessera best RUN_DIR",
     "Show the best schedule found for each task of a run: time, sketch, knobs, steps and loop nest."},
    {"replay", "tessera replay RUN_DIR",
     "Recompile the best schedule of each task, check it against the reference again and re-measure\n"
     "it; exits non-zero if any fails."},
    {"inspect", "tessera inspect MODEL.onnx [--layout nhwc|nchw] [--winograd on|off] [--dim NAME=VALUE ...]",
     "Import an ONNX model, fold its constants (BatchNormalization into convs, shape arithmetic)\n"
     "and fuse it into tasks; print each task's fused ops, output shape, FLOPs and weight (its\n"
     "occurrences). --dim gives a value to a symbolic input dimension, e.g. --dim batch=1.\n"
     "--winograd off keeps every conv direct (on: NHWC 3x3 stride-1 convs on maps of at least\n"
     "32 2x2 blocks compute by Winograd F(2x2, 3x3), graph/winograd.h)."},
    {"run",
     "tessera run MODEL.onnx [--records DIR_OR_FILE ...] [--layout nhwc|nchw] [--winograd on|off] [--threads N] [--input IN.bin] [--output OUT.bin] [--runs N] [--seed N] [--json] [--no-check] [--dim NAME=VALUE ...]",
     "Run one inference of an ONNX model: import, fold, fuse, compile every task (its fastest\n"
     "correct schedule recorded on this machine in --records, else a default schedule; each\n"
     "kernel checked against the reference at load), check the outputs against the\n"
     "double-precision graph interpreter (max abs error <= 1e-3 x the output's max |y|), then\n"
     "print the latency (median of >= 20 runs after warm-up, or --runs) and a per-task time\n"
     "table. Inputs: raw little-endian float32 from --input (all graph inputs, in order), else\n"
     "uniform [-1, 1) from --seed (1). --output writes the first output as raw float32. --json\n"
     "ends stdout with one JSON line (the table then goes to stderr). --layout and --winograd\n"
     "default to what the records' run tuned with (a run from before Winograd convs: off).\n"
     "Several --records compare networks: each is built and checked, and all are timed in one\n"
     "process, an inference of each in turn (the order rotated every round), so that the\n"
     "machine's drift falls on all alike; each gets its latency and the median of its per-round\n"
     "time over the first's (\"paired ratio\"; JSON: \"compared\"), and the table its ms per task."},
    {"proxy-eval",
     "tessera proxy-eval RECORDS... [--config FILE] [--holdout 0.2] [--top-k 10] [--epochs 200] [--min-gap 0] [--seed 1] [--save FILE]",
     "Train the reward proxy on part of the records and report its pairwise ranking accuracy and\n"
     "top-k recall on the held-out rest, per task and overall. Tasks come from config.yaml beside\n"
     "the first records file or from --config. --min-gap 0.05 scores only pairs more than 5% apart\n"
     "(closer ones are ordered by measurement noise). --save writes the weights (for proxy.weights)."},
    {"conformance", "tessera conformance [--plugin LIB.so ...] [--agent NAME ...] [--model NAME ...]",
     "Run the conformance checks built-in agents pass (agents/conformance.h) on the agents and\n"
     "cost models the plug-ins register (without --plugin: on every registered one), or only on\n"
     "those named. Each agent tunes a small matmul on the replay simulator; each cost model is\n"
     "trained on simulated measurements and must score every candidate. Exits non-zero if any\n"
     "fails or a plug-in is refused."},
    {"agents", "tessera agents [--plugin LIB.so ...]",
     "List the registered agents (built-in, learned and those the plug-ins add), each with its\n"
     "parameters as configs set them under search.params: kind, lower bound, default and what it\n"
     "does. Every parameter is declared once beside the options it fills (agents/option_params.h)."},
    {"quickstart", "tessera quickstart [--m N] [--n N] [--k N] [--threads N] [--print-ir]",
     "JIT-compile the hand-scheduled matmul (default 1024^3), check it against the reference\n"
     "evaluator and print its GFLOP/s."},
};

void print_help() {
  std::printf("usage: tessera <command> [options]   (tessera <command> --help for more)\n\ncommands:\n");
  for (const Command& c : kCommands) std::printf("  %s\n", c.usage);
}

// CONFIG followed by --set key=value pairs and --plugin paths.
bool parse_config_args(const std::vector<std::string>& args, std::string* config,
                       std::vector<std::string>* overrides, std::vector<std::string>* plugins,
                       const char* command) {
  std::vector<std::string> froms;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin" && i + 1 < args.size()) {
      plugins->push_back(args[++i]);
    } else if (args[i] == "--set" && i + 1 < args.size()) {
      overrides->push_back(args[++i]);
    } else if (args[i].rfind("--set=", 0) == 0) {
      overrides->push_back(args[i].substr(6));
    } else if (args[i] == "--from" && i + 1 < args.size()) {
      froms.push_back(args[++i]);
    } else if (args[i].rfind("--", 0) == 0 && args[i].find('=') != std::string::npos && args[i].find('.') < args[i].find('=')) {
      overrides->push_back(args[i].substr(2));  // --budget.trials=0 is --set budget.trials=0
    } else if (config->empty() && args[i].rfind("--", 0) != 0) {
      *config = args[i];
    } else {
      std::fprintf(stderr, "tessera %s: unexpected argument '%s'\n", command, args[i].c_str());
      return false;
    }
  }
  if (!froms.empty()) overrides->push_back("transfer=" + nlohmann::json(froms).dump());  // JSON is YAML
  if (config->empty()) std::fprintf(stderr, "tessera %s: missing CONFIG\n", command);
  return !config->empty();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::experiments;
  release_mpi_launch_binding();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    print_help();
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  const Command* known = nullptr;
  for (const Command& c : kCommands) {
    if (command == c.name) known = &c;
  }
  if (!known) {
    std::fprintf(stderr, "tessera: unknown command '%s' (try 'tessera help')\n", command.c_str());
    return 2;
  }
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("usage: %s\n\n%s\n", known->usage, known->help);
    return 0;
  }
  if (command == "quickstart") return run_quickstart(args);
  if (command == "proxy-eval") return run_proxy_eval(args);
  if (command == "inspect") return run_inspect(args);
  if (command == "run") return run_network(args);
  if (command == "conformance") return run_conformance(args);
  if (command == "agents") return run_list_agents(args);
  if (command == "best" || command == "replay") {
    if (args.size() != 1) {
      std::fprintf(stderr, "usage: %s\n", known->usage);
      return 2;
    }
    return command == "best" ? run_best(args[0]) : run_replay(args[0]);
  }
  std::string path;
  std::vector<std::string> overrides, plugins;
  if (!parse_config_args(args, &path, &overrides, &plugins, command.c_str())) return 2;
  auto loaded = load_plugins(plugins);
  if (!loaded) {  // refused: one line, nothing runs
    std::fprintf(stderr, "tessera %s: %s\n", command.c_str(), loaded.error().message.c_str());
    return 2;
  }
  const bool model = path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
  auto config = model ? load_network_config(path, overrides) : load_config(path, overrides);
  if (!config) {
    std::fprintf(stderr, "%s\n", config.error().message.c_str());
    return 2;
  }
  // --plugin libraries join the config's list, so config.yaml reloads them on resume.
  for (const std::string& lib : *loaded) {
    if (std::find(config->plugins.begin(), config->plugins.end(), lib) == config->plugins.end()) {
      config->plugins.push_back(lib);
    }
  }
  if (command == "validate") {
    std::printf("%s: ok\n%s\n", path.c_str(), resolved_config(*config).dump(2).c_str());
    return 0;
  }
  if (launched_as_mpi_job()) return run_tune_mpi(*config, &argc, &argv);  // mpirun -np N tessera tune
  return run_tune(*config);
}

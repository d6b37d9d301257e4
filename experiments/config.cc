// Strict YAML config parsing with file:line:column errors (see config.h).
#include "experiments/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "agents/param_values.h"
#include "agents/plugin_loader.h"
#include "agents/registry.h"
#include "agents/task_allocator.h"
#include "env/cost_model_registry.h"
#include "experiments/search_setup.h"
#include "graph/prepare.h"
#include "runtime/cuda/nvrtc.h"
#include "schedule/ops.h"

namespace tessera::experiments {
namespace {

std::string join(const std::vector<std::string>& v) {
  if (v.empty()) return "no keys";
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Reads one YAML tree, remembering where each error is.
class Reader {
 public:
  Reader(std::string file, std::vector<std::string> overrides)
      : file_(std::move(file)), overrides_(std::move(overrides)) {}

  Error error(const YAML::Node& at, const std::string& path, const std::string& what) const {
    const YAML::Mark mark = at.Mark();
    std::string where = mark.is_null() || mark.line < 0
                            ? file_ + " with --set " + join(overrides_)
                            : file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    return make_error(where + ": " + path + ": " + what);
  }

  Result<void> only_keys(const YAML::Node& map, const std::string& path,
                         const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) return error(map, path, "expected a mapping");
    for (const auto& kv : map) {
      std::string key = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        return error(kv.first, path.empty() ? key : path + "." + key,
                     "unknown key '" + key + "' (expected " + join(allowed) + ")");
      }
    }
    return {};
  }

  Result<int64_t> integer(const YAML::Node& n, const std::string& path, int64_t min) const {
    int64_t v;
    if (!n.IsScalar() || !YAML::convert<int64_t>::decode(n, v)) {
      return error(n, path, "expected an integer, got " + describe(n));
    }
    if (v < min) return error(n, path, "must be at least " + std::to_string(min) + ", got " + std::to_string(v));
    return v;
  }

  Result<double> number(const YAML::Node& n, const std::string& path, double min) const {
    double v;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, v)) {
      return error(n, path, "expected a number, got " + describe(n));
    }
    if (!(v >= min)) return error(n, path, "must be at least " + std::to_string(min) + ", got " + n.Scalar());
    return v;
  }

  Result<bool> boolean(const YAML::Node& n, const std::string& path) const {
    bool v;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) {
      return error(n, path, "expected true or false, got " + describe(n));
    }
    return v;
  }

  Result<std::string> text(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar() || n.Scalar().empty()) return error(n, path, "expected a string, got " + describe(n));
    return n.Scalar();
  }

 private:
  static std::string describe(const YAML::Node& n) {
    if (n.IsMap()) return "a mapping";
    if (n.IsSequence()) return "a list";
    if (n.IsNull()) return "nothing";
    return "'" + n.Scalar() + "'";
  }
  std::string file_;
  std::vector<std::string> overrides_;
};

#define TRY_ASSIGN(target, expr)          \
  do {                                    \
    auto result_ = (expr);                \
    if (!result_) return result_.error(); \
    target = *result_;                    \
  } while (0)

Result<void> apply_override(YAML::Node root, const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return make_error("--set " + text + ": expected key.path=value");
  }
  std::string path = text.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    return make_error("--set " + text + ": the value is not valid YAML: " + e.msg);
  }
  std::vector<std::string> keys;
  for (size_t start = 0; start <= path.size();) {
    size_t dot = path.find('.', start);
    keys.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::vector<YAML::Node> chain{root};
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    YAML::Node parent = chain.back();
    if (parent.IsSequence()) {
      size_t index = std::strtoul(keys[i].c_str(), nullptr, 10);
      if (index >= parent.size()) return make_error("--set " + text + ": no element " + keys[i] + " in that list");
      chain.push_back(parent[index]);
    } else {
      chain.push_back(parent[keys[i]]);
    }
  }
  chain.back()[keys.back()] = value;
  return {};
}

}  // namespace

Result<schedule::ComputeDAG> build_task(const TaskSpec& spec) { return schedule::make_op(spec.op, spec.params); }

namespace {
Result<TuneConfig> parse_config(YAML::Node root, const std::string& path, const std::vector<std::string>& overrides);
}  // namespace

Result<TuneConfig> load_config(const std::string& path, const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    std::ifstream in(path);
    if (!in) return make_error(path + ": cannot read the config file");
    root = YAML::Load(in);
  } catch (const YAML::ParserException& e) {
    return make_error(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
  }
  return parse_config(root, path, overrides);
}

std::string run_directory_of(const std::string& records) {
  namespace fs = std::filesystem;
  std::error_code ec;
  return fs::is_directory(records, ec) ? records : fs::path(records).parent_path().string();
}

std::string checks_dir_of(const std::string& records) {
  return records.empty() ? "" : (std::filesystem::path(run_directory_of(records)) / "checks").string();
}

namespace {

// The config.yaml beside `run` (written as JSON) when it is a network run's; nothing otherwise.
std::optional<nlohmann::json> network_config_of(const std::string& run) {
  std::ifstream file(std::filesystem::path(run_directory_of(run)) / "config.yaml");
  if (!file) return std::nullopt;
  nlohmann::json config = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object() || !config.contains("network")) return std::nullopt;
  return config;
}

}  // namespace

std::optional<std::string> layout_of_run(const std::string& run) {
  auto config = network_config_of(run);
  if (!config) return std::nullopt;
  return config->contains("layout") && (*config)["layout"].is_string() ? (*config)["layout"].get<std::string>() : "nchw";
}

std::optional<bool> winograd_of_run(const std::string& run) {
  auto config = network_config_of(run);
  if (!config) return std::nullopt;
  return config->contains("winograd") && (*config)["winograd"].is_boolean() && (*config)["winograd"].get<bool>();
}

Result<TuneConfig> load_network_config(const std::string& model, const std::vector<std::string>& overrides) {
  YAML::Node root;
  root["run_dir"] = "runs/" + std::filesystem::path(model).stem().string();
  root["network"] = model;
  root["allocator"] = "harl";
  // harl's candidate sources below the allocator, the whole hierarchy: its sketch quotas and
  // growing fresh share keep a task's search from settling in one basin, where evolutionary
  // search alone stalled for tens of rounds on some of ResNet-50's convs (bench/NOTES.md, stop 89).
  root["search"]["agent"] = "harl";
  root["budget"]["trials"] = 2000;
  root["budget"]["seconds"] = 1200;
  return parse_config(root, model, overrides);
}

namespace {

Result<TuneConfig> parse_config(YAML::Node root, const std::string& path, const std::vector<std::string>& overrides) {
  register_all_agents();  // agent names and parameters come from the registry
  if (!root.IsMap()) return make_error(path + ": the config must be a mapping of keys");
  for (const std::string& o : overrides) {
    if (auto r = apply_override(root, o); !r) return r.error();
  }
  Reader r(path, overrides);
  if (auto ok = r.only_keys(root, "", {"run_dir", "seed", "plugins", "target", "tasks", "network", "layout", "winograd", "allocator", "transfer", "search", "proxy", "budget", "measure", "mpi"}); !ok) {
    return ok.error();
  }
  TuneConfig c;
  c.source = path;
  if (!root["run_dir"]) return r.error(root, "run_dir", "missing (expected a directory for the run)");
  TRY_ASSIGN(c.run_dir, r.text(root["run_dir"], "run_dir"));
  if (root["seed"]) TRY_ASSIGN(c.seed, r.integer(root["seed"], "seed", 0));

  // Plug-ins first: the agents and cost models they add are named further down.
  if (const YAML::Node pl = root["plugins"]) {
    if (!pl.IsSequence()) return r.error(pl, "plugins", "expected a list of plug-in library paths");
    for (size_t i = 0; i < pl.size(); ++i) {
      const std::string at = "plugins." + std::to_string(i);
      std::string lib;
      TRY_ASSIGN(lib, r.text(pl[i], at));
      auto loaded = agents::load_plugin(lib);
      if (!loaded) return r.error(pl[i], at, loaded.error().message);
      c.plugins.push_back(loaded->path);
    }
  }

  if (const YAML::Node t = root["target"]) {
    if (auto ok = r.only_keys(t, "target", {"kind", "threads", "arch"}); !ok) return ok.error();
    if (t["kind"]) {
      TRY_ASSIGN(c.target_kind, r.text(t["kind"], "target.kind"));
      if (c.target_kind != "cpu" && c.target_kind != "cuda") {
        return r.error(t["kind"], "target.kind", "unknown target '" + c.target_kind + "' (expected cpu or cuda)");
      }
    }
    if (t["arch"]) {
      TRY_ASSIGN(c.cuda_arch, r.text(t["arch"], "target.arch"));
      if (c.target_kind != "cuda") return r.error(t["arch"], "target.arch", "arch is for kind cuda only");
      if (!runtime::cuda::is_supported_arch(c.cuda_arch)) {
        std::string archs;
        for (const auto& a : runtime::cuda::supported_archs()) archs += (archs.empty() ? "" : ", ") + a;
        return r.error(t["arch"], "target.arch", "unknown CUDA architecture '" + c.cuda_arch + "' (expected " + archs + ")");
      }
    }
    if (t["threads"]) TRY_ASSIGN(c.threads, r.integer(t["threads"], "target.threads", 1));
  }

  if (const YAML::Node a = root["allocator"]) {
    TRY_ASSIGN(c.allocator, r.text(a, "allocator"));
    auto names = agents::allocator_names();
    if (std::find(names.begin(), names.end(), c.allocator) == names.end()) {
      return r.error(a, "allocator", "unknown allocator '" + c.allocator + "' (expected " + join(names) + ")");
    }
  }
  if (const YAML::Node n = root["network"]) {
    TRY_ASSIGN(c.network, r.text(n, "network"));
    if (root["tasks"]) return r.error(root["tasks"], "tasks", "a config tunes either tasks or a network, not both");
    if (!std::filesystem::is_regular_file(c.network)) {
      return r.error(n, "network", "no such file '" + c.network + "' (expected an ONNX model)");
    }
    c.network = std::filesystem::absolute(c.network).string();  // config.yaml replays from anywhere
  }
  if (c.target_kind == "cuda") c.layout = "nchw";
  if (const YAML::Node l = root["layout"]) {
    TRY_ASSIGN(c.layout, r.text(l, "layout"));
    if (auto parsed = graph::parse_layout(c.layout); !parsed) return r.error(l, "layout", parsed.error().message);
    if (c.network.empty()) return r.error(l, "layout", "layout is for network runs (a config with network:)");
  }
  if (const YAML::Node w = root["winograd"]) {
    TRY_ASSIGN(c.winograd, r.boolean(w, "winograd"));
    if (c.network.empty()) return r.error(w, "winograd", "winograd is for network runs (a config with network:)");
  }
  if (const YAML::Node tr = root["transfer"]) {
    if (c.network.empty()) return r.error(tr, "transfer", "transfer is for network runs (a config with network:)");
    if (!tr.IsSequence()) return r.error(tr, "transfer", "expected a list of run directories or records files");
    for (size_t i = 0; i < tr.size(); ++i) {
      const std::string at = "transfer." + std::to_string(i);
      std::string from;
      TRY_ASSIGN(from, r.text(tr[i], at));
      const std::filesystem::path records = std::filesystem::is_directory(from) ? std::filesystem::path(from) / "records.jsonl"
                                                                                : std::filesystem::path(from);
      if (!std::filesystem::is_regular_file(records)) {
        return r.error(tr[i], at, "no records at '" + records.string() + "' (expected a run directory or a records file)");
      }
      c.transfer.push_back(std::filesystem::absolute(from).string());
    }
  }
  const YAML::Node tasks = root["tasks"];
  if (!tasks && c.network.empty()) return r.error(root, "tasks", "missing (expected a list of tasks, each with op and params, or a network)");
  if (tasks && (!tasks.IsSequence() || tasks.size() == 0)) return r.error(tasks, "tasks", "expected a non-empty list of tasks");
  std::set<std::string> names;
  for (size_t i = 0; tasks && i < tasks.size(); ++i) {
    const YAML::Node t = tasks[i];
    const std::string at = "tasks." + std::to_string(i);
    if (auto ok = r.only_keys(t, at, {"name", "op", "params"}); !ok) return ok.error();
    TaskSpec spec;
    if (!t["op"]) return r.error(t, at + ".op", "missing (expected an op name)");
    TRY_ASSIGN(spec.op, r.text(t["op"], at + ".op"));
    auto known = schedule::op_names();
    if (std::find(known.begin(), known.end(), spec.op) == known.end()) {
      return r.error(t["op"], at + ".op", "unknown op '" + spec.op + "' (expected " + join(known) + ")");
    }
    if (const YAML::Node p = t["params"]) {
      if (!p.IsMap()) return r.error(p, at + ".params", "expected a mapping of integer parameters");
      for (const auto& kv : p) {
        int64_t v;
        TRY_ASSIGN(v, r.integer(kv.second, at + ".params." + kv.first.Scalar(), 0));
        spec.params[kv.first.Scalar()] = v;
      }
    }
    auto dag = build_task(spec);
    if (!dag) return r.error(t["params"] ? t["params"] : t, at + ".params", dag.error().message);
    spec.name = dag->summary();
    if (t["name"]) TRY_ASSIGN(spec.name, r.text(t["name"], at + ".name"));
    if (!names.insert(spec.name).second) return r.error(t, at, "a second task named '" + spec.name + "'");
    c.tasks.push_back(std::move(spec));
  }

  if (const YAML::Node s = root["search"]) {
    if (auto ok = r.only_keys(s, "search", {"agent", "params"}); !ok) return ok.error();
    if (s["agent"]) TRY_ASSIGN(c.search.agent, r.text(s["agent"], "search.agent"));
    const agents::AgentEntry* entry = agents::find_agent(c.search.agent);
    if (!entry) {
      return r.error(s["agent"], "search.agent",
                     "unknown agent '" + c.search.agent + "' (expected " + join(agents::agent_names()) + ")");
    }
    std::vector<std::string> allowed;
    for (const agents::AgentParam& p : entry->params) allowed.push_back(p.name);
    if (const YAML::Node p = s["params"]) {
      if (auto ok = r.only_keys(p, "search.params", allowed); !ok) return ok.error();
      for (const auto& kv : p) {
        const std::string key = kv.first.Scalar(), at = "search.params." + key;
        double v;
        if (agents::is_boolean(*entry, key)) {  // true/false, yes/no, on/off or 1/0
          auto flag = agents::read_boolean(kv.second.IsScalar() ? kv.second.Scalar() : "");
          if (!flag) return r.error(kv.second, at, flag.error().message);
          v = *flag;
        } else {
          TRY_ASSIGN(v, r.number(kv.second, at, -1e300));
        }
        auto checked = agents::check_param(*entry, key, v);
        if (!checked) return r.error(kv.second, at, checked.error().message);
        c.search.params[key] = *checked;
      }
    }
  }

  if (const YAML::Node p = root["proxy"]) {
    if (auto ok = r.only_keys(p, "proxy", {"model", "params", "hidden", "epochs", "rows_per_train", "min_samples", "learning_rate", "pair_noise", "weights"}); !ok) {
      return ok.error();
    }
    if (p["model"]) TRY_ASSIGN(c.proxy.model, r.text(p["model"], "proxy.model"));
    const env::CostModelEntry* model = env::find_cost_model(c.proxy.model);
    if (!model) {
      return r.error(p["model"], "proxy.model",
                     "unknown cost model '" + c.proxy.model + "' (expected " + join(env::cost_model_names()) + ")");
    }
    if (const YAML::Node mp = p["params"]) {
      std::vector<std::string> allowed;
      for (const env::Param& param : model->params) allowed.push_back(param.name);
      if (auto ok = r.only_keys(mp, "proxy.params", allowed); !ok) return ok.error();
      for (const auto& kv : mp) {
        const std::string key = kv.first.Scalar(), at = "proxy.params." + key;
        double v;
        TRY_ASSIGN(v, r.number(kv.second, at, -1e300));
        auto checked = env::check_param(model->params, "cost model '" + c.proxy.model + "'", key, v);
        if (!checked) return r.error(kv.second, at, checked.error().message);
        c.proxy.params[key] = *checked;
      }
    }
    if (const YAML::Node h = p["hidden"]) {
      if (!h.IsSequence() || h.size() == 0) return r.error(h, "proxy.hidden", "expected a list of layer widths");
      c.proxy.hidden.clear();
      for (size_t i = 0; i < h.size(); ++i) {
        int64_t w;
        TRY_ASSIGN(w, r.integer(h[i], "proxy.hidden." + std::to_string(i), 1));
        c.proxy.hidden.push_back(static_cast<int>(w));
      }
    }
    if (p["epochs"]) TRY_ASSIGN(c.proxy.epochs, r.integer(p["epochs"], "proxy.epochs", 1));
    if (p["rows_per_train"]) TRY_ASSIGN(c.proxy.rows_per_train, r.integer(p["rows_per_train"], "proxy.rows_per_train", 0));
    if (p["min_samples"]) TRY_ASSIGN(c.proxy.min_samples, r.integer(p["min_samples"], "proxy.min_samples", 2));
    if (p["learning_rate"]) TRY_ASSIGN(c.proxy.learning_rate, r.number(p["learning_rate"], "proxy.learning_rate", 1e-9));
    if (p["pair_noise"]) TRY_ASSIGN(c.proxy.pair_noise, r.number(p["pair_noise"], "proxy.pair_noise", 1e-6));
    if (p["weights"]) TRY_ASSIGN(c.proxy.weights, r.text(p["weights"], "proxy.weights"));
  }

  if (const YAML::Node b = root["budget"]) {
    if (auto ok = r.only_keys(b, "budget", {"trials", "seconds", "batch_size", "network_every_s", "probe_every_s", "share_bests", "verdict_runs"}); !ok) return ok.error();
    // A network run may have no search at all: its default schedules and transfer only.
    if (b["trials"]) TRY_ASSIGN(c.trials, r.integer(b["trials"], "budget.trials", c.network.empty() ? 1 : 0));
    if (b["network_every_s"]) {
      if (c.network.empty()) return r.error(b["network_every_s"], "budget.network_every_s", "network_every_s is for network runs");
      TRY_ASSIGN(c.network_every_s, r.number(b["network_every_s"], "budget.network_every_s", 0));
    }
    if (b["probe_every_s"]) {
      if (c.network.empty()) return r.error(b["probe_every_s"], "budget.probe_every_s", "probe_every_s is for network runs");
      TRY_ASSIGN(c.probe_every_s, r.number(b["probe_every_s"], "budget.probe_every_s", 0));
    }
    if (b["verdict_runs"]) {
      if (c.network.empty()) return r.error(b["verdict_runs"], "budget.verdict_runs", "verdict_runs is for network runs");
      int64_t n;
      TRY_ASSIGN(n, r.integer(b["verdict_runs"], "budget.verdict_runs", 0));
      c.verdict_runs = static_cast<int>(n);
    }
    if (b["share_bests"]) {
      if (c.network.empty()) return r.error(b["share_bests"], "budget.share_bests", "share_bests is for network runs");
      int64_t n;
      TRY_ASSIGN(n, r.integer(b["share_bests"], "budget.share_bests", 0));
      c.share_bests = static_cast<int>(n);
    }
    if (b["seconds"]) TRY_ASSIGN(c.seconds, r.number(b["seconds"], "budget.seconds", 0));
    if (b["batch_size"]) TRY_ASSIGN(c.batch_size, r.integer(b["batch_size"], "budget.batch_size", 1));
  }

  // A network run times each layer as the network runs it: its weights cold (runtime/measure.h).
  if (!c.network.empty() && c.target_kind != "cuda") c.measure.cold_constants = true;
  if (const YAML::Node m = root["measure"]) {
    if (auto ok = r.only_keys(m, "measure", {"warmup", "warmup_ms", "back_to_back_warmup_ms", "number", "repeat", "min_repeat_ms", "flush_cache",
                                             "cold_constants", "compile_while_timing", "compile_timeout_s", "run_timeout_s", "retime_top", "retime_rounds", "confirm_rounds", "confirm_within",
                                             "give_up_ratio"});
        !ok) {
      return ok.error();
    }
    auto& o = c.measure;
    if (m["warmup"]) TRY_ASSIGN(o.warmup, r.integer(m["warmup"], "measure.warmup", 0));
    if (m["warmup_ms"]) TRY_ASSIGN(o.min_warmup_ms, r.number(m["warmup_ms"], "measure.warmup_ms", 0));
    if (m["back_to_back_warmup_ms"]) {
      TRY_ASSIGN(o.back_to_back_warmup_ms, r.number(m["back_to_back_warmup_ms"], "measure.back_to_back_warmup_ms", 0));
    }
    if (m["retime_top"]) TRY_ASSIGN(c.retime_top, r.integer(m["retime_top"], "measure.retime_top", 0));
    if (m["retime_rounds"]) TRY_ASSIGN(c.retime_rounds, r.integer(m["retime_rounds"], "measure.retime_rounds", 1));
    if (m["confirm_rounds"]) TRY_ASSIGN(c.confirm_rounds, r.integer(m["confirm_rounds"], "measure.confirm_rounds", 0));
    if (m["confirm_within"]) TRY_ASSIGN(c.confirm_within, r.number(m["confirm_within"], "measure.confirm_within", 0));
    if (m["number"]) TRY_ASSIGN(o.number, r.integer(m["number"], "measure.number", 1));
    if (m["repeat"]) TRY_ASSIGN(o.repeat, r.integer(m["repeat"], "measure.repeat", 1));
    if (m["min_repeat_ms"]) TRY_ASSIGN(o.min_repeat_ms, r.number(m["min_repeat_ms"], "measure.min_repeat_ms", 0));
    if (m["flush_cache"]) TRY_ASSIGN(o.flush_cache, r.boolean(m["flush_cache"], "measure.flush_cache"));
    if (m["compile_while_timing"]) {
      TRY_ASSIGN(o.compile_while_timing, r.boolean(m["compile_while_timing"], "measure.compile_while_timing"));
    }
    if (m["cold_constants"]) {
      TRY_ASSIGN(o.cold_constants, r.boolean(m["cold_constants"], "measure.cold_constants"));
      if (o.cold_constants && c.target_kind == "cuda") {
        return r.error(m["cold_constants"], "measure.cold_constants", "is for the cpu target (the GPU measurer times its calls warm)");
      }
    }
    if (m["compile_timeout_s"]) TRY_ASSIGN(o.compile_timeout_s, r.number(m["compile_timeout_s"], "measure.compile_timeout_s", 0.1));
    if (m["run_timeout_s"]) TRY_ASSIGN(o.run_timeout_s, r.number(m["run_timeout_s"], "measure.run_timeout_s", 0.1));
    if (m["give_up_ratio"]) {
      TRY_ASSIGN(o.give_up_ratio, r.number(m["give_up_ratio"], "measure.give_up_ratio", 0));
      if (o.give_up_ratio > 0 && o.give_up_ratio < 1) {
        return r.error(m["give_up_ratio"], "measure.give_up_ratio",
                       "must be 0 (off) or at least 1 (a ratio below 1 would cut short candidates faster than the best)");
      }
    }
  }
  if (const YAML::Node m = root["mpi"]) {
    if (auto ok = r.only_keys(m, "mpi", {"assume_identical_hardware", "hang_timeout_s"}); !ok) return ok.error();
    if (m["assume_identical_hardware"]) {
      TRY_ASSIGN(c.mpi_assume_identical_hardware, r.boolean(m["assume_identical_hardware"], "mpi.assume_identical_hardware"));
    }
    if (m["hang_timeout_s"]) TRY_ASSIGN(c.mpi_hang_timeout_s, r.number(m["hang_timeout_s"], "mpi.hang_timeout_s", 0));
  }
  c.measure.threads = c.threads;
  return c;
}

}  // namespace

nlohmann::json resolved_config(const TuneConfig& c) {
  // Every parameter the agent declares, set or defaulted: the run directory says all it ran with.
  nlohmann::json params = nlohmann::json::object();
  for (const agents::ParamSetting& s : agents::resolved_params(c.search.agent, c.search.params)) {
    const std::string& key = s.param.name;
    const double value = s.value;
    if (s.param.kind == agents::AgentParam::Kind::kBoolean) params[key] = value != 0;
    else if (value == static_cast<double>(static_cast<int64_t>(value))) params[key] = static_cast<int64_t>(value);
    else params[key] = value;
  }
  nlohmann::json tasks = nlohmann::json::array();
  for (const TaskSpec& t : c.tasks) tasks.push_back({{"name", t.name}, {"op", t.op}, {"params", t.params}});
  nlohmann::json model_params = nlohmann::json::object();
  for (const auto& [key, value] : c.proxy.params) model_params[key] = value;
  nlohmann::json proxy = {{"model", c.proxy.model}, {"params", model_params},
                          {"hidden", c.proxy.hidden}, {"epochs", c.proxy.epochs}, {"rows_per_train", c.proxy.rows_per_train},
                          {"min_samples", c.proxy.min_samples}, {"learning_rate", c.proxy.learning_rate},
                          {"pair_noise", c.proxy.pair_noise}};
  if (!c.proxy.weights.empty()) proxy["weights"] = c.proxy.weights;
  const auto& o = c.measure;
  nlohmann::json out = {{"run_dir", c.run_dir},
          {"seed", c.seed},
          {"target", c.target_kind == "cuda"
                         ? nlohmann::json{{"kind", "cuda"}, {"arch", c.cuda_arch}, {"threads", c.threads}}
                         : nlohmann::json{{"kind", "cpu"}, {"threads", c.threads}}},
          {"tasks", tasks},
          {"search", {{"agent", c.search.agent}, {"params", params}}},
          {"proxy", proxy},
          {"budget", {{"trials", c.trials}, {"seconds", c.seconds}, {"batch_size", c.batch_size}}},
          {"measure",
           {{"warmup", o.warmup}, {"warmup_ms", o.min_warmup_ms},
            {"back_to_back_warmup_ms", o.back_to_back_warmup_ms}, {"number", o.number},
            {"repeat", o.repeat}, {"min_repeat_ms", o.min_repeat_ms}, {"flush_cache", o.flush_cache},
            {"cold_constants", o.cold_constants}, {"compile_while_timing", o.compile_while_timing},
            {"compile_timeout_s", o.compile_timeout_s}, {"run_timeout_s", o.run_timeout_s}, {"give_up_ratio", o.give_up_ratio},
            {"retime_top", c.retime_top}, {"retime_rounds", c.retime_rounds},
            {"confirm_rounds", c.confirm_rounds}, {"confirm_within", c.confirm_within}}}};
  if (!c.plugins.empty()) out["plugins"] = c.plugins;
  out["mpi"] = {{"assume_identical_hardware", c.mpi_assume_identical_hardware}, {"hang_timeout_s", c.mpi_hang_timeout_s}};
  if (!c.network.empty()) {
    out.erase("tasks");
    out["network"] = c.network;
    out["layout"] = c.layout;
    out["winograd"] = c.winograd;
    out["allocator"] = c.allocator;
    out["transfer"] = c.transfer;
    out["budget"]["network_every_s"] = c.network_every_s;
    out["budget"]["probe_every_s"] = c.probe_every_s;
    out["budget"]["share_bests"] = c.share_bests;
    out["budget"]["verdict_runs"] = c.verdict_runs;
  }
  return out;
}

}  // namespace tessera::experiments

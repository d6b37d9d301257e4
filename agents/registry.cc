// The built-in agents and the registry's lookups (see registry.h).
#include "agents/registry.h"

#include <cstdio>
#include <exception>

#include "agents/droplet_search.h"
#include "agents/evolutionary_search.h"
#include "agents/option_params.h"
#include "agents/random_search.h"

namespace tessera::agents {
namespace {

using Kind = AgentParam::Kind;

// Random warm-up, then Droplet from the best: one agent, as configs select it.
class WarmDroplet : public SearchAgent {
 public:
  WarmDroplet(uint64_t seed, int warmup, int radius, double p)
      : random_(seed), droplet_(seed, radius, p), warmup_(warmup) {}
  std::string name() const override { return "droplet"; }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override {
    from_droplet_ = false;
    if (task.trials() < warmup_) return random_.propose(task, std::min(count, warmup_ - task.trials()));
    auto next = droplet_.propose(task, count);
    if (next.empty() && !droplet_.done()) return random_.propose(task, count);  // nothing measured yet
    from_droplet_ = true;
    return next;
  }
  void observe(const env::TuningTask& task, const std::vector<env::Measurement>& m) override {
    if (from_droplet_) droplet_.observe(task, m);
  }
  bool done() const override { return droplet_.done(); }

 private:
  RandomSearch random_;
  DropletSearch droplet_;
  int warmup_;
  bool from_droplet_ = false;
};

struct DropletParams {
  int warmup_trials = 64;
  int max_radius = 3;
  double p_value = 0.05;
};

const OptionParams<DropletParams>& droplet_params() {
  using O = DropletParams;
  static const OptionParams<O> params{{
      param<O>("warmup_trials", Kind::kInteger, 0, "random trials before the descent starts",
               [](O& o) -> int& { return o.warmup_trials; }),
      param<O>("max_radius", Kind::kInteger, 1, "neighbourhood radius at which the descent stops",
               [](O& o) -> int& { return o.max_radius; }),
      param<O>("p_value", Kind::kProbability, 0, "significance a move must reach", [](O& o) -> double& { return o.p_value; }),
  }};
  return params;
}

// Declared once: YAML validation, the options struct and `tessera agents` all come from here.
const OptionParams<EvolutionOptions>& evolution_params() {
  using O = EvolutionOptions;
  static const OptionParams<O> params{{
      param<O>("population", Kind::kInteger, 2, "candidates per generation", [](O& o) -> int& { return o.population; }),
      param<O>("generations", Kind::kInteger, 0, "generations of selection and mutation per round",
               [](O& o) -> int& { return o.generations; }),
      param<O>("mutation_probability", Kind::kProbability, 0, "chance a selected parent is mutated",
               [](O& o) -> double& { return o.mutation_probability; }),
      param<O>("eps_greedy", Kind::kProbability, 0, "share of each batch drawn at random",
               [](O& o) -> double& { return o.eps_greedy; }),
      param<O>("init_from_best", Kind::kProbability, 0, "share of the first generation from measured bests",
               [](O& o) -> double& { return o.init_from_best; }),
  }};
  return params;
}

std::vector<AgentEntry>& entries() {
  static std::vector<AgentEntry> table = {
      {"random", "uniform samples of every sketch's knobs, never repeated", {}, false,
       [](const AgentParams&, const AgentContext& c) { return std::make_unique<RandomSearch>(c.seed); }},
      {"droplet", "random warm-up, then coordinate descent from the best with a Welch t-test",
       droplet_params().declared(), false,
       [](const AgentParams& p, const AgentContext& c) {
         const DropletParams o = droplet_params().fill(p);
         return std::make_unique<WarmDroplet>(c.seed, o.warmup_trials, o.max_radius, o.p_value);
       }},
      {"evolutionary", "Ansor's evolutionary search on the learned proxy; measures the best-ranked few",
       evolution_params().declared(), true,
       [](const AgentParams& p, const AgentContext& c) {
         return std::make_unique<EvolutionarySearch>(c.cost_model, c.seed, evolution_params().fill(p));
       }},
  };
  return table;
}

}  // namespace

const std::vector<AgentEntry>& agent_registry() { return entries(); }

const AgentEntry* find_agent(const std::string& name) {
  for (const AgentEntry& e : entries()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> agent_names() {
  std::vector<std::string> names;
  for (const AgentEntry& e : entries()) names.push_back(e.name);
  return names;
}

void register_agent(AgentEntry entry) {
  for (AgentEntry& e : entries()) {
    if (e.name == entry.name) {
      e = std::move(entry);
      return;
    }
  }
  entries().push_back(std::move(entry));
}

Result<double> check_param(const AgentEntry& entry, const std::string& name, double value) {
  return env::check_param(entry.params, "agent '" + entry.name + "'", name, value);
}

Result<std::unique_ptr<SearchAgent>> make_agent(const std::string& name, const AgentParams& params,
                                                const AgentContext& context) {
  const AgentEntry* entry = find_agent(name);
  if (!entry) {
    std::string known;
    for (const std::string& n : agent_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error("unknown agent '" + name + "' (expected " + known + ")");
  }
  auto all = env::resolve_params(entry->params, "agent '" + name + "'", params, "search.params.");
  if (!all) return all.error();
  if (entry->needs_cost_model && !context.cost_model) {
    return make_error("agent '" + name + "' needs a cost model and none was given");
  }
  // A plug-in's factory is foreign code: what it throws becomes an error, never a crash.
  try {
    auto agent = entry->make(*all, context);
    if (!agent) return make_error("agent '" + name + "': its factory returned nothing");
    return agent;
  } catch (const std::exception& e) {
    return make_error("agent '" + name + "': its factory threw: " + e.what());
  } catch (...) {
    return make_error("agent '" + name + "': its factory threw a non-standard exception");
  }
}

std::vector<std::string> describe_params(const std::vector<AgentParam>& params) {
  std::vector<std::string> out;
  for (const AgentParam& p : params) {
    const char* kind = p.kind == Kind::kInteger       ? "integer"
                       : p.kind == Kind::kProbability ? "probability"
                                                      : "number";
    char head[160];
    if (p.kind == Kind::kBoolean) {  // configs write true/false (agents/param_values.h)
      std::snprintf(head, sizeof head, "%s: boolean, default %s", p.name.c_str(), p.fallback != 0 ? "true" : "false");
    } else {
      std::snprintf(head, sizeof head, "%s: %s >= %g, default %g", p.name.c_str(), kind, p.min, p.fallback);
    }
    out.push_back(std::string(head) + (p.help.empty() ? "" : " — " + p.help));
  }
  return out;
}

}  // namespace tessera::agents

// The built-in agents and the registry's lookups (see registry.h).
#include "agents/registry.h"

#include <exception>

#include "agents/droplet_search.h"
#include "agents/evolutionary_search.h"
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

int as_int(const AgentParams& p, const char* name) { return static_cast<int>(p.at(name)); }

std::vector<AgentEntry>& entries() {
  static std::vector<AgentEntry> table = {
      {"random", "uniform samples of every sketch's knobs, never repeated", {}, false,
       [](const AgentParams&, const AgentContext& c) { return std::make_unique<RandomSearch>(c.seed); }},
      {"droplet",
       "random warm-up, then coordinate descent from the best with a Welch t-test",
       {{"warmup_trials", Kind::kInteger, 0, 64, "random trials before the descent starts"},
        {"max_radius", Kind::kInteger, 1, 3, "neighbourhood radius at which the descent stops"},
        {"p_value", Kind::kProbability, 0, 0.05, "significance a move must reach"}},
       false,
       [](const AgentParams& p, const AgentContext& c) {
         return std::make_unique<WarmDroplet>(c.seed, as_int(p, "warmup_trials"), as_int(p, "max_radius"),
                                              p.at("p_value"));
       }},
      {"evolutionary",
       "Ansor's evolutionary search on the learned proxy; measures the best-ranked few",
       {{"population", Kind::kInteger, 2, 2048, "candidates per generation"},
        {"generations", Kind::kInteger, 0, 4, "generations of selection and mutation per round"},
        {"mutation_probability", Kind::kProbability, 0, 0.85, "chance a selected parent is mutated"},
        {"eps_greedy", Kind::kProbability, 0, 0.05, "share of each batch drawn at random"},
        {"init_from_best", Kind::kProbability, 0, 0.2, "share of the first generation from measured bests"}},
       true,
       [](const AgentParams& p, const AgentContext& c) {
         EvolutionOptions o;
         o.population = as_int(p, "population");
         o.generations = as_int(p, "generations");
         o.mutation_probability = p.at("mutation_probability");
         o.eps_greedy = p.at("eps_greedy");
         o.init_from_best = p.at("init_from_best");
         return std::make_unique<EvolutionarySearch>(c.cost_model, c.seed, o);
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
    return std::move(agent);
  } catch (const std::exception& e) {
    return make_error("agent '" + name + "': its factory threw: " + e.what());
  } catch (...) {
    return make_error("agent '" + name + "': its factory threw a non-standard exception");
  }
}

}  // namespace tessera::agents

// Agent registry: names in configs -> agents (see tune.h). "droplet" starts with
// `warmup_trials` random trials (default 64), then runs Droplet search from the best.
#include <random>

#include "agents/droplet_search.h"
#include "agents/random_search.h"
#include "experiments/tune.h"

namespace tessera::experiments {
namespace {

// Random warm-up, then Droplet: the schedule issue 5 benchmarks, as one agent.
class WarmDroplet : public agents::SearchAgent {
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
  agents::RandomSearch random_;
  agents::DropletSearch droplet_;
  int warmup_;
  bool from_droplet_ = false;
};

double param(const SearchSpec& spec, const char* name, double fallback) {
  auto it = spec.params.find(name);
  return it == spec.params.end() ? fallback : it->second;
}

}  // namespace

Result<std::unique_ptr<agents::SearchAgent>> make_agent(const SearchSpec& spec, uint64_t seed) {
  if (spec.agent == "random") return std::unique_ptr<agents::SearchAgent>(new agents::RandomSearch(seed));
  if (spec.agent == "droplet") {
    return std::unique_ptr<agents::SearchAgent>(new WarmDroplet(
        seed, static_cast<int>(param(spec, "warmup_trials", 64)),
        static_cast<int>(param(spec, "max_radius", 3)), param(spec, "p_value", 0.05)));
  }
  return make_error("unknown agent '" + spec.agent + "' (expected random, droplet)");
}

}  // namespace tessera::experiments

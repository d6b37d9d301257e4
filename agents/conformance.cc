// The conformance checks of agents and cost models (see conformance.h).
#include "agents/conformance.h"

#include <cmath>
#include <random>
#include <set>

#include "env/model_feeder.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents {
namespace {

Result<std::unique_ptr<env::TuningTask>> simulated_matmul() {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto dag = schedule::matmul(96, 64, 80);
  if (!dag) return dag.error();
  return env::TuningTask::create(*dag, options);
}

}  // namespace

ConformanceReport check_agent_conformance(SearchAgent& agent) {
  ConformanceReport report;
  report.subject = "agent '" + agent.name() + "'";
  auto fail = [&](const std::string& what) { report.failures.push_back(what); };
  auto task = simulated_matmul();
  if (!task) {
    fail("the test task: " + task.error().message);
    return report;
  }
  std::vector<std::set<env::Candidate>> batches;
  for (int round = 0; round < 5 && !agent.done(); ++round) {
    const int before = (*task)->trials();
    auto proposed = agent.propose(**task, 8);
    if (proposed.empty()) {
      fail("round " + std::to_string(round) + ": proposed nothing before it was done");
      break;
    }
    if (proposed.size() > 8) fail("round " + std::to_string(round) + ": proposed more than the 8 asked for");
    std::set<env::Candidate> batch(proposed.begin(), proposed.end());
    if (batch.size() != proposed.size()) fail("round " + std::to_string(round) + ": duplicates in the batch");
    for (const env::Candidate& c : proposed) {
      if (agent.tags_sources() && c.source.empty()) {
        fail("round " + std::to_string(round) + ": says it tags its candidates' sources but left one untagged");
        break;
      }
    }
    for (const env::Candidate& c : proposed) {
      if ((*task)->measured(c)) {
        fail("round " + std::to_string(round) + ": re-proposed a measured candidate");
        break;
      }
    }
    agent.observe(**task, (*task)->measure(proposed));
    if ((*task)->trials() <= before) fail("round " + std::to_string(round) + ": nothing new was measured");
    batches.push_back(std::move(batch));
  }
  report.batches = static_cast<int>(batches.size());
  report.trials = (*task)->trials();
  report.best_gflops = (*task)->best_gflops();
  if (batches.size() < 2) fail("fewer than 2 batches before it was done");
  else if (batches[0] == batches[1]) fail("the second batch repeats the first");
  if (report.best_gflops <= 0) fail("no correct candidate was found");
  if (report.trials <= 8) fail("8 trials or fewer in 5 rounds");
  return report;
}

ConformanceReport check_agent_conformance(const std::string& name, const AgentParams& params,
                                          const AgentContext& context) {
  auto agent = make_agent(name, params, context);
  if (!agent) {
    ConformanceReport report;
    report.subject = "agent '" + name + "'";
    report.failures.push_back(agent.error().message);
    return report;
  }
  ConformanceReport report = check_agent_conformance(**agent);
  if ((*agent)->name() != name) report.failures.push_back("name() says '" + (*agent)->name() + "', registered as '" + name + "'");
  report.subject = "agent '" + name + "'";
  return report;
}

ConformanceReport check_cost_model_conformance(const std::string& subject, env::CostModel& model) {
  ConformanceReport report;
  report.subject = subject;
  auto fail = [&](const std::string& what) { report.failures.push_back(what); };
  auto task = simulated_matmul();
  if (!task) {
    fail("the test task: " + task.error().message);
    return report;
  }
  // A borrowed model: the feeder must not delete it.
  env::ModelFeeder feeder(std::shared_ptr<env::CostModel>(&model, [](env::CostModel*) {}));
  std::mt19937_64 rng(7);
  std::vector<env::Candidate> train, test;
  while (train.size() < 48) train.push_back((*task)->sample(rng));
  while (test.size() < 32) test.push_back((*task)->sample(rng));
  (*task)->measure(train);
  report.trials = (*task)->trials();
  report.best_gflops = (*task)->best_gflops();
  feeder.update(**task);
  auto scores = feeder.score(**task, test);
  if (scores.size() != test.size()) {
    fail(std::to_string(scores.size()) + " scores for " + std::to_string(test.size()) + " candidates");
    return report;
  }
  int finite = 0;
  for (float s : scores) finite += std::isfinite(s) ? 1 : 0;
  if (finite == 0) fail("no finite score for any of 32 candidates");
  else if (finite < static_cast<int>(scores.size()) / 2) fail("most scores are not finite");
  if (feeder.score(**task, test) != scores) fail("asked twice, it scores the same candidates differently");
  // Held-out ranking: measure the test candidates only now, after they were scored.
  auto truth = (*task)->measure(test);
  int pairs = 0, right = 0;
  for (size_t a = 0; a < test.size(); ++a) {
    for (size_t b = a + 1; b < test.size(); ++b) {
      const double ta = truth[a].throughput(), tb = truth[b].throughput();
      if (!std::isfinite(scores[a]) || !std::isfinite(scores[b]) || ta <= 0 || tb <= 0) continue;
      if (std::max(ta, tb) < 1.05 * std::min(ta, tb)) continue;
      ++pairs;
      right += (scores[a] > scores[b]) == (ta > tb) ? 1 : 0;
    }
  }
  if (pairs > 0) report.pairwise_accuracy = static_cast<double>(right) / pairs;
  // A second round: more measurements (the held-out ones too), retrained, still one score each.
  std::vector<env::Candidate> more;
  while (more.size() < 16) more.push_back((*task)->sample(rng));
  (*task)->measure(more);
  feeder.update(**task);
  auto again = feeder.score(**task, test);
  if (again.size() != test.size()) fail("after retraining: the wrong number of scores");
  report.batches = 2;
  return report;
}

}  // namespace tessera::agents

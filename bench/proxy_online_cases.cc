// The learned proxy trained as a tuning run trains it, round by round, under different training
// budgets (`proxy.rows_per_train`): what each round's training costs, and how well the proxy
// ranks each round's candidates before it has seen them.
//
// A tuning run trains its proxy after every round, warm-started, on everything measured so far:
// with `epochs` passes over a set that grows all run long, a round's training grows with it. This
// bench replays a finished run's records (TESSERA_PROXY_RUN, a run directory) in their order,
// batch by batch (consecutive records of one task, at most 16: a round), for each budget in
// TESSERA_PROXY_BUDGETS (default "0 32768 8192"; 0: every pass, the old training). Before a batch
// is added, the proxy ranks it; pairs at least `proxy.pair_noise` apart in measured throughput
// are scored (pairwise accuracy), and the batch's fastest over what the proxy's top pick ran at
// (pick ratio: 1 when the proxy's first choice is the fastest). The candidates are the ones the
// run's own search chose with its own proxy, so this compares rankings of the same candidates,
// not searches. Per budget and quarter of the batches: training seconds per round, pairwise
// accuracy, mean pick ratio.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

#include <tbb/parallel_for.h>

#include "bench/cases.h"
#include "env/proxy/reward_proxy.h"
#include "experiments/config.h"
#include "experiments/run_tasks.h"
#include "runtime/records.h"
#include "runtime/timing.h"
#include "schedule/features.h"
#include "schedule/lower.h"
#include "schedule/state.h"
#include "schedule/step_json.h"

namespace tessera::bench {
namespace {

constexpr size_t kMostPerBatch = 16;
constexpr int kQuarters = 4;

struct Sample {
  std::string group;     // workload key
  double throughput = 0; // 1 / median cost; 0 when it failed
  std::optional<std::vector<float>> features;  // none: its schedule is refused
};

struct Quarter {
  double train_seconds = 0;
  int rounds = 0;
  long pairs = 0, right = 0;
  double pick_ratio_sum = 0;
  int picks = 0;
};

// The run's records as the proxy saw them, in order, featurized on every core.
Result<std::vector<Sample>> load_samples(const std::string& run_dir, experiments::TuneConfig* config) {
  auto loaded = experiments::load_config(run_dir + "/config.yaml");
  if (!loaded) return loaded.error();
  *config = std::move(*loaded);
  auto tasks = experiments::run_tasks(*config);
  if (!tasks) return tasks.error();
  std::map<std::string, const schedule::ComputeDAG*> by_key;
  for (const auto& t : *tasks) by_key[t.dag.workload_key()] = &t.dag;
  auto file = runtime::read_records(run_dir + "/records.jsonl");
  if (!file) return file.error();
  std::vector<const runtime::MeasureRecord*> mine;
  for (const auto& r : file->records) {
    if (by_key.count(r.workload_key)) mine.push_back(&r);
  }
  if (mine.empty()) return make_error(run_dir + ": no record of the run's tasks");
  std::vector<Sample> out(mine.size());
  tbb::parallel_for(size_t{0}, mine.size(), [&](size_t i) {
    const runtime::MeasureRecord& r = *mine[i];
    out[i].group = r.workload_key;
    const double cost = r.median_cost();
    out[i].throughput = r.error == runtime::MeasureError::kNone && cost > 0 ? 1 / cost : 0;
    auto steps = schedule::steps_from_json(r.steps);
    if (!steps) return;
    schedule::State state(*by_key.at(r.workload_key));
    if (!state.apply_all(*steps)) return;
    auto func = schedule::lower(state, "kernel");
    if (func) out[i].features = schedule::extract_features(*func);
  });
  return out;
}

// [begin, end) of each batch: consecutive samples of one task, at most kMostPerBatch.
std::vector<std::pair<size_t, size_t>> batches_of(const std::vector<Sample>& samples) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < samples.size();) {
    size_t end = i;
    while (end < samples.size() && end - i < kMostPerBatch && samples[end].group == samples[i].group) ++end;
    out.emplace_back(i, end);
    i = end;
  }
  return out;
}

void score_batch(const std::vector<const Sample*>& batch, const std::vector<float>& predicted, double min_gap,
                 Quarter& q) {
  double fastest = 0;
  size_t pick = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    fastest = std::max(fastest, batch[i]->throughput);
    if (predicted[i] > predicted[pick]) pick = i;
    for (size_t j = i + 1; j < batch.size(); ++j) {
      const double a = batch[i]->throughput, b = batch[j]->throughput;
      if (a <= 0 || b <= 0 || std::abs(a - b) < min_gap * std::max(a, b)) continue;
      ++q.pairs;
      q.right += (a > b) == (predicted[i] > predicted[j]);
    }
  }
  if (fastest > 0 && batch.size() > 1) {
    q.pick_ratio_sum += fastest / std::max(batch[pick]->throughput, fastest * 1e-3);  // a failed pick counts 1000x
    ++q.picks;
  }
}

}  // namespace

nlohmann::json run_proxy_online() {
  const char* run = std::getenv("TESSERA_PROXY_RUN");
  if (!run) return error_json("set TESSERA_PROXY_RUN to a run directory (config.yaml + records.jsonl)");
  const char* budgets_env = std::getenv("TESSERA_PROXY_BUDGETS");
  std::vector<int> budgets;
  std::istringstream words(budgets_env ? budgets_env : "0 32768 8192");
  for (int b; words >> b;) budgets.push_back(std::max(0, b));
  if (budgets.empty()) return error_json("TESSERA_PROXY_BUDGETS: expected row budgets, e.g. \"0 32768\"");

  experiments::TuneConfig config;
  const auto loading = std::chrono::steady_clock::now();
  auto samples = load_samples(run, &config);
  if (!samples) return error_json(samples.error().message);
  const double featurize_s = runtime::seconds_since(loading);
  const auto batches = batches_of(*samples);

  nlohmann::json out = {{"run", run},
                        {"records", samples->size()},
                        {"rounds", batches.size()},
                        {"featurize_seconds", featurize_s},
                        {"epochs", config.proxy.epochs},
                        {"includes", "RewardProxy::train_report after each batch, as ModelFeeder::update; rankings "
                                     "of each batch before training on it"}};
  for (int budget : budgets) {
    env::ProxyOptions options;
    options.hidden = config.proxy.hidden;
    options.epochs = static_cast<int>(config.proxy.epochs);
    options.rows_per_train = budget;
    options.min_samples = static_cast<int>(config.proxy.min_samples);
    options.learning_rate = config.proxy.learning_rate;
    options.pair_noise = config.proxy.pair_noise;
    options.seed = config.seed;
    env::RewardProxy proxy(options);
    Quarter quarters[kQuarters];
    double last_round_seconds = 0;
    for (size_t b = 0; b < batches.size(); ++b) {
      Quarter& q = quarters[std::min<size_t>(kQuarters - 1, b * kQuarters / batches.size())];
      std::vector<const Sample*> ranked;
      std::vector<env::ProxySample> added;
      for (size_t i = batches[b].first; i < batches[b].second; ++i) {
        const Sample& s = (*samples)[i];
        if (!s.features) continue;
        ranked.push_back(&s);
        added.push_back({*s.features, s.throughput, s.group, {}});
      }
      if (proxy.ready() && ranked.size() > 1) {
        std::vector<std::vector<float>> rows;
        for (const Sample* s : ranked) rows.push_back(*s->features);
        score_batch(ranked, proxy.predict(rows), options.pair_noise, q);
      }
      proxy.add(added);
      const env::TrainReport report = proxy.train_report();
      q.train_seconds += report.seconds;
      ++q.rounds;
      last_round_seconds = report.seconds;
    }
    nlohmann::json by_quarter = nlohmann::json::array();
    long pairs = 0, right = 0;
    double train_total = 0;
    for (const Quarter& q : quarters) {
      pairs += q.pairs, right += q.right, train_total += q.train_seconds;
      by_quarter.push_back({{"train_seconds_per_round", q.rounds ? q.train_seconds / q.rounds : 0.0},
                            {"pairwise_accuracy", q.pairs ? static_cast<double>(q.right) / q.pairs : 0.0},
                            {"pairs", q.pairs},
                            {"pick_ratio", q.picks ? q.pick_ratio_sum / q.picks : 0.0}});
    }
    out["rows_per_train_" + std::to_string(budget)] = {
        {"train_seconds", train_total},
        {"last_round_train_seconds", last_round_seconds},
        {"pairwise_accuracy", pairs ? static_cast<double>(right) / pairs : 0.0},
        {"quarters", by_quarter}};
  }
  return out;
}

}  // namespace tessera::bench

// Held-out evaluation of the reward proxy (see proxy_eval.h).
#include "experiments/proxy_eval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "env/candidate_features.h"
#include "env/proxy/reward_proxy.h"
#include "experiments/config.h"
#include "runtime/records.h"

namespace tessera::experiments {
namespace {

struct Options {
  std::vector<std::string> records;
  std::string config;
  double holdout = 0.2;
  uint64_t seed = 1;
  int top_k = 10;
  int epochs = 200;  // offline: a few seconds for thousands of records
  double min_gap = 0;  // pairs closer than this relative gap in throughput are not scored
  std::string save;
};

// A measured candidate: median throughput and the range its repeated runs spanned.
struct Measured {
  double throughput = 0, slowest = 0, fastest = 0;  // 1 / cost; 0 when it did not run
};

struct Row {
  std::vector<float> features;
  Measured y;
};

struct Score {
  long pairs = 0, correct = 0;
  long separable = 0, separable_correct = 0;  // pairs whose repeat ranges do not overlap
  double recall = 0;
};

Measured measured(const runtime::MeasureRecord& r) {
  Measured m;
  double cost = r.median_cost();
  if (r.error != runtime::MeasureError::kNone || cost <= 0) return m;
  auto [lo, hi] = std::minmax_element(r.costs.begin(), r.costs.end());
  m = {1.0 / cost, 1.0 / *hi, 1.0 / *lo};
  return m;
}

// Pairwise accuracy and top-k recall of `predicted` against held-out rows that ran. Pairs whose
// repeated runs overlap are ones the measurement itself cannot order; they are counted in the
// plain accuracy and left out of the separable one.
Score score_task(const std::vector<Row>& test, const std::vector<float>& predicted, int top_k, double min_gap) {
  Score s;
  std::vector<size_t> ran;
  for (size_t i = 0; i < test.size(); ++i) {
    if (test[i].y.throughput > 0) ran.push_back(i);
  }
  for (size_t a = 0; a < ran.size(); ++a) {
    for (size_t b = a + 1; b < ran.size(); ++b) {
      const Measured& ma = test[ran[a]].y;
      const Measured& mb = test[ran[b]].y;
      double dy = ma.throughput - mb.throughput;
      if (dy == 0 || std::abs(dy) < min_gap * std::max(ma.throughput, mb.throughput)) continue;
      ++s.pairs;
      double dp = predicted[ran[a]] - predicted[ran[b]];
      bool correct = (dy > 0) == (dp > 0);
      s.correct += correct;
      if (ma.slowest > mb.fastest || mb.slowest > ma.fastest) {
        ++s.separable;
        s.separable_correct += correct;
      }
    }
  }
  size_t k = std::min(static_cast<size_t>(top_k), ran.size());
  if (k == 0) return s;
  auto top = [&](auto key) {
    std::vector<size_t> order = ran;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return key(x) > key(y); });
    return std::set<size_t>(order.begin(), order.begin() + static_cast<long>(k));
  };
  auto truth = top([&](size_t i) { return test[i].y.throughput; });
  auto guess = top([&](size_t i) { return static_cast<double>(predicted[i]); });
  size_t hits = 0;
  for (size_t i : guess) hits += truth.count(i);
  s.recall = static_cast<double>(hits) / static_cast<double>(k);
  return s;
}

bool parse(const std::vector<std::string>& args, Options* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    try {
      if (a == "--config" && has_value) o->config = args[++i];
      else if (a == "--holdout" && has_value) o->holdout = std::stod(args[++i]);
      else if (a == "--seed" && has_value) o->seed = std::stoull(args[++i]);
      else if (a == "--top-k" && has_value) o->top_k = std::stoi(args[++i]);
      else if (a == "--epochs" && has_value) o->epochs = std::stoi(args[++i]);
      else if (a == "--save" && has_value) o->save = args[++i];
      else if (a == "--min-gap" && has_value) o->min_gap = std::stod(args[++i]);
      else if (a.rfind("--", 0) != 0) o->records.push_back(a);
      else throw std::invalid_argument(a);
    } catch (const std::exception&) {
      std::fprintf(stderr, "tessera proxy-eval: bad argument '%s'\n", a.c_str());
      return false;
    }
  }
  if (o->records.empty()) std::fprintf(stderr, "tessera proxy-eval: missing RECORDS\n");
  if (!(o->holdout > 0 && o->holdout < 1)) {
    std::fprintf(stderr, "tessera proxy-eval: --holdout must be in (0, 1)\n");
    return false;
  }
  if (!(o->min_gap >= 0 && o->min_gap < 1)) {
    std::fprintf(stderr, "tessera proxy-eval: --min-gap must be in [0, 1)\n");
    return false;
  }
  if (o->top_k < 1 || o->epochs < 1) {
    std::fprintf(stderr, "tessera proxy-eval: --top-k and --epochs must be at least 1\n");
    return false;
  }
  return !o->records.empty();
}

}  // namespace

int run_proxy_eval(const std::vector<std::string>& args) {
  Options o;
  if (!parse(args, &o)) return 2;
  if (o.config.empty()) {
    o.config = (std::filesystem::path(o.records[0]).parent_path() / "config.yaml").string();
    if (!std::filesystem::exists(o.config)) {
      std::fprintf(stderr, "tessera proxy-eval: no config.yaml beside %s; name the tasks with --config\n",
                   o.records[0].c_str());
      return 2;
    }
  }
  auto config = load_config(o.config);
  if (!config) {
    std::fprintf(stderr, "%s\n", config.error().message.c_str());
    return 2;
  }
  std::vector<std::unique_ptr<env::TuningTask>> tasks;
  std::vector<std::string> names;
  for (const TaskSpec& spec : config->tasks) {
    auto dag = build_task(spec);
    env::TaskOptions options;
    options.measurable = false;  // features only
    auto task = dag ? env::TuningTask::create(*dag, options) : Result<std::unique_ptr<env::TuningTask>>(dag.error());
    if (!task) {
      std::fprintf(stderr, "tessera proxy-eval: task '%s': %s\n", spec.name.c_str(), task.error().message.c_str());
      return 1;
    }
    tasks.push_back(std::move(*task));
    names.push_back(spec.name);
  }

  // Records -> (task, candidate, throughput), first record of each candidate only.
  std::vector<std::vector<std::pair<env::Candidate, Measured>>> per_task(tasks.size());
  std::vector<std::set<env::Candidate>> seen(tasks.size());
  long skipped = 0, total = 0;
  for (const std::string& path : o.records) {
    auto file = runtime::read_records(path);
    if (!file) {
      std::fprintf(stderr, "tessera proxy-eval: %s\n", file.error().message.c_str());
      return 1;
    }
    for (const std::string& w : file->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    for (const runtime::MeasureRecord& r : file->records) {
      ++total;
      bool used = false;
      for (size_t t = 0; t < tasks.size() && !used; ++t) {
        auto c = tasks[t]->candidate_of(r);
        if (!c) continue;
        used = true;
        if (!seen[t].insert(*c).second) continue;
        per_task[t].emplace_back(*c, measured(r));
      }
      if (!used) ++skipped;
    }
  }
  std::fprintf(stderr, "proxy-eval: %ld records, %ld not of a task in %s\n", total, skipped, o.config.c_str());

  // Split every task, extract features, train on the training share.
  env::ProxyOptions po;
  po.hidden = config->proxy.hidden;
  po.learning_rate = config->proxy.learning_rate;
  po.pair_noise = config->proxy.pair_noise;
  po.epochs = o.epochs;
  po.rows_per_train = 0;  // one offline training: every pass asked for
  po.min_samples = 2;
  po.seed = o.seed;
  env::RewardProxy proxy(po);
  std::mt19937_64 rng(o.seed);
  std::vector<std::vector<Row>> test(tasks.size());
  std::vector<size_t> train_count(tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    auto& rows = per_task[t];
    std::shuffle(rows.begin(), rows.end(), rng);
    std::vector<env::Candidate> candidates;
    for (auto& [c, y] : rows) candidates.push_back(c);
    auto features = env::candidate_features(*tasks[t], candidates);
    size_t held = static_cast<size_t>(o.holdout * static_cast<double>(rows.size()) + 0.5);
    std::vector<env::ProxySample> train;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!features[i]) continue;
      if (i < held) test[t].push_back({*features[i], rows[i].second});
      else train.push_back({*features[i], rows[i].second.throughput, tasks[t]->dag().workload_key()});
    }
    train_count[t] = train.size();
    proxy.add(train);
  }
  auto report = proxy.train_report();
  std::fprintf(stderr, "proxy-eval: trained on %d samples, %d steps, %.1f s, final loss %.4f\n", report.samples,
               report.steps, report.seconds, report.final_loss);

  std::printf("%-28s %7s %6s %9s %9s %10s %8s\n", "task", "train", "test", "pairs", "pair_acc", "separable",
              "top-k");
  Score all;
  double recall_sum = 0;
  int recall_tasks = 0;
  for (size_t t = 0; t < tasks.size(); ++t) {
    std::vector<std::vector<float>> rows;
    for (const Row& r : test[t]) rows.push_back(r.features);
    Score s = score_task(test[t], proxy.predict(rows), o.top_k, o.min_gap);
    all.pairs += s.pairs;
    all.correct += s.correct;
    all.separable += s.separable;
    all.separable_correct += s.separable_correct;
    if (s.pairs > 0) recall_sum += s.recall, ++recall_tasks;
    auto ratio = [](long a, long b) { return b ? std::to_string(static_cast<double>(a) / b).substr(0, 5) : "-"; };
    std::printf("%-28s %7zu %6zu %9ld %9s %10s %8s\n", names[t].c_str(), train_count[t], test[t].size(), s.pairs,
                ratio(s.correct, s.pairs).c_str(), ratio(s.separable_correct, s.separable).c_str(),
                s.pairs ? std::to_string(s.recall).substr(0, 5).c_str() : "-");
  }
  if (all.pairs == 0) {
    std::fprintf(stderr, "tessera proxy-eval: no held-out pairs to rank (too few records that ran)\n");
    return 1;
  }
  std::string gap = o.min_gap > 0 ? " (at least " + std::to_string(o.min_gap * 100).substr(0, 4) + "% apart)" : "";
  std::printf("overall: pairwise accuracy %.3f over %ld held-out pairs%s; top-%d recall %.3f (mean of %d tasks)\n",
              static_cast<double>(all.correct) / static_cast<double>(all.pairs), all.pairs, gap.c_str(), o.top_k,
              recall_sum / recall_tasks, recall_tasks);
  if (all.separable > 0) {
    std::printf("separable: pairwise accuracy %.3f over the %ld pairs whose repeated runs do not overlap\n",
                static_cast<double>(all.separable_correct) / static_cast<double>(all.separable), all.separable);
  }
  if (!o.save.empty()) {
    if (auto saved = proxy.save(o.save); !saved) {
      std::fprintf(stderr, "tessera proxy-eval: %s\n", saved.error().message.c_str());
      return 1;
    }
    std::printf("weights: %s\n", o.save.c_str());
  }
  return 0;
}

}  // namespace tessera::experiments

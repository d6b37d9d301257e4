// A batch as a queue over the ranks (see remote_measurer.h).
#include "mpi/remote_measurer.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>

#include "mpi/messages.h"
#include "schedule/step_json.h"

namespace tessera::mpi {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

nlohmann::json items(const std::vector<runtime::Schedule>& schedules, const std::vector<size_t>& indices) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i : indices) list.push_back({{"index", i}, {"steps", schedule::steps_to_json(schedules[i])}});
  return list;
}

}  // namespace

RemoteMeasurer::~RemoteMeasurer() { stop_ranks(); }

int RemoteMeasurer::live_ranks() const {
  return static_cast<int>(std::count_if(ranks_.begin() + 1, ranks_.end(), [](const RankInfo& r) { return r.alive; }));
}

void RemoteMeasurer::lose(RankInfo& rank, const std::string& why) {
  rank.alive = false;
  if (options_.log) options_.log(rank.name() + " (pid " + std::to_string(rank.pid) + ") lost: " + why);
}

runtime::Measurer& RemoteMeasurer::local() {
  if (!local_) {
    local_ = options_.make_local();
    if (options_.log) options_.log("no measuring rank left: rank 0 measures the rest itself");
  }
  return *local_;
}

std::vector<runtime::MeasureResult> RemoteMeasurer::measure(const schedule::ComputeDAG& dag,
                                                            const std::vector<runtime::Schedule>& schedules) {
  std::vector<runtime::MeasureResult> results(schedules.size());
  measure_each(dag, schedules, 0, [&](size_t i, runtime::MeasureResult r) { results[i] = std::move(r); });
  return results;
}

void RemoteMeasurer::measure_each(const schedule::ComputeDAG& dag, const std::vector<runtime::Schedule>& schedules,
                                  double best_seconds, const runtime::ResultSink& done) {
  const uint64_t batch = ++batch_;
  std::deque<size_t> queue;
  for (size_t i = 0; i < schedules.size(); ++i) queue.push_back(i);
  std::map<int, std::set<size_t>> held;  // rank -> candidates sent and not answered
  std::map<int, Clock::time_point> heard;
  std::vector<int> sent_to(schedules.size(), 0);
  size_t answered = 0;
  auto give_back = [&](int rank) {
    for (auto it = held[rank].rbegin(); it != held[rank].rend(); ++it) {
      if (sent_to[*it] >= 2) {  // lost twice: not a third machine
        runtime::MeasureResult lost;
        lost.error = runtime::MeasureError::kWorkerCrash;
        lost.message = "the ranks measuring it were lost twice";
        done(*it, std::move(lost));
        ++answered;
        continue;
      }
      queue.push_front(*it);
      ++resent_;
    }
    held[rank].clear();
  };
  while (answered < schedules.size()) {
    if (live_ranks() == 0) {  // measure what is left here
      std::vector<size_t> left(queue.begin(), queue.end());
      std::vector<runtime::Schedule> rest;
      for (size_t i : left) rest.push_back(schedules[i]);
      local().measure_each(dag, rest, best_seconds, [&](size_t j, runtime::MeasureResult r) { done(left[j], std::move(r)); });
      return;
    }
    for (RankInfo& rank : ranks_) {
      if (rank.rank == 0 || !rank.alive || !held[rank.rank].empty() || queue.empty()) continue;
      const size_t share = (queue.size() + live_ranks() - 1) / static_cast<size_t>(live_ranks());
      const size_t take = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(rank.cores), share));
      std::vector<size_t> chunk;
      while (chunk.size() < take && !queue.empty()) {
        chunk.push_back(queue.front());
        queue.pop_front();
      }
      for (size_t i : chunk) {
        held[rank.rank].insert(i);
        ++sent_to[i];
      }
      nlohmann::json work = {{"type", "measure"}, {"batch", batch}, {"workload_key", dag.workload_key()},
                             {"best_seconds", best_seconds}, {"items", items(schedules, chunk)}};
      heard[rank.rank] = Clock::now();
      if (!comm_.send(rank.rank, work, options_.hang_timeout_s)) {
        lose(rank, "did not take work within " + std::to_string(int(options_.hang_timeout_s)) + " s");
        give_back(rank.rank);
      }
    }
    if (auto envelope = comm_.receive(-1, 0.05)) {
      const nlohmann::json& m = envelope->message;
      auto& holding = held[envelope->source];
      const size_t index = m.value("index", size_t{0});
      if (m.value("type", "") == "result" && m.value("batch", uint64_t{0}) == batch && holding.count(index)) {
        heard[envelope->source] = Clock::now();
        holding.erase(index);
        runtime::MeasureResult result = result_of(m);
        result.measured_by = ranks_[static_cast<size_t>(envelope->source)].name();
        if (result.median() > 0 && result.error == runtime::MeasureError::kNone) {
          best_seconds = best_seconds > 0 ? std::min(best_seconds, result.median()) : result.median();
        }
        done(index, std::move(result));
        ++answered;
      }
    }
    for (RankInfo& rank : ranks_) {
      if (rank.rank == 0 || !rank.alive || held[rank.rank].empty()) continue;
      if (since(heard[rank.rank]) > options_.hang_timeout_s) {
        lose(rank, "silent for " + std::to_string(int(options_.hang_timeout_s)) + " s with " +
                       std::to_string(held[rank.rank].size()) + " candidate(s); they are sent again");
        give_back(rank.rank);
      }
    }
  }
}

void RemoteMeasurer::retime(const schedule::ComputeDAG& dag, const std::vector<runtime::Schedule>& schedules,
                            int rounds, const runtime::ResultSink& done) {
  std::vector<size_t> all(schedules.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (RankInfo& rank : ranks_) {
    if (rank.rank == 0 || !rank.alive) continue;
    const uint64_t batch = ++batch_;
    nlohmann::json work = {{"type", "retime"}, {"batch", batch}, {"workload_key", dag.workload_key()},
                           {"rounds", rounds}, {"items", items(schedules, all)}};
    if (!comm_.send(rank.rank, work, options_.hang_timeout_s)) {
      lose(rank, "did not take work");
      continue;
    }
    // Results are held back until the rank has finished: a rank lost halfway leaves no half
    // comparison behind, the next one starts over.
    std::vector<std::pair<size_t, runtime::MeasureResult>> got;
    auto heard = Clock::now();
    bool finished = false;
    while (!finished && since(heard) <= options_.hang_timeout_s) {
      auto envelope = comm_.receive(rank.rank, 0.05);
      if (!envelope || envelope->message.value("batch", uint64_t{0}) != batch) continue;
      heard = Clock::now();
      const nlohmann::json& m = envelope->message;
      if (m.value("type", "") == "retimed") finished = true;
      else if (m.value("type", "") == "result" && m.value("index", size_t{0}) < schedules.size()) {
        got.emplace_back(m.value("index", size_t{0}), result_of(m));
      }
    }
    if (!finished) {
      lose(rank, "silent for " + std::to_string(int(options_.hang_timeout_s)) + " s while re-timing");
      continue;
    }
    for (auto& [i, result] : got) {
      result.measured_by = rank.name();
      done(i, std::move(result));
    }
    return;
  }
  local().retime(dag, schedules, rounds, done);
}

void RemoteMeasurer::stop_ranks(const std::string& reason) {
  if (stopped_) return;
  stopped_ = true;
  // Lost ranks are told too (briefly): one that was only slow, or is resumed, then ends
  // instead of keeping the job from finishing. After a rank was lost no rank finalizes MPI
  // (Comm::skip_finalize), and the message says so.
  bool lost = false;
  for (const RankInfo& rank : ranks_) lost |= rank.rank != 0 && !rank.alive;
  for (RankInfo& rank : ranks_) {
    if (rank.rank != 0) {
      comm_.send(rank.rank, {{"type", "stop"}, {"reason", reason}, {"peers_lost", lost}}, rank.alive ? 10 : 1);
    }
  }
  if (lost) comm_.skip_finalize();
}

}  // namespace tessera::mpi

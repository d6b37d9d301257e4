// RemoteMeasurer: rank 0's Measurer in an MPI job: a batch's candidates are built and timed by
// the other ranks (serve.h), each in its own isolated worker, and come back one by one.
//
// The batch is a queue: each idle rank is sent a chunk (at most its core count, and no more
// than its share of what is left), and gets the next chunk when it has answered the last, so
// a rank that draws slow candidates (a big conv's) simply takes fewer of them. A rank that is
// silent for `hang_timeout_s` while it holds work is declared lost: its unanswered candidates
// go back to the front of the queue (a candidate lost on two ranks becomes an error result, so
// a candidate that kills machines cannot stall the job) and the rank gets no more work. With
// no rank left, rank 0 measures the rest itself. Re-timing (TuningTask::retime) goes to one
// rank, so the fastest candidates are compared on one machine.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mpi/cluster.h"
#include "runtime/measurer.h"

namespace tessera::mpi {

struct RemoteOptions {
  double hang_timeout_s = 60;
  std::function<void(const std::string&)> log;  // lost ranks, fallbacks
  // Measures on rank 0 when no other rank is left (made on first need).
  std::function<std::shared_ptr<runtime::Measurer>()> make_local;
};

class RemoteMeasurer : public runtime::Measurer {
 public:
  RemoteMeasurer(Comm& comm, std::vector<RankInfo> ranks, RemoteOptions options)
      : comm_(comm), ranks_(std::move(ranks)), options_(std::move(options)) {}
  ~RemoteMeasurer() override;

  std::vector<runtime::MeasureResult> measure(const schedule::ComputeDAG& dag,
                                              const std::vector<runtime::Schedule>& schedules) override;
  void measure_each(const schedule::ComputeDAG& dag, const std::vector<runtime::Schedule>& schedules,
                    double best_seconds, const runtime::ResultSink& done) override;
  void retime(const schedule::ComputeDAG& dag, const std::vector<runtime::Schedule>& schedules, int rounds,
              const runtime::ResultSink& done) override;

  // Tells every rank still answering to stop (the destructor does it too).
  void stop_ranks(const std::string& reason = "done");
  const std::vector<RankInfo>& ranks() const { return ranks_; }
  int live_ranks() const;
  int candidates_resent() const { return resent_; }

 private:
  void lose(RankInfo& rank, const std::string& why);
  runtime::Measurer& local();

  Comm& comm_;
  std::vector<RankInfo> ranks_;  // [0] is this rank
  RemoteOptions options_;
  std::shared_ptr<runtime::Measurer> local_;
  uint64_t batch_ = 0;
  int resent_ = 0;
  bool stopped_ = false;
};

}  // namespace tessera::mpi

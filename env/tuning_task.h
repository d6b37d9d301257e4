// TuningTask: one operator's tuning problem as search agents see it.
//
// It owns the DAG's sketches (their knob spaces are the action space) and measures batches of
// candidates through the runtime's Builder (TBB, all cores) and isolated Runner (one kernel at
// a time), appends each result to the records file the moment it is measured (a killed run
// loses no finished measurement), skips candidates already measured and keeps the best. Before
// a best is reported, `retime` measures the fastest few again side by side, so that the one
// reported is not merely the luckiest single median. Agents never touch the builder or runner: they propose candidates and
// observe measurements here, so a replay simulator (TaskOptions::measurer) can stand in.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/builder.h"
#include "runtime/check.h"
#include "runtime/measurer.h"
#include "runtime/records.h"
#include "runtime/source_credit.h"
#include "schedule/sketch.h"

namespace tessera::env {

// A candidate's identity is (sketch, knobs); `source` is only who proposed it — a part of a
// search ("climb", "evolved", ...) or an agent's name — and is recorded with its measurement
// for credit. It takes no part in comparisons: the same schedule from two sources is one
// candidate, credited to the source that had it measured first.
struct Candidate {
  int sketch = 0;
  schedule::KnobValues knobs;
  std::string source{};
  bool operator<(const Candidate& o) const {
    return sketch != o.sketch ? sketch < o.sketch : knobs < o.knobs;
  }
  bool operator==(const Candidate& o) const { return sketch == o.sketch && knobs == o.knobs; }
};

struct Measurement {
  Candidate candidate;
  runtime::MeasureResult result;
  bool ok() const { return result.error == runtime::MeasureError::kNone; }
  double seconds() const { return result.median(); }
  // Calls per second; 0 for a failed candidate (what cost models learn from).
  double throughput() const { return ok() && seconds() > 0 ? 1.0 / seconds() : 0.0; }
};

struct TaskOptions {
  runtime::MeasureOptions measure;
  runtime::BuildOptions build;
  std::string records_path;  // empty: keep records in memory only
  // Where `retime` records its timings (a run's retimed.jsonl beside its records.jsonl, which
  // keeps one line per trial); empty: not recorded.
  std::string retimes_path;
  uint64_t seed = 1;         // inputs for correctness checks
  // Where the default measurer keeps the checks' reference values across runs (a run's
  // `checks/`, runtime/check_cache.h); empty: computed by every run.
  std::string checks_dir;
  bool measurable = true;    // false: sketches, candidates and features only (no reference
                             // inputs are prepared; measure() reports every candidate failed)
  // What measures the candidates; unset: a runtime::LocalMeasurer (this machine, with `build`,
  // `measure` and `seed`). Others: a runtime::ReplaySimulator, the GPU's, an MPI job's ranks.
  std::shared_ptr<runtime::Measurer> measurer;
  // The cuda target: GPU sketches (schedule/sketch_gpu.h), a GPU measurer (runtime/cuda/), and
  // records naming `target` (e.g. "cuda-sm_90") and the GPU in their hardware fingerprint.
  // Records timed with measure.cold_constants name "<target>+cold-constants"; a task restores
  // only records of its own target, so warm and cold times never meet in one search (and the
  // executor ranks cold ones first: runtime/record_bests.h).
  bool gpu = false;
  std::string target = "llvm-cpu";
  std::string gpu_fingerprint;
  // A new best within `confirm_within` of its nearest rival is no proof of a faster kernel: the
  // fastest of many near-equal single timings is the luckiest one (the winner's curse). Before
  // such a best stands, it and its `confirm_rivals` nearest rivals are timed again side by side,
  // `confirm_rounds` rounds, and each keeps the median of all its timings (0 rounds: off). The
  // best every caller sees (the allocator's estimate, its reward, the agents) is then a kernel's
  // time, not its luck; the timings join retimed.jsonl, which the executor ranks by.
  int confirm_rounds = 0;
  double confirm_within = 0.05;
  int confirm_rivals = 2;
  // Called after each new measurement has been recorded (e.g. to log the time spent with it).
  std::function<void(const Measurement&)> on_measured;
};

// One candidate re-timed beside the other fastest ones (TuningTask::retime).
struct Retimed {
  Candidate candidate;
  double search_seconds = 0;       // its median when first measured
  std::vector<double> costs;       // every repeat of every round, seconds per call
  runtime::MeasureError error = runtime::MeasureError::kNone;
  std::string message;
  bool ok() const { return error == runtime::MeasureError::kNone && !costs.empty(); }
  double seconds() const;          // median of costs
};

class TuningTask {
 public:
  static Result<std::unique_ptr<TuningTask>> create(schedule::ComputeDAG dag, TaskOptions options);

  const schedule::ComputeDAG& dag() const { return dag_; }
  const std::vector<schedule::Sketch>& sketches() const { return sketches_; }
  const schedule::Sketch& sketch(const Candidate& c) const { return sketches_[static_cast<size_t>(c.sketch)]; }

  // Builds and runs the candidates not measured before (in order), records them, and returns
  // their measurements; already measured ones are returned from memory.
  std::vector<Measurement> measure(const std::vector<Candidate>& candidates);

  // Takes back earlier measurements of this task (matching workload key, known sketch, valid
  // knobs and the steps those knobs emit now) without measuring or recording them again: the
  // unit of resume. Returns how many trials were restored; records of other tasks, or of another
  // target or timing, are ignored. Re-timings (source runtime::kRetimeSource, in any order among
  // them) join their trial's timings, divided by their `scale` as they were when made; a failed
  // one fails it.
  int restore(const std::vector<runtime::MeasureRecord>& records);
  // The target this task's records name (TaskOptions::target, and the timing when cold).
  std::string record_target() const;
  // Whether candidates are timed with their constants evicted (measure.cold_constants).
  bool cold_constants() const { return options_.measure.cold_constants; }

  // A uniformly sampled candidate: a random sketch (or `sketch`), then every knob.
  Candidate sample(std::mt19937_64& rng, int sketch = -1) const;

  // The candidate a record of this task describes (std::nullopt for another task, an unknown
  // sketch, knobs that do not fit it, or steps other than those the candidate emits now).
  std::optional<Candidate> candidate_of(const runtime::MeasureRecord& record) const;

  bool measured(const Candidate& c) const { return seen_.count(c) != 0; }
  // Every measurement so far (restored ones included), by candidate; a re-timed one holds all
  // its timings.
  const std::map<Candidate, Measurement>& measurements() const { return seen_; }
  int trials() const { return trials_; }
  const std::optional<Measurement>& best() const { return best_; }
  // Per proposing source: measured, improvements, best (restored measurements included, in
  // record order; Candidate::source, "unknown" where empty).
  const runtime::CreditBySource& credit() const { return credit_; }
  double best_gflops() const;

  // Re-times the `top` fastest correct candidates: `rounds` rounds in which each is measured
  // once more, in turn, in one worker (so drift and noise hit them alike). Returns them
  // fastest first by re-timed median, failures last. Each is recorded in
  // TaskOptions::retimes_path, with source runtime::kRetimeSource (a failure with its error, so
  // that neither a resumed task nor the executor takes it again): the network executor ranks
  // a schedule by all its timings (runtime/record_bests.h), so given the run directory it runs
  // the re-timed winner, not the luckiest first timing. records.jsonl stays one line per trial
  // for resume, proxy training and the replay simulator.
  // Their timings also join the candidates' measurements, divided by the re-timing's speed
  // against the same candidates' earlier timings (the lowest of their ratios, the record's
  // `scale`), and the best is chosen again: the order among the re-timed is the re-timing's, and
  // a re-timing on a slower minute cannot push all of them behind a never re-timed rival.
  // `Retimed::seconds()` stays the re-timing's own median.
  std::vector<Retimed> retime(int top, int rounds);
  // How many times a new best was confirmed (TaskOptions::confirm_rounds), and how many of those
  // found that it was not the fastest after all.
  int confirmations() const { return confirmations_; }
  int overturned() const { return overturned_; }
  // Warnings from writing records (the run goes on without them).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Seconds its measurer spent building and running (runtime::Measurer::phase_seconds).
  runtime::PhaseSeconds phase_seconds() const {
    return options_.measurer ? options_.measurer->phase_seconds() : runtime::PhaseSeconds{};
  }

 private:
  TuningTask(schedule::ComputeDAG dag, TaskOptions options);
  // The record of `c` measured as `result`: this task's workload, target and machine.
  runtime::MeasureRecord record_of(const Candidate& c, const runtime::MeasureResult& result) const;
  // Times `candidates` (measured, correct) again, `rounds` rounds in turn, records the timings in
  // retimed.jsonl, adds them to each one's measurement and chooses the best again.
  std::vector<Retimed> time_again(const std::vector<const Measurement*>& candidates, int rounds);
  // TaskOptions::confirm_rounds: re-times an unconfirmed best beside its near rivals.
  void confirm_best();
  // The fastest correct measurement (best_), chosen again after timings were added.
  void choose_best();

  schedule::ComputeDAG dag_;
  TaskOptions options_;
  std::vector<schedule::Sketch> sketches_;
  std::optional<runtime::RecordWriter> records_;
  std::optional<runtime::RecordWriter> retimes_;  // opened by the first `retime`
  std::map<Candidate, Measurement> seen_;
  std::optional<Measurement> best_;
  std::set<Candidate> retimed_;  // candidates timed again (a confirmed best is among them)
  int confirmations_ = 0, overturned_ = 0;
  runtime::CreditBySource credit_;
  int trials_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace tessera::env

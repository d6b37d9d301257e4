// Measuring candidates for agents (see tuning_task.h).
#include "env/tuning_task.h"

#include <algorithm>
#include <cmath>

#include "runtime/local_measurer.h"
#include "runtime/timing.h"
#include "schedule/sketch_gpu.h"
#include "schedule/step_json.h"

namespace tessera::env {

TuningTask::TuningTask(schedule::ComputeDAG dag, TaskOptions options)
    : dag_(std::move(dag)), options_(std::move(options)) {}

Result<std::unique_ptr<TuningTask>> TuningTask::create(schedule::ComputeDAG dag, TaskOptions options) {
  auto task = std::unique_ptr<TuningTask>(new TuningTask(std::move(dag), std::move(options)));
  task->sketches_ = task->options_.gpu ? schedule::generate_gpu_sketches(task->dag_)
                                       : schedule::generate_sketches(task->dag_);
  if (task->sketches_.empty()) return make_error(task->dag_.summary() + ": no sketch applies");
  if (task->options_.measurable) {
    if (!task->options_.measurer) {
      task->options_.measurer = std::make_shared<runtime::LocalMeasurer>(
          task->options_.build, task->options_.measure, task->options_.seed, runtime::RunnerOptions{},
          task->options_.checks_dir);
    }
    if (auto ready = task->options_.measurer->prepare(task->dag_); !ready) return ready.error();
  }
  if (!task->options_.records_path.empty()) {
    auto writer = runtime::RecordWriter::open(task->options_.records_path);
    if (!writer) return writer.error();
    task->records_.emplace(std::move(*writer));
  }
  return task;
}

std::vector<Measurement> TuningTask::measure(const std::vector<Candidate>& candidates) {
  std::vector<Candidate> fresh;
  for (const Candidate& c : candidates) {
    if (!seen_.count(c) && std::find_if(fresh.begin(), fresh.end(), [&](const Candidate& f) {
          return !(f < c) && !(c < f);
        }) == fresh.end()) {
      fresh.push_back(c);
    }
  }
  if (!options_.measurable) {
    std::vector<Measurement> refused;
    for (const Candidate& c : candidates) {
      runtime::MeasureResult r;
      r.error = runtime::MeasureError::kCompileError;
      r.message = "task created without measurement (TaskOptions::measurable = false)";
      refused.push_back({c, r});
    }
    return refused;
  }
  // Each result is recorded as soon as it exists: a kill between two candidates loses neither.
  auto keep = [&](const Candidate& c, runtime::MeasureResult result) {
    Measurement m{c, std::move(result)};
    ++trials_;
    if (m.ok() && (!best_ || m.seconds() < best_->seconds())) best_ = m;
    credit_.add(c.source, m.ok(), m.seconds());
    if (records_) {
      if (auto r = records_->append(record_of(c, m.result)); !r) warnings_.push_back(r.error().message);
    }
    const Measurement& kept = seen_.emplace(c, std::move(m)).first->second;
    if (options_.on_measured) options_.on_measured(kept);
  };
  std::vector<runtime::Schedule> schedules;
  for (const Candidate& c : fresh) schedules.push_back(sketch(c).steps(c.knobs));
  options_.measurer->measure_each(dag_, schedules, best_ ? best_->seconds() : 0.0,
                                  [&](size_t i, runtime::MeasureResult result) {
                                    if (i < fresh.size() && !seen_.count(fresh[i])) keep(fresh[i], std::move(result));
                                  });
  for (const Candidate& c : fresh) {  // a measurer that broke its contract: the candidate failed
    if (seen_.count(c)) continue;
    runtime::MeasureResult lost;
    lost.error = runtime::MeasureError::kRuntimeError;
    lost.message = "the measurer returned no result";
    keep(c, lost);
  }
  confirm_best();
  std::vector<Measurement> out;
  for (const Candidate& c : candidates) out.push_back(seen_.at(c));
  return out;
}

Candidate TuningTask::sample(std::mt19937_64& rng, int sketch) const {
  Candidate c;
  c.sketch = sketch >= 0 ? sketch
                         : static_cast<int>(std::uniform_int_distribution<size_t>(0, sketches_.size() - 1)(rng));
  c.knobs = sketches_[static_cast<size_t>(c.sketch)].knobs.sample(rng);
  return c;
}

std::optional<Candidate> TuningTask::candidate_of(const runtime::MeasureRecord& record) const {
  if (record.workload_key != dag_.workload_key()) return std::nullopt;
  for (size_t s = 0; s < sketches_.size(); ++s) {
    if (sketches_[s].id != record.sketch) continue;
    auto knobs = sketches_[s].knobs.from_json(record.knobs);
    if (!knobs) return std::nullopt;
    // A record describes the program it measured, not knob values: where the sketch now emits
    // other steps for the same knobs (a sketch rule changed since), the time is not this
    // candidate's.
    if (schedule::steps_to_json(sketches_[s].steps(*knobs)) != record.steps) return std::nullopt;
    return Candidate{static_cast<int>(s), *knobs};
  }
  return std::nullopt;
}

runtime::MeasureRecord TuningTask::record_of(const Candidate& c, const runtime::MeasureResult& result) const {
  const schedule::Sketch& s = sketch(c);
  auto record = runtime::make_record(dag_.workload_key(), dag_.summary(), s.id, schedule::steps_to_json(s.steps(c.knobs)),
                                     result, s.knobs.to_json(c.knobs));
  record.target = record_target();
  record.source = c.source;
  record.hardware.gpu = options_.gpu_fingerprint;
  return record;
}

std::string TuningTask::record_target() const {
  return options_.measure.cold_constants ? options_.target + runtime::kColdConstantsSuffix : options_.target;
}

namespace {

// A kernel that fails when timed again (a crash, a time-out, a wrong answer) is no candidate.
void fail_on_retime(Measurement& m, runtime::MeasureError error, const std::string& message) {
  m.result.error = error;
  m.result.message = "when timed again: " + message;
}

}  // namespace

int TuningTask::restore(const std::vector<runtime::MeasureRecord>& records) {
  int restored = 0;
  for (const runtime::MeasureRecord& r : records) {
    if (r.target != record_target() || r.source == runtime::kRetimeSource) continue;
    auto c = candidate_of(r);
    if (!c || seen_.count(*c)) continue;
    runtime::MeasureResult result;
    result.costs = r.costs;
    result.error = r.error;
    result.message = r.message;
    result.compile_seconds = r.compile_seconds;
    c->source = r.source;
    Measurement m{*c, result};
    credit_.add(r.source, m.ok(), m.seconds());
    seen_.emplace(*c, std::move(m));
    ++trials_;
    ++restored;
  }
  // Re-timings after all trials, wherever they stand in `records`: each needs its trial.
  for (const runtime::MeasureRecord& r : records) {
    if (r.target != record_target() || r.source != runtime::kRetimeSource) continue;
    auto c = candidate_of(r);
    auto known = c ? seen_.find(*c) : seen_.end();
    if (known == seen_.end() || !known->second.ok()) continue;
    retimed_.insert(*c);
    if (r.error != runtime::MeasureError::kNone) {
      fail_on_retime(known->second, r.error, r.message);
      continue;
    }
    const std::vector<double> comparable = r.comparable_costs();
    known->second.result.costs.insert(known->second.result.costs.end(), comparable.begin(), comparable.end());
  }
  choose_best();
  return restored;
}

void TuningTask::choose_best() {
  best_.reset();
  for (const auto& [c, m] : seen_) {
    if (m.ok() && (!best_ || m.seconds() < best_->seconds())) best_ = m;
  }
}

namespace {

// At most this many bests are confirmed in a row: when re-timing shows the new best slower than
// a rival never re-timed, that rival is the best, unconfirmed, and is timed again in turn.
constexpr int kConfirmPasses = 3;

bool faster(const Measurement* a, const Measurement* b) { return a->seconds() < b->seconds(); }

}  // namespace

void TuningTask::confirm_best() {
  if (options_.confirm_rounds <= 0 || !options_.measurable) return;
  for (int pass = 0; pass < kConfirmPasses && best_ && !retimed_.count(best_->candidate); ++pass) {
    const Measurement* best = &seen_.at(best_->candidate);
    const double within = best->seconds() * (1.0 + options_.confirm_within);
    std::vector<const Measurement*> rivals;
    for (const auto& [c, m] : seen_) {
      if (&m != best && m.ok() && m.seconds() <= within) rivals.push_back(&m);
    }
    if (rivals.empty()) return;  // a lead past the noise is not luck
    std::sort(rivals.begin(), rivals.end(), faster);
    rivals.resize(std::min(rivals.size(), static_cast<size_t>(std::max(options_.confirm_rivals, 1))));
    rivals.insert(rivals.begin(), best);
    const Candidate before = best->candidate;
    ++confirmations_;
    time_again(rivals, options_.confirm_rounds);
    if (!best_ || !(best_->candidate == before)) ++overturned_;
  }
}

double Retimed::seconds() const { return runtime::median(costs); }

std::vector<Retimed> TuningTask::retime(int top, int rounds) {
  std::vector<const Measurement*> fastest;
  for (const auto& [c, m] : seen_) {
    if (m.ok()) fastest.push_back(&m);
  }
  std::sort(fastest.begin(), fastest.end(), faster);
  fastest.resize(std::min(fastest.size(), static_cast<size_t>(std::max(top, 0))));
  return time_again(fastest, rounds);
}

std::vector<Retimed> TuningTask::time_again(const std::vector<const Measurement*>& chosen, int rounds) {
  std::vector<Retimed> out;
  std::vector<std::vector<schedule::Step>> schedules;
  for (const Measurement* m : chosen) {
    out.push_back({m->candidate, m->seconds(), {}, runtime::MeasureError::kNone, ""});
    schedules.push_back(sketch(m->candidate).steps(m->candidate.knobs));
  }
  if (out.empty() || !options_.measurable) return out;
  auto take = [](Retimed& r, const runtime::MeasureResult& result) {
    if (r.error != runtime::MeasureError::kNone) return;  // failed in an earlier round
    if (result.error != runtime::MeasureError::kNone) {
      r.error = result.error;
      r.message = result.message;
      r.costs.clear();
      return;
    }
    r.costs.insert(r.costs.end(), result.costs.begin(), result.costs.end());
  };
  options_.measurer->retime(dag_, schedules, rounds, [&](size_t i, runtime::MeasureResult result) {
    if (i < out.size()) take(out[i], result);
  });
  // The re-timing's speed against the earlier timings of the same schedules: the lowest of their
  // ratios. A ratio is the minute's speed over the luck of that schedule's earlier timings (the
  // re-timed were chosen for fast ones); the schedule timed least luckily reads the minute's
  // speed. Divided by it, the re-timings keep their side-by-side order and sit on the scale of
  // every other schedule's first timings, so a re-timing on a slow minute does not push the
  // re-timed behind schedules never re-timed (runtime::MeasureRecord::scale). A lucky one still
  // falls behind its rivals. One schedule alone: its earlier timings stand.
  double scale = INFINITY;
  for (const Retimed& r : out) {
    if (r.ok() && r.search_seconds > 0) scale = std::min(scale, r.seconds() / r.search_seconds);
  }
  if (!std::isfinite(scale) || scale <= 0) scale = 1;
  // The new timings join the records, so that whatever ranks schedules by their records (the
  // network executor: runtime/record_bests.h) sees them beside the first, luckiest-looking one.
  if (!retimes_ && !options_.retimes_path.empty()) {
    auto writer = runtime::RecordWriter::open(options_.retimes_path);
    if (writer) retimes_.emplace(std::move(*writer));
    else warnings_.push_back(writer.error().message);
  }
  for (const Retimed& r : out) {
    Measurement& m = seen_.at(r.candidate);
    retimed_.insert(r.candidate);
    runtime::MeasureResult result;
    if (r.ok()) {
      for (double c : r.costs) m.result.costs.push_back(c / scale);
      result.costs = r.costs;
    } else {  // a kernel that fails when run again is no candidate, now or after a resume
      fail_on_retime(m, r.error, r.message);
      result.error = r.error;
      result.message = r.message;
    }
    if (!retimes_) continue;
    runtime::MeasureRecord record = record_of(r.candidate, result);
    record.source = runtime::kRetimeSource;
    if (r.ok()) record.scale = scale;
    if (auto appended = retimes_->append(record); !appended) warnings_.push_back(appended.error().message);
  }
  choose_best();
  std::stable_sort(out.begin(), out.end(), [](const Retimed& a, const Retimed& b) {
    if (a.ok() != b.ok()) return a.ok();
    return a.ok() && a.seconds() < b.seconds();
  });
  return out;
}

double TuningTask::best_gflops() const {
  return best_ ? dag_.flop_count() / best_->seconds() * 1e-9 : 0.0;
}

}  // namespace tessera::env

// Measuring candidates for agents (see tuning_task.h).
#include "env/tuning_task.h"

#include <algorithm>

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
  if (task->options_.measurable && !task->options_.measurer) {
    auto check = runtime::make_measure_task(task->dag_, task->options_.seed);
    if (!check) return check.error();
    task->check_ = std::move(*check);
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
      const schedule::Sketch& s = sketch(c);
      auto steps = schedule::steps_to_json(s.steps(c.knobs));
      auto record = runtime::make_record(dag_.workload_key(), dag_.summary(), s.id, steps,
                                         m.result, s.knobs.to_json(c.knobs));
      record.target = options_.target;
      record.source = c.source;
      record.hardware.gpu = options_.gpu_fingerprint;
      if (auto r = records_->append(record); !r) warnings_.push_back(r.error().message);
    }
    const Measurement& kept = seen_.emplace(c, std::move(m)).first->second;
    if (options_.on_measured) options_.on_measured(kept);
  };
  if (options_.measurer) {
    std::vector<std::vector<schedule::Step>> schedules;
    for (const Candidate& c : fresh) schedules.push_back(sketch(c).steps(c.knobs));
    auto results = options_.measurer->measure(dag_, schedules);
    for (size_t i = 0; i < fresh.size(); ++i) keep(fresh[i], std::move(results[i]));
  } else {
    std::vector<runtime::BuildInput> inputs;
    for (const Candidate& c : fresh) inputs.push_back({&dag_, sketch(c).steps(c.knobs)});
    auto builds = runtime::build_batch(inputs, options_.build);
    for (size_t i = 0; i < fresh.size(); ++i) {
      // A candidate far slower than the best so far is timed once (MeasureOptions::give_up_ratio).
      runtime::MeasureOptions measure = options_.measure;
      if (best_ && measure.give_up_ratio > 0) measure.give_up_seconds = measure.give_up_ratio * best_->seconds();
      keep(fresh[i], runner_.measure(check_, builds[i], measure));
    }
  }
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
    return Candidate{static_cast<int>(s), *knobs};
  }
  return std::nullopt;
}

int TuningTask::restore(const std::vector<runtime::MeasureRecord>& records) {
  int restored = 0;
  for (const runtime::MeasureRecord& r : records) {
    auto c = candidate_of(r);
    if (!c || seen_.count(*c)) continue;
    runtime::MeasureResult result;
    result.costs = r.costs;
    result.error = r.error;
    result.message = r.message;
    result.compile_seconds = r.compile_seconds;
    c->source = r.source;
    Measurement m{*c, result};
    if (m.ok() && (!best_ || m.seconds() < best_->seconds())) best_ = m;
    credit_.add(r.source, m.ok(), m.seconds());
    seen_.emplace(*c, std::move(m));
    ++trials_;
    ++restored;
  }
  return restored;
}

double Retimed::seconds() const { return runtime::median(costs); }

std::vector<Retimed> TuningTask::retime(int top, int rounds) {
  std::vector<const Measurement*> fastest;
  for (const auto& [c, m] : seen_) {
    if (m.ok()) fastest.push_back(&m);
  }
  std::sort(fastest.begin(), fastest.end(),
            [](const Measurement* a, const Measurement* b) { return a->seconds() < b->seconds(); });
  fastest.resize(std::min(fastest.size(), static_cast<size_t>(std::max(top, 0))));
  std::vector<Retimed> out;
  std::vector<std::vector<schedule::Step>> schedules;
  for (const Measurement* m : fastest) {
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
  std::vector<runtime::BuildResult> builds;
  if (!options_.measurer) {
    std::vector<runtime::BuildInput> inputs;
    for (const auto& steps : schedules) inputs.push_back({&dag_, steps});
    builds = runtime::build_batch(inputs, options_.build);
  }
  for (int round = 0; round < rounds; ++round) {
    if (options_.measurer) {
      auto results = options_.measurer->measure(dag_, schedules);
      for (size_t i = 0; i < out.size(); ++i) take(out[i], results[i]);
      continue;
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].error != runtime::MeasureError::kNone) continue;
      take(out[i], runner_.measure(check_, builds[i], options_.measure));
    }
  }
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

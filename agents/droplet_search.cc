// Droplet search (see droplet_search.h).
#include "agents/droplet_search.h"

#include <set>

#include "agents/welch.h"

namespace tessera::agents {

void DropletSearch::open_neighbourhood(const env::TuningTask& task) {
  const schedule::KnobSpace& space = task.sketch(center_->candidate).knobs;
  std::set<schedule::KnobValues> seen{center_->candidate.knobs};
  for (size_t k = 0; k < space.size(); ++k) {
    std::vector<schedule::KnobValues> frontier{center_->candidate.knobs};
    for (int step = 1; step <= radius_; ++step) {
      std::vector<schedule::KnobValues> next;
      for (const auto& v : frontier) {
        for (auto& n : space.neighbours(v, k)) {
          if (seen.insert(n).second) next.push_back(n);
        }
      }
      if (step == radius_) {
        for (auto& v : next) {
          env::Candidate c{center_->candidate.sketch, v};
          if (!task.measured(c)) pending_.push_back(std::move(c));
        }
      }
      frontier = std::move(next);
    }
  }
  open_ = true;
}

void DropletSearch::close_neighbourhood(const env::TuningTask& task) {
  open_ = false;
  if (improvement_) {
    center_ = improvement_;
    improvement_.reset();
    radius_ = 1;
  } else if (++radius_ > max_radius_) {
    done_ = true;
    return;
  }
  open_neighbourhood(task);
}

std::vector<env::Candidate> DropletSearch::propose(const env::TuningTask& task, int count) {
  if (!center_) {
    if (!task.best()) return {};  // Droplet starts from a measured candidate
    center_ = task.best();
    open_neighbourhood(task);
  }
  while (pending_.empty() && !done_) close_neighbourhood(task);
  std::vector<env::Candidate> out;
  while (!pending_.empty() && static_cast<int>(out.size()) < count) {
    out.push_back(pending_.front());
    pending_.pop_front();
  }
  return out;
}

void DropletSearch::observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) {
  if (!center_) return;  // nothing proposed yet
  for (const env::Measurement& m : measured) {
    if (!m.ok() || m.seconds() >= center_->seconds()) continue;
    if (welch_p_less(m.result.costs, center_->result.costs) > p_value_) continue;
    if (!improvement_ || m.seconds() < improvement_->seconds()) improvement_ = m;
  }
  if (pending_.empty() && !done_) close_neighbourhood(task);
}

}  // namespace tessera::agents

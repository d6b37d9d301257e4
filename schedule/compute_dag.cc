// ComputeDAG construction, canonical text and workload key (see compute_dag.h).
#include "schedule/compute_dag.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <sstream>

#include "schedule/hash.h"

namespace tessera::schedule {

uint64_t fnv1a64(const std::string& text) { return fnv1a64(text.data(), text.size()); }

Result<ComputeDAG> ComputeDAG::make(std::string summary, std::vector<Tensor> inputs,
                                    std::vector<Tensor> outputs) {
  ComputeDAG dag;
  dag.summary_ = std::move(summary);
  dag.inputs_ = std::move(inputs);
  dag.outputs_ = std::move(outputs);
  if (dag.outputs_.empty()) return make_error(dag.summary_ + ": a DAG needs at least one output");

  // Depth-first post-order from the outputs gives a topological order.
  std::set<const TensorNode*> seen;
  std::function<void(const std::shared_ptr<const TensorNode>&)> visit =
      [&](const std::shared_ptr<const TensorNode>& t) {
        if (!seen.insert(t.get()).second) return;
        for (const auto& in : t->inputs) visit(in);
        dag.stages_.emplace_back(t);
      };
  for (const Tensor& out : dag.outputs_) visit(out.node());

  std::set<std::string> names;
  for (const Tensor& t : dag.stages_) {
    if (!names.insert(t->name).second) {
      return make_error(dag.summary_ + ": two stages are named '" + t->name + "'");
    }
    for (int64_t d : t->shape) {
      if (d <= 0) {
        return make_error(dag.summary_ + ": stage '" + t->name + "' has a non-positive extent " +
                          std::to_string(d));
      }
    }
    for (const Axis& r : t->reduce_axes) {
      if (r.extent <= 0) {
        return make_error(dag.summary_ + ": stage '" + t->name + "' has a non-positive reduction extent " +
                          std::to_string(r.extent));
      }
    }
    if (t->is_placeholder &&
        std::none_of(dag.inputs_.begin(), dag.inputs_.end(),
                     [&](const Tensor& in) { return in.node() == t.node(); })) {
      return make_error(dag.summary_ + ": placeholder '" + t->name + "' is not a declared input");
    }
  }
  for (const Tensor& in : dag.inputs_) {
    if (!in->is_placeholder) return make_error(dag.summary_ + ": input '" + in->name + "' is computed");
  }

  std::ostringstream text;
  for (const Tensor& t : dag.stages_) {
    text << t->name << "[";
    for (int64_t d : t->shape) text << d << ",";
    text << "]:" << dtype_name(t->dtype);
    if (t->is_placeholder) {
      text << ":input\n";
      continue;
    }
    for (const Axis& r : t->reduce_axes) text << " " << r.name << "<" << r.extent;
    text << " reduce=" << static_cast<int>(t->reduce);
    if (t->init.defined()) text << " init=" << to_string(t->init);
    text << " = " << to_string(t->body) << "\n";
  }
  for (const Tensor& out : dag.outputs_) text << "output " << out->name << "\n";
  dag.canonical_ = text.str();

  std::string op = dag.summary_.substr(0, dag.summary_.find(' '));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a64(dag.canonical_)));
  dag.workload_key_ = op + "-" + hex;
  return dag;
}

std::vector<Tensor> ComputeDAG::arguments() const {
  std::vector<Tensor> args = inputs_;
  args.insert(args.end(), outputs_.begin(), outputs_.end());
  return args;
}

int ComputeDAG::stage_index(const std::string& name) const {
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (stages_[i]->name == name) return static_cast<int>(i);
  }
  return -1;
}

bool ComputeDAG::is_output(const std::string& name) const {
  return std::any_of(outputs_.begin(), outputs_.end(),
                     [&](const Tensor& t) { return t->name == name; });
}

std::vector<int> ComputeDAG::consumers(const std::string& name) const {
  std::vector<int> result;
  for (size_t i = 0; i < stages_.size(); ++i) {
    for (const auto& in : stages_[i]->inputs) {
      if (in->name == name) {
        result.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return result;
}

double ComputeDAG::flop_count() const {
  double flops = 0;
  for (const Tensor& t : stages_) {
    if (t->is_placeholder) continue;
    double points = static_cast<double>(t.num_elements());
    if (t->reduce == ReduceKind::kNone) {
      flops += points;
      continue;
    }
    double taps = 1;
    for (const Axis& r : t->reduce_axes) taps *= static_cast<double>(r.extent);
    bool multiply_add = t->reduce == ReduceKind::kSum && t->body->kind == ExprKind::kMul;
    flops += points * taps * (multiply_add ? 2.0 : 1.0);
  }
  return flops;
}

double ComputeDAG::min_bytes() const {
  double bytes = 0;
  for (const Tensor& t : arguments()) {
    bytes += static_cast<double>(t.num_elements()) * static_cast<double>(dtype_bytes(t->dtype));
  }
  return bytes;
}

}  // namespace tessera::schedule

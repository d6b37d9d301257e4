// Fusion into tasks (see fuse.h): greedy grouping in topological order with a convexity
// check, then one ComputeDAG per group built with compute_node, then deduplication by
// workload key.
#include "graph/fuse.h"

#include <algorithm>
#include <map>
#include <set>

#include "graph/op_compute.h"
#include "schedule/collapse_pixels.h"

namespace tessera::graph {
namespace {

struct Group {
  std::vector<int> nodes;
  bool has_anchor = false;
  bool has_reduction = false;
};

class Partitioner {
 public:
  explicit Partitioner(const Graph& g) : g_(g), group_of_(g.nodes.size(), -1) {
    for (const std::string& o : g.outputs) graph_outputs_.insert(o);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const std::string& o : g.nodes[i].outputs) producer_[o] = static_cast<int>(i);
      for (const std::string& in : g.nodes[i].inputs) readers_[in].insert(static_cast<int>(i));
    }
  }

  std::vector<Group> run() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) place(static_cast<int>(i));
    return groups_;
  }
  const std::vector<int>& group_of() const { return group_of_; }

 private:
  // The node producing `tensor` (-1 for inputs and constants).
  int producer(const std::string& tensor) const {
    auto it = producer_.find(tensor);
    return it == producer_.end() ? -1 : it->second;
  }
  // Whether `tensor` is read by `node` alone and is not a graph output.
  bool only_read_by(const std::string& tensor, int node) const {
    auto it = readers_.find(tensor);
    return !graph_outputs_.count(tensor) && it != readers_.end() && it->second.size() == 1 &&
           *it->second.begin() == node;
  }
  // Whether node `n` depends (transitively) on any node of group `gid`.
  bool depends_on_group(int n, int gid) const {
    std::set<int> seen;
    std::vector<int> stack{n};
    while (!stack.empty()) {
      int cur = stack.back();
      stack.pop_back();
      if (group_of_[cur] == gid) return true;
      for (const std::string& in : g_.nodes[cur].inputs) {
        int p = producer(in);
        if (p >= 0 && seen.insert(p).second) stack.push_back(p);
      }
    }
    return false;
  }
  // Joining `node` to group `gid` keeps the group convex: no other input of `node` comes from
  // outside the group through a path that starts inside it.
  bool convex_with(int node, int gid) const {
    for (const std::string& in : g_.nodes[node].inputs) {
      int p = producer(in);
      if (p >= 0 && group_of_[p] != gid && depends_on_group(p, gid)) return false;
    }
    return true;
  }

  int candidate(int node) const {
    const Node& n = g_.nodes[node];
    const OpPattern pattern = op_pattern(n.op_type);
    for (const std::string& in : n.inputs) {
      const int p = in.empty() ? -1 : producer(in);
      if (p < 0) continue;
      const int gid = group_of_[p];
      const Group& group = groups_[gid];
      bool legal = false;
      if (pattern == OpPattern::kAnchor) {
        // An anchor takes in a producer group of injective/elementwise ops read only by it.
        legal = !group.has_anchor && !group.has_reduction && only_read_by(in, node);
      } else if (group.has_anchor) {
        legal = false;  // anchor groups grow only by absorb_epilogue
      } else {
        legal = true;
      }
      if (legal && convex_with(node, gid)) return gid;
    }
    return -1;
  }

  void place(int node) {
    if (group_of_[node] >= 0) return;  // absorbed into an anchor's epilogue already
    int gid = candidate(node);
    if (gid < 0) {
      gid = static_cast<int>(groups_.size());
      groups_.emplace_back();
    }
    add(node, gid);
    if (op_pattern(g_.nodes[node].op_type) == OpPattern::kAnchor)
      absorb_epilogue(gid, g_.nodes[node].outputs[0]);
  }

  void add(int node, int gid) {
    group_of_[node] = gid;
    Group& group = groups_[gid];
    group.nodes.push_back(node);
    const OpPattern pattern = op_pattern(g_.nodes[node].op_type);
    group.has_anchor |= pattern == OpPattern::kAnchor;
    group.has_reduction |= pattern == OpPattern::kReduction;
    std::sort(group.nodes.begin(), group.nodes.end());
  }

  // Tensors among `tensors` that something outside `region` reads (or that leave the graph).
  int open_count(const std::vector<std::string>& tensors, const std::set<int>& region) const {
    int open = 0;
    for (const std::string& t : tensors) {
      bool leaves = graph_outputs_.count(t) > 0;
      auto it = readers_.find(t);
      if (it != readers_.end()) {
        for (int r : it->second) leaves |= !region.count(r);
      }
      open += leaves;
    }
    return open;
  }

  // Grows an anchor group past its tip `tip` by elementwise/broadcast nodes of the tip's
  // shape: a chain (bias, relu, residual add) or a diamond that closes again (erf-GELU reads
  // its input twice), committed only where exactly one tensor leaves the region.
  void absorb_epilogue(int gid, std::string tip) {
    const TensorInfo* tip_info = g_.info(tip);
    if (!tip_info) return;
    const std::vector<int64_t> shape = tip_info->shape;
    for (;;) {
      std::vector<int> region;
      std::set<int> in_region;
      std::vector<std::string> tensors{tip};
      size_t best = 0;
      while (region.size() < 32) {
        int next = -1;
        for (const std::string& t : tensors) {
          auto it = readers_.find(t);
          if (it == readers_.end()) continue;
          for (int r : it->second) {
            if (!in_region.count(r) && (next < 0 || r < next)) next = r;
          }
        }
        if (next < 0 || group_of_[next] >= 0) break;
        const Node& n = g_.nodes[next];
        const OpPattern p = op_pattern(n.op_type);
        const TensorInfo* out = g_.info(n.outputs[0]);
        if ((p != OpPattern::kElemwise && p != OpPattern::kBroadcast) || !out ||
            out->shape != shape)
          break;
        group_of_[next] = gid;  // tentatively, for the convexity check
        const bool convex = convex_with(next, gid);
        group_of_[next] = -1;
        if (!convex) break;
        region.push_back(next);
        in_region.insert(next);
        group_of_[next] = gid;
        tensors.push_back(n.outputs[0]);
        if (open_count(tensors, in_region) == 1 && open_count({n.outputs[0]}, in_region) == 1)
          best = region.size();
      }
      for (int n : region) group_of_[n] = -1;
      if (best == 0) return;
      for (size_t i = 0; i < best; ++i) add(region[i], gid);
      tip = g_.nodes[region[best - 1]].outputs[0];
    }
  }

  const Graph& g_;
  std::vector<int> group_of_;
  std::vector<Group> groups_;
  std::set<std::string> graph_outputs_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::set<int>> readers_;
};

struct BuiltGroup {
  schedule::ComputeDAG dag;
  std::vector<std::string> ops;
  std::vector<bool> constant;
  TaskOccurrence occurrence;
};

Result<BuiltGroup> build_group(const Graph& g, const Group& group, const std::vector<int>& group_of,
                               int gid) {
  std::map<std::string, Operand> operands;
  std::vector<schedule::Tensor> inputs;
  BuiltGroup built;
  StageNamer names;
  int data_inputs = 0, weight_inputs = 0;
  std::set<std::string> graph_outputs(g.outputs.begin(), g.outputs.end());
  for (int index : group.nodes) {
    const Node& node = g.nodes[index];
    std::vector<Operand> in;
    for (const std::string& name : node.inputs) {
      if (name.empty()) {
        in.emplace_back();
        continue;
      }
      if (!operands.count(name)) {  // read from outside the group
        const bool constant = g.is_constant(name);
        const TensorInfo* info = g.info(name);
        if (!info) return g.node_error(node, "input '" + name + "' has no shape");
        if (constant && info->dtype == DType::kInt64) {
          operands[name] = Operand{};  // a shape or axes parameter, read from the graph
        } else if (constant && info->num_elements() == 1) {
          operands[name] = Operand{{}, g.constants.at(name).at(0)};
        } else {
          if (info->dtype != DType::kFloat32) {
            return g.node_error(node,
                                "int64 input '" + name + "' that does not fold to a constant");
          }
          if (info->shape.empty())
            return g.node_error(node, "scalar (rank-0) input '" + name + "' is not supported");
          std::string ph = constant ? "w" + std::to_string(weight_inputs++)
                                    : "in" + std::to_string(data_inputs++);
          names.reserve(ph);
          schedule::Tensor t = constant ? schedule::constant_input(ph, info->shape)
                                         : schedule::placeholder(ph, info->shape);
          operands[name] = Operand{t, {}};
          inputs.push_back(t);
          built.constant.push_back(constant);
          built.occurrence.inputs.push_back(name);
        }
      }
      in.push_back(operands[name]);
    }
    auto out = compute_node(node, in, g, names);
    if (!out) return out.error();
    operands[node.outputs[0]] = Operand{*out, {}};
    built.ops.push_back(node.op_type);
  }
  // Outputs: tensors of the group read outside it, or graph outputs.
  std::vector<schedule::Tensor> outputs;
  for (int index : group.nodes) {
    const std::string& name = g.nodes[index].outputs[0];
    bool external = graph_outputs.count(name) > 0;
    for (int reader : g.consumers(name)) external |= group_of[reader] != gid;
    if (!external) continue;
    outputs.push_back(operands[name].tensor);
    built.occurrence.outputs.push_back(name);
  }
  std::string ops;
  for (const std::string& op : built.ops) {
    std::string lower = op;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ops += (ops.empty() ? "" : "_") + lower;
  }
  if (ops.size() > 60) ops = ops.substr(0, 60);
  std::string summary = ops + " out=" + shape_text(outputs.front()->shape) + " in=";
  for (size_t i = 0; i < inputs.size(); ++i)
    summary += (i ? "," : "") + shape_text(inputs[i]->shape);
  auto dag = schedule::ComputeDAG::make(summary, inputs, outputs);
  if (!dag) return g.node_error(g.nodes[group.nodes.front()], dag.error().message);
  // A pointwise conv's task indexes its pixels as one axis (same buffers, whole vectors).
  built.dag = schedule::with_pixels_as_one_axis(std::move(*dag));
  built.occurrence.nodes = group.nodes;
  return built;
}

// Group indices in an order where every group comes after the groups it reads from.
Result<std::vector<int>> group_order(const Graph& g, const std::vector<Group>& groups,
                                     const std::vector<int>& group_of) {
  std::vector<std::set<int>> deps(groups.size());
  for (size_t gid = 0; gid < groups.size(); ++gid) {
    for (int n : groups[gid].nodes) {
      for (const std::string& in : g.nodes[n].inputs) {
        int p = in.empty() ? -1 : g.producer(in);
        if (p >= 0 && group_of[p] != static_cast<int>(gid)) deps[gid].insert(group_of[p]);
      }
    }
  }
  std::vector<int> order;
  std::vector<bool> done(groups.size(), false);
  while (order.size() < groups.size()) {
    bool progress = false;
    for (size_t gid = 0; gid < groups.size() && !progress; ++gid) {
      if (done[gid]) continue;
      if (std::all_of(deps[gid].begin(), deps[gid].end(), [&](int d) { return done[d]; })) {
        done[gid] = true;
        order.push_back(static_cast<int>(gid));
        progress = true;
      }
    }
    if (!progress)
      return make_error(g.source + ": fusion made groups that read each other (a bug)");
  }
  return order;
}

}  // namespace

Result<NetworkTasks> fuse(const Graph& graph) {
  for (const Node& node : graph.nodes) {
    if (op_pattern(node.op_type) == OpPattern::kOpaque)
      return graph.node_error(node, "unsupported operator");
    if (node.outputs.empty()) return graph.node_error(node, "a node without outputs");
  }
  Partitioner partitioner(graph);
  const std::vector<Group> groups = partitioner.run();
  const std::vector<int>& group_of = partitioner.group_of();
  NetworkTasks result;
  std::map<std::string, int> task_of_key;
  auto order = group_order(graph, groups, group_of);
  if (!order) return order.error();
  for (int gid : *order) {
    auto built = build_group(graph, groups[gid], group_of, gid);
    if (!built) return built.error();
    std::string key = built->dag.workload_key();
    for (bool c : built->constant) key += c ? "w" : "d";
    auto it = task_of_key.find(key);
    if (it == task_of_key.end()) {
      FusedTask task;
      task.name = "t" + std::to_string(result.tasks.size()) + "_" +
                  built->dag.summary().substr(0, built->dag.summary().find(' '));
      task.dag = built->dag;
      task.ops = built->ops;
      task.input_is_constant = built->constant;
      it = task_of_key.emplace(key, static_cast<int>(result.tasks.size())).first;
      result.tasks.push_back(std::move(task));
    }
    FusedTask& task = result.tasks[it->second];
    task.occurrences.push_back(built->occurrence);
    task.weight = static_cast<int>(task.occurrences.size());
    result.order.emplace_back(it->second, task.weight - 1);
  }
  return result;
}

}  // namespace tessera::graph

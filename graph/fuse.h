// Fusion of a folded graph into tasks, the way TVM's FuseOps partitions a network.
//
// Nodes are grouped in topological order: a conv/gemm/matmul anchor absorbs the elementwise
// and broadcast consumers of its output that keep its shape (bias, folded BN, relu/clip, a
// residual add, erf-GELU's diamond) as long as one tensor leaves them; an anchor may also take
// in a group of injective/elementwise producers read only by it; reductions (softmax, layer-norm's decomposition, pooling) and
// injective ops join their producers' anchor-free groups. At most one anchor per group, and
// every group stays convex (no path leaves it and comes back). Each group becomes a
// schedule::ComputeDAG (its pixel axes collapsed into one where every access allows it, as in a
// pointwise conv's task: schedule/collapse_pixels.h); groups with the same workload key (and the same constant inputs) are
// one task whose weight is its occurrence count. Each occurrence keeps the graph tensors bound
// to the DAG's inputs and outputs, so an executor can run the network task by task.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "schedule/compute_dag.h"
#include "schedule/result.h"

namespace tessera::graph {

// One place a task occurs in the network: which graph tensors its DAG reads and writes.
struct TaskOccurrence {
  std::vector<std::string> inputs;   // graph tensor per DAG input (dag.inputs() order)
  std::vector<std::string> outputs;  // graph tensor per DAG output (dag.outputs() order)
  std::vector<int> nodes;            // indices into Graph::nodes of the fused nodes
};

struct FusedTask {
  std::string name;  // unique in the network, e.g. "t3_conv_bias_add_relu"
  schedule::ComputeDAG dag;
  std::vector<std::string> ops;         // the fused ONNX op types, in order
  std::vector<bool> input_is_constant;  // per DAG input: a weight, ready for pre-packing
  int weight = 0;                       // occurrences in the network
  std::vector<TaskOccurrence> occurrences;
};

struct NetworkTasks {
  std::vector<FusedTask> tasks;
  // Every occurrence as (task index, occurrence index), in an order that respects data flow.
  std::vector<std::pair<int, int>> order;
};

// Partitions a folded graph (fold_constants) into tasks. Errors name the node and file.
Result<NetworkTasks> fuse(const Graph& graph);

}  // namespace tessera::graph

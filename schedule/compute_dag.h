// ComputeDAG: the stages of one operator (or fused subgraph) in topological order.
//
// It is the unit a Task tunes. Inputs (placeholders) and outputs fix the kernel's argument
// order: inputs first, then outputs. The workload key is a hash of a canonical text of every
// stage (names, shapes, axes, bodies), so it is stable across runs and machines and changes
// whenever the computation does; the summary beside it is for people ("matmul M=64 N=64 K=64").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/result.h"
#include "schedule/tensor.h"

namespace tessera::schedule {

class ComputeDAG {
 public:
  // `summary` names the operator and its shapes, e.g. "matmul M=64 N=64 K=64".
  static Result<ComputeDAG> make(std::string summary, std::vector<Tensor> inputs,
                                 std::vector<Tensor> outputs);

  const std::vector<Tensor>& stages() const { return stages_; }  // topological order
  const std::vector<Tensor>& inputs() const { return inputs_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }
  // Inputs then outputs: the kernel's buffer arguments.
  std::vector<Tensor> arguments() const;

  const std::string& summary() const { return summary_; }
  const std::string& workload_key() const { return workload_key_; }
  // The canonical text the key hashes.
  const std::string& canonical_text() const { return canonical_; }

  int stage_index(const std::string& name) const;  // -1 when absent
  bool is_output(const std::string& name) const;
  // Stages that read stage `name`.
  std::vector<int> consumers(const std::string& name) const;

  // Useful floating-point operations: 2 per multiply-add of a sum reduction whose term is a
  // product, 1 per other reduced term or computed element. Used for GFLOP/s.
  double flop_count() const;
  // Bytes that must move: every input read once and every output written once. Used for GB/s,
  // the measure of memory-bound ops (softmax, layer norm, elementwise).
  double min_bytes() const;

 private:
  std::string summary_;
  std::string workload_key_;
  std::string canonical_;
  std::vector<Tensor> stages_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> outputs_;
};

// 64-bit FNV-1a: a small, fixed hash (std::hash is allowed to differ between runs/builds).
uint64_t fnv1a64(const std::string& text);

}  // namespace tessera::schedule

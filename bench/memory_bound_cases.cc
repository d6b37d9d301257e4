// memory_bound_suite: softmax, layer_norm, gelu and add+relu tuned by an agent of the registry
// (TESSERA_AGENT, default harl; TESSERA_TRIALS, default 64) through the builder and isolated
// runner, the best few re-timed there, the fastest compiled here, checked against the reference
// and against LibTorch's output, then timed alternately with LibTorch's own kernel on one
// thread (libtorch_ops.h). One JSON line per op, in GB/s of bytes that must move (every input
// read once, every output written once: ComputeDAG::min_bytes) and GFLOP/s.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>

#include "agents/search_loop.h"
#include "bench/cases.h"
#include "bench/libtorch_ops.h"
#include "env/tuning_task.h"
#include "experiments/search_setup.h"
#include "runtime/fingerprint.h"
#include "runtime/parallel_runtime.h"
#include "schedule/lower.h"
#include "schedule/reference.h"

namespace tessera::bench {
namespace {

struct MemoryBoundOp {
  std::string name;
  TorchOp torch_op;
  std::vector<int64_t> shape;
};

// add + relu as one fused DAG (the add stage is inlined into the relu).
Result<schedule::ComputeDAG> add_relu(const std::vector<int64_t>& shape) {
  using namespace schedule;
  Tensor a = placeholder("A", shape), b = placeholder("B", shape);
  Tensor sum = compute("sum", shape, {a, b}, [&](const std::vector<Expr>& ax) { return a(ax) + b(ax); });
  Tensor y = compute("Y", shape, {sum}, [&](const std::vector<Expr>& ax) { return max(sum(ax), float_imm(0.0)); });
  std::string dims;
  for (int64_t d : shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
  return ComputeDAG::make("add_relu shape=" + dims, {a, b}, {y});
}

Result<schedule::ComputeDAG> make_dag(const MemoryBoundOp& op) {
  switch (op.torch_op) {
    case TorchOp::kSoftmax: return schedule::softmax(op.shape);
    case TorchOp::kLayerNorm: return schedule::layer_norm(op.shape);
    case TorchOp::kGelu: return schedule::elementwise(schedule::Elementwise::kGelu, op.shape);
    case TorchOp::kAddRelu: return add_relu(op.shape);
  }
  return make_error("unknown op");
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The agent's search, as `tessera tune` runs it; the fastest few re-timed side by side.
Result<std::vector<schedule::Step>> tune(const schedule::ComputeDAG& dag, const std::string& agent_name, int trials,
                            nlohmann::json& line) {
  env::TaskOptions options;
  options.measure.threads = 1;
  options.seed = 1;
  const char* dir = std::getenv("TESSERA_BENCH_RECORDS");
  std::filesystem::path records = dir ? dir : TESSERA_BINARY_DIR "/bench_records";
  std::filesystem::create_directories(records);
  records /= "memory_bound_" + agent_name + "_" + dag.workload_key() + ".jsonl";
  std::filesystem::remove(records);
  options.records_path = records.string();
  auto task = env::TuningTask::create(dag, options);
  if (!task) return task.error();
  experiments::SearchSpec spec{agent_name, {}};
  std::shared_ptr<env::CostModel> model;
  if (experiments::needs_cost_model(spec)) {
    auto made = experiments::make_cost_model(experiments::ProxySpec{}, 1);
    if (!made) return made.error();
    model = *made;
  }
  auto agent = experiments::make_agent(spec, 1, model);
  if (!agent) return agent.error();
  const auto start = std::chrono::steady_clock::now();
  env::TuningTask& t = **task;
  agents::StopRule stop;
  stop.trials = trials;
  agents::run_search_loop(**agent, t, stop, {.batch_size = 32}, [&](const agents::LoopProgress& p) {
    std::fprintf(stderr, "[%s %s] %d/%d trials, best %.2f GB/s\n", agent_name.c_str(), dag.summary().c_str(),
                 p.trials, trials, t.best() ? dag.min_bytes() / t.best()->seconds() * 1e-9 : 0.0);
    return true;
  });
  if (!t.best()) return make_error(agent_name + ": no candidate measured correctly");
  env::Candidate best = t.best()->candidate;
  auto retimed = t.retime(4, 3);
  if (!retimed.empty() && retimed[0].ok()) best = retimed[0].candidate;
  line["trials"] = t.trials();
  line["search_seconds"] = std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  line["best_sketch"] = t.sketch(best).id;
  line["best_knobs"] = t.sketch(best).knobs.to_json(best.knobs);
  line["sketches"] = t.sketches().size();
  return t.sketch(best).steps(best.knobs);
}

// For looking at where time goes: the best schedule's loop nest and optimized LLVM IR, written
// to DIR/<op>_<shape>.{nest,ll} when TESSERA_MEMORY_IR=DIR.
void dump_ir(const schedule::ComputeDAG& dag, const std::vector<schedule::Step>& steps, const std::string& dir) {
  schedule::State state(dag);
  if (!state.apply_all(steps)) return;
  auto func = schedule::lower(state, "bench_kernel");
  if (!func) return;
  runtime::CompileOptions options;
  options.keep_llvm_ir = true;
  auto kernel = runtime::compile_cpu(*func, options);
  if (!kernel) return;
  std::string base = dir + "/" + std::to_string(dag.outputs()[0].num_elements()) + "_" + dag.outputs()[0]->name;
  std::ofstream(base + ".nest") << schedule::to_string(*func);
  std::ofstream(base + ".ll") << kernel->llvm_ir();
}

nlohmann::json run_one(const MemoryBoundOp& op, const std::string& agent_name, int trials) {
  auto dag = make_dag(op);
  if (!dag) return error_json(dag.error().message);
  nlohmann::json line = {{"op", op.name}, {"shape", dag->summary()}, {"agent", agent_name}};
  auto steps = tune(*dag, agent_name, trials, line);
  if (!steps) return error_json(op.name + ": " + steps.error().message);
  runtime::set_num_threads(1);
  auto compiled = compile_and_check(*dag, *steps);
  if (!compiled) return error_json(op.name + ": " + compiled.error().message);
  if (const char* dir = std::getenv("TESSERA_MEMORY_IR")) dump_ir(*dag, *steps, dir);

  // The same inputs for both; both outputs must agree within the reference's tolerance.
  schedule::TensorValues values = schedule::random_inputs(*dag, 7);
  std::deque<runtime::AlignedBuffer> buffers;  // not movable: a deque never relocates them
  std::vector<float*> inputs;
  for (const auto& t : dag->inputs()) {
    buffers.emplace_back(t.num_elements());
    std::copy(values[t->name].begin(), values[t->name].end(), buffers.back().data());
    inputs.push_back(buffers.back().data());
  }
  const int64_t size = dag->outputs()[0].num_elements();
  runtime::AlignedBuffer ours_out(size), torch_out(size);
  std::vector<void*> args(inputs.begin(), inputs.end());
  args.push_back(ours_out.data());
  compiled->kernel->prepare_unchecked(args.data());  // constants packed at load, untimed
  auto ours = [&] { compiled->kernel->run_unchecked(args.data()); };
  TorchCall theirs = libtorch_op(op.torch_op, op.shape, inputs, torch_out.data());
  ours();
  theirs.run();
  theirs.publish();
  double worst = 0;
  for (int64_t i = 0; i < size; ++i) {
    worst = std::max<double>(worst, std::fabs(ours_out.data()[i] - torch_out.data()[i]) /
                                        (1.0 + std::fabs(torch_out.data()[i])));
  }
  if (!(worst <= schedule::tolerance_for(*dag))) {
    return error_json(op.name + ": Tessera and LibTorch disagree: max difference " + std::to_string(worst));
  }
  Medians m = time_alternately(ours, theirs.run);
  const double bytes = dag->min_bytes();
  auto round2 = [](double x) { return std::round(x * 100) / 100; };
  nlohmann::json result = result_json(dag->flop_count(), m, libtorch_op_name(op.torch_op), *compiled);
  result["tessera_gbps"] = round2(bytes / m.tessera_seconds * 1e-9);
  result["baseline_gbps"] = round2(bytes / m.baseline_seconds * 1e-9);
  result["ratio"] = std::round(m.baseline_seconds / m.tessera_seconds * 1000) / 1000;
  result["tessera_us"] = round2(m.tessera_seconds * 1e6);
  result["baseline_us"] = round2(m.baseline_seconds * 1e6);
  result["max_diff_vs_libtorch"] = worst;
  result["bytes"] = bytes;
  result["threads"] = 1;
  result["cpu"] = runtime::host_fingerprint().cpu_model;
  line.update(result);
  return line;
}

}  // namespace

nlohmann::json run_memory_bound_suite() {
  const std::string agent = env_or("TESSERA_AGENT", "harl");
  const int trials = std::atoi(env_or("TESSERA_TRIALS", "64").c_str());
  const std::vector<MemoryBoundOp> ops = {
      {"softmax", TorchOp::kSoftmax, {1536, 128}},       {"softmax", TorchOp::kSoftmax, {6144, 512}},
      {"layer_norm", TorchOp::kLayerNorm, {128, 768}},   {"layer_norm", TorchOp::kLayerNorm, {512, 1024}},
      {"gelu", TorchOp::kGelu, {128, 3072}},             {"add_relu", TorchOp::kAddRelu, {256, 4096}},
  };
  const std::string only = env_or("TESSERA_MEMORY_OPS", "");  // e.g. "softmax,gelu"
  nlohmann::json lines = nlohmann::json::array();
  for (const MemoryBoundOp& op : ops) {
    if (!only.empty() && ("," + only + ",").find("," + op.name + ",") == std::string::npos) continue;
    lines.push_back(run_one(op, agent, trials));
    std::fprintf(stderr, "%s\n", lines.back().dump().c_str());
  }
  return lines;
}

}  // namespace tessera::bench

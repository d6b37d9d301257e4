// The network executor (runtime/network_executor.h) on small models built in code: its
// outputs match graph::interpret on 1 and 2 threads, intermediates share buffers by lifetime,
// recorded schedules are used when they are this machine's and refused ones fall back to the
// default with a note, bad inputs are errors, a cache spares a rebuild its compiles, and checks
// kept in a directory are read back.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "graph/fold.h"
#include "graph/fuse.h"
#include "graph/interpret.h"
#include "graph/onnx/import.h"
#include "onnx_model_builder.h"
#include "runtime/check_cache.h"
#include "runtime/default_schedule.h"
#include "runtime/executor_cache.h"
#include "runtime/memory_plan.h"
#include "runtime/network_executor.h"
#include "runtime/records.h"
#include "schedule/ops.h"
#include "schedule/step_json.h"

namespace tessera::graph {
namespace {

using testing::ModelBuilder;

struct Loaded {
  Graph raw, folded;
  NetworkTasks tasks;
};

Loaded load(const std::string& bytes) {
  Loaded l;
  auto raw = import_onnx_bytes(bytes, "model.onnx");
  EXPECT_TRUE(raw.ok()) << (raw ? "" : raw.error().message);
  if (!raw) return l;
  l.raw = *raw;
  auto folded = fold_constants(l.raw);
  EXPECT_TRUE(folded.ok()) << (folded ? "" : folded.error().message);
  if (!folded) return l;
  l.folded = *folded;
  auto tasks = fuse(l.folded);
  EXPECT_TRUE(tasks.ok()) << (tasks ? "" : tasks.error().message);
  if (tasks) l.tasks = *tasks;
  return l;
}

std::map<std::string, std::vector<float>> random_inputs(const Graph& g) {
  std::map<std::string, std::vector<float>> inputs;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const std::string& name : g.inputs) {
    for (int64_t i = 0; i < g.info(name)->num_elements(); ++i) inputs[name].push_back(dist(rng));
  }
  return inputs;
}

// Runs the executor on `threads` and compares every graph output with the interpreter.
void expect_matches_interpreter(runtime::NetworkExecutor& executor, const Loaded& l, int threads) {
  const auto inputs = random_inputs(l.raw);
  auto expected = interpret(l.raw, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  auto outputs = executor.run(inputs, threads);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  for (const std::string& name : l.raw.outputs) {
    const auto& want = expected->at(name).data;
    const auto& got = outputs->at(name);
    ASSERT_EQ(got.size(), want.size()) << name;
    double scale = 0, error = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      scale = std::max(scale, std::abs(want[i]));
      error = std::max(error, std::abs(double(got[i]) - want[i]));
    }
    EXPECT_LE(error, 1e-4 * std::max(scale, 1.0)) << name << " on " << threads << " thread(s)";
  }
}

// x -> conv 3x3 -> relu -> conv -> sigmoid -> conv -> relu -> conv -> relu: four tasks in a chain.
std::string conv_chain(int channels = 8, int size = 12) {
  ModelBuilder b;
  b.input("x", {1, channels, size, size});
  std::string prev = "x";
  const char* activation[] = {"Relu", "Sigmoid", "Relu", "Relu"};
  for (int i = 0; i < 4; ++i) {
    const std::string w = "w" + std::to_string(i), c = "c" + std::to_string(i), a = "a" + std::to_string(i);
    b.weight(w, {channels, channels, 3, 3}, -0.3f, 0.3f);
    auto* conv = b.node("Conv", {prev, w}, {c});
    ModelBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
    b.node(activation[i], {c}, {a});
    prev = a;
  }
  b.output(prev);
  return b.bytes();
}

// A small CNN: conv + BatchNorm + relu, a residual conv + add + relu, pooling and a dense head.
std::string small_cnn() {
  ModelBuilder b;
  b.input("x", {1, 3, 16, 16});
  b.weight("w1", {8, 3, 3, 3});
  b.weight("b1", {8});
  b.weight("scale", {8}, 0.5f, 1.5f);
  b.weight("shift", {8});
  b.weight("mean", {8});
  b.weight("var", {8}, 0.5f, 1.5f);
  b.weight("w2", {8, 8, 3, 3}, -0.3f, 0.3f);
  b.weight("fc", {10, 8});
  b.weight("fcb", {10});
  ModelBuilder::attr(b.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("BatchNormalization", {"c1", "scale", "shift", "mean", "var"}, {"n1"});
  b.node("Relu", {"n1"}, {"r1"});
  ModelBuilder::attr(b.node("Conv", {"r1", "w2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Add", {"c2", "r1"}, {"s2"});
  b.node("Relu", {"s2"}, {"r2"});
  auto* pool = b.node("MaxPool", {"r2"}, {"p"});
  ModelBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  ModelBuilder::attr(pool, "strides", std::vector<int64_t>{2, 2});
  b.node("GlobalAveragePool", {"p"}, {"g"});
  b.node("Flatten", {"g"}, {"f"});
  ModelBuilder::attr(b.node("Gemm", {"f", "fc", "fcb"}, {"y"}), "transB", int64_t{1});
  b.output("y");
  return b.bytes();
}

// Attention-like: MatMul, Add, Softmax, MatMul with a LayerNormalization at the end (opset 17).
std::string small_attention() {
  ModelBuilder b(17, 8);
  b.input("x", {1, 16, 32});
  b.weight("wq", {32, 32}, -0.3f, 0.3f);
  b.weight("bq", {32});
  b.weight("gamma", {32}, 0.5f, 1.5f);
  b.weight("beta", {32});
  b.node("MatMul", {"x", "wq"}, {"q"});
  b.node("Add", {"q", "bq"}, {"qb"});
  auto* t = b.node("Transpose", {"x"}, {"xt"});
  ModelBuilder::attr(t, "perm", std::vector<int64_t>{0, 2, 1});
  b.node("MatMul", {"qb", "xt"}, {"s"});
  ModelBuilder::attr(b.node("Softmax", {"s"}, {"p"}), "axis", int64_t{-1});
  b.node("MatMul", {"p", "x"}, {"o"});
  b.node("Add", {"o", "x"}, {"h"});
  ModelBuilder::attr(b.node("LayerNormalization", {"h", "gamma", "beta"}, {"y"}), "axis", int64_t{-1});
  b.output("y");
  return b.bytes();
}

TEST(NetworkExecutor, SmallCnnMatchesInterpreterOnOneAndTwoThreads) {
  Loaded l = load(small_cnn());
  auto executor = runtime::NetworkExecutor::build(l.folded, l.tasks);
  ASSERT_TRUE(executor.ok()) << executor.error().message;
  EXPECT_EQ(executor->schedules(), "default");
  EXPECT_EQ(executor->kernel_calls(), static_cast<int64_t>(l.tasks.order.size()));
  for (const auto& r : executor->tasks()) {
    EXPECT_EQ(r.source, runtime::ScheduleSource::kDefault) << r.name << ": " << r.note;
    EXPECT_TRUE(r.note.empty()) << r.name << ": " << r.note;
  }
  expect_matches_interpreter(*executor, l, 1);
  expect_matches_interpreter(*executor, l, 2);
}

TEST(NetworkExecutor, AttentionBlockMatchesInterpreter) {
  Loaded l = load(small_attention());
  auto executor = runtime::NetworkExecutor::build(l.folded, l.tasks);
  ASSERT_TRUE(executor.ok()) << executor.error().message;
  expect_matches_interpreter(*executor, l, 1);
  expect_matches_interpreter(*executor, l, 2);
}

TEST(NetworkExecutor, ConvChainReusesIntermediateBuffers) {
  Loaded l = load(conv_chain());
  ASSERT_EQ(l.tasks.order.size(), 4u);
  auto executor = runtime::NetworkExecutor::build(l.folded, l.tasks);
  ASSERT_TRUE(executor.ok()) << executor.error().message;
  const runtime::MemoryPlan& plan = executor->memory_plan();
  // Three intermediates of 8x12x12 floats; the third reuses the first's buffer.
  EXPECT_EQ(plan.total_bytes, 3 * 8 * 12 * 12 * 4);
  EXPECT_EQ(plan.peak_bytes, 2 * 8 * 12 * 12 * 4);
  EXPECT_LT(plan.peak_bytes, plan.total_bytes);
  expect_matches_interpreter(*executor, l, 1);
  expect_matches_interpreter(*executor, l, 2);
}

TEST(NetworkExecutor, TimesEveryTaskOccurrence) {
  Loaded l = load(conv_chain());
  auto executor = runtime::NetworkExecutor::build(l.folded, l.tasks);
  ASSERT_TRUE(executor.ok()) << executor.error().message;
  executor->set_timing(true);
  const auto inputs = random_inputs(l.raw);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(executor->run(inputs).ok());
  int64_t calls = 0;
  for (const auto& t : executor->task_times()) {
    calls += t.calls;
    EXPECT_GT(t.seconds, 0);
  }
  EXPECT_EQ(calls, 3 * executor->kernel_calls());
  executor->reset_times();
  for (const auto& t : executor->task_times()) EXPECT_EQ(t.calls, 0);
}

TEST(NetworkExecutor, RefusesBadInputs) {
  Loaded l = load(conv_chain());
  auto executor = runtime::NetworkExecutor::build(l.folded, l.tasks);
  ASSERT_TRUE(executor.ok()) << executor.error().message;
  auto missing = executor->run({});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no value given for graph input 'x'"), std::string::npos);
  auto short_input = executor->run({{"x", std::vector<float>(5)}});
  ASSERT_FALSE(short_input.ok());
  EXPECT_NE(short_input.error().message.find("takes 1152 values, got 5"), std::string::npos);
}

// A records file with a correct record for one task and a refused schedule for another: the
// first is used, the second falls back to the default and says why.
TEST(NetworkExecutor, UsesRecordsAndFallsBackFromRefusedOnes) {
  Loaded l = load(small_cnn());
  ASSERT_GE(l.tasks.tasks.size(), 2u);
  const auto& good = l.tasks.tasks[0];
  const auto& bad = l.tasks.tasks[1];
  const auto choices = runtime::default_schedules(good.dag);
  ASSERT_GE(choices.size(), 2u);
  const std::string path = (std::filesystem::temp_directory_path() / "tessera_executor_records.jsonl").string();
  std::filesystem::remove(path);
  {
    auto writer = runtime::RecordWriter::open(path);
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    runtime::MeasureResult fast;
    fast.costs = {1e-6, 1e-6, 1e-6};
    // The unscheduled lowering, recorded as the fastest: records win over the default.
    ASSERT_TRUE(writer->append(runtime::make_record(good.dag.workload_key(), good.dag.summary(), "",
                                                     schedule::steps_to_json({}), fast)).ok());
    // A slower record of the same task does not win.
    runtime::MeasureResult slow;
    slow.costs = {1.0};
    ASSERT_TRUE(writer->append(runtime::make_record(good.dag.workload_key(), good.dag.summary(), choices[0].sketch,
                                                     schedule::steps_to_json(choices[0].steps), slow)).ok());
    // A step naming a loop the task does not have: compiling it fails.
    nlohmann::json refused = nlohmann::json::array(
        {{{"step", "split"}, {"stage", "no_such_stage"}, {"loop", "i"}, {"factors", {4}}}});
    ASSERT_TRUE(writer->append(runtime::make_record(bad.dag.workload_key(), bad.dag.summary(), "planted",
                                                     refused, fast)).ok());
  }
  runtime::ExecutorOptions options;
  options.records = path;
  auto executor = runtime::NetworkExecutor::build(l.folded, l.tasks, options);
  ASSERT_TRUE(executor.ok()) << executor.error().message;
  const auto& reports = executor->tasks();
  EXPECT_EQ(reports[0].source, runtime::ScheduleSource::kRecords);
  EXPECT_EQ(reports[0].sketch, "");
  EXPECT_TRUE(reports[0].note.empty()) << reports[0].note;
  EXPECT_EQ(reports[1].source, runtime::ScheduleSource::kDefault);
  EXPECT_NE(reports[1].note.find("the recorded schedule (sketch planted) failed (compile_error"), std::string::npos)
      << reports[1].note;
  EXPECT_EQ(executor->schedules(), "mixed");
  expect_matches_interpreter(*executor, l, 2);
  // A directory of records is read too; a missing path is an error.
  options.records = std::filesystem::temp_directory_path() / "tessera_no_such_records";
  EXPECT_FALSE(runtime::NetworkExecutor::build(l.folded, l.tasks, options).ok());
  std::filesystem::remove(path);
}

// With a cache, a second build compiles nothing and still runs right, and a build whose records
// give one task another schedule compiles that one alone. Fails if the cache is not consulted
// (every build compiles every task: a network tuning run rebuilt ResNet-50's 27 kernels at each
// measurement), or if objects are keyed by workload alone (the new schedule would be served the
// old schedule's kernel).
TEST(NetworkExecutor, ACacheCompilesEachScheduleOnce) {
  Loaded l = load(small_cnn());
  const size_t n = l.tasks.tasks.size();
  ASSERT_GE(n, 2u);
  runtime::ExecutorCache cache;
  runtime::ExecutorOptions options;
  options.cache = &cache;
  auto first = runtime::NetworkExecutor::build(l.folded, l.tasks, options);
  ASSERT_TRUE(first.ok()) << first.error().message;
  for (const auto& r : first->tasks()) EXPECT_GT(r.compile_seconds, 0) << r.name;
  EXPECT_EQ(cache.objects(), n);
  EXPECT_EQ(cache.references(), n);

  auto second = runtime::NetworkExecutor::build(l.folded, l.tasks, options);
  ASSERT_TRUE(second.ok()) << second.error().message;
  for (const auto& r : second->tasks()) EXPECT_EQ(r.compile_seconds, 0) << r.name;
  EXPECT_EQ(cache.objects(), n);
  expect_matches_interpreter(*second, l, 1);

  const auto& changed = l.tasks.tasks[0];
  const std::string path = (std::filesystem::temp_directory_path() / "tessera_executor_cache_records.jsonl").string();
  std::filesystem::remove(path);
  {
    auto writer = runtime::RecordWriter::open(path);
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    runtime::MeasureResult fast;
    fast.costs = {1e-6};
    ASSERT_TRUE(writer->append(runtime::make_record(changed.dag.workload_key(), changed.dag.summary(), "",
                                                     schedule::steps_to_json({}), fast)).ok());
  }
  options.records = path;
  auto third = runtime::NetworkExecutor::build(l.folded, l.tasks, options);
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third->tasks()[0].source, runtime::ScheduleSource::kRecords);
  EXPECT_GT(third->tasks()[0].compile_seconds, 0);
  for (size_t t = 1; t < n; ++t) EXPECT_EQ(third->tasks()[t].compile_seconds, 0) << third->tasks()[t].name;
  EXPECT_EQ(cache.objects(), n + 1);
  expect_matches_interpreter(*third, l, 1);
  std::filesystem::remove(path);
}

TEST(NetworkExecutor, KeepsItsKernelChecksInTheChecksDirectory) {
  // Fails if the executor does not pass `checks_dir` on (no files), or computes the references
  // again instead of reading them (the planted wrong values would go unseen).
  Loaded l = load(conv_chain());
  const auto dir = std::filesystem::temp_directory_path() / "tessera_executor_checks";
  std::filesystem::remove_all(dir);
  runtime::ExecutorOptions options;
  options.checks_dir = dir.string();
  auto first = runtime::NetworkExecutor::build(l.folded, l.tasks, options);
  ASSERT_TRUE(first.ok()) << first.error().message;
  for (const auto& task : l.tasks.tasks) {
    EXPECT_TRUE(std::filesystem::exists(runtime::checks_file(dir.string(), task.dag.workload_key(), options.check_seed,
                                                             options.check_points)))
        << task.name;
  }
  // The first task's stored reference made wrong, in a file that is otherwise valid.
  const auto& dag = l.tasks.tasks[0].dag;
  auto stored = runtime::make_measure_task(dag, options.check_seed, options.check_points, dir.string());
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  for (float& v : stored->checks[0].expected) v += 1000;
  const std::string path = runtime::checks_file(dir.string(), dag.workload_key(), options.check_seed, options.check_points);
  ASSERT_TRUE(runtime::save_checks(path, *stored, options.check_seed, options.check_points).ok());
  auto second = runtime::NetworkExecutor::build(l.folded, l.tasks, options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find(l.tasks.tasks[0].name), std::string::npos) << second.error().message;
  std::filesystem::remove_all(dir);
}

TEST(MemoryPlan, FirstFitReuseByLifetime) {
  // a -> b -> c, and d read with c at the end: a's buffer is free once b is written.
  std::vector<runtime::PlanStep> steps = {
      {{"in"}, {"a"}}, {{"a"}, {"b"}}, {{"b"}, {"c"}}, {{"c"}, {"d"}}, {{"c", "d"}, {"out"}}};
  std::map<std::string, int64_t> bytes = {{"a", 1000}, {"b", 640}, {"c", 500}, {"d", 64}};
  runtime::MemoryPlan plan = runtime::plan_memory(steps, bytes);
  EXPECT_EQ(plan.total_bytes, 1024 + 640 + 512 + 64);
  EXPECT_EQ(plan.buffer_of["c"], plan.buffer_of["a"]);  // a is dead by then and large enough
  EXPECT_EQ(plan.buffer_of["d"], plan.buffer_of["b"]);  // b is dead; a/c is still live
  EXPECT_EQ(plan.peak_bytes, 1024 + 640);
  EXPECT_EQ(plan.buffer_of.count("in") + plan.buffer_of.count("out"), 0u);
}

TEST(DefaultSchedule, EveryTaskOfTheSmallModelsHasARuleCandidateBeforeTheUnscheduledOne) {
  for (const std::string& bytes : {small_cnn(), small_attention(), conv_chain()}) {
    Loaded l = load(bytes);
    for (const auto& task : l.tasks.tasks) {
      const auto choices = runtime::default_schedules(task.dag);
      ASSERT_GE(choices.size(), 2u) << task.name;
      EXPECT_FALSE(choices.front().sketch.empty()) << task.name;
      EXPECT_TRUE(choices.back().steps.empty()) << task.name;
      EXPECT_EQ(runtime::default_schedules(task.dag).front().knobs, choices.front().knobs) << task.name;
    }
  }
}

// A matmul's panels packed in the call lead its defaults where its vector is whole (N = 1024,
// whose 4 KiB row stride they avoid), and not where it would be 8 lanes (N = 1000). Fails if
// packed_call sketches are ordered like the packed-at-load ones, or never first.
TEST(DefaultSchedule, MatmulPanelsLeadOnlyWithWholeVectors) {
  EXPECT_EQ(runtime::default_schedules(*schedule::matmul(1024, 1024, 1024)).front().sketch,
            "C:packed_call:tile_cache");
  EXPECT_EQ(runtime::default_schedules(*schedule::matmul(509, 1000, 777)).front().sketch.find(":packed"),
            std::string::npos);
}

// The rule's register block, read from a 1x1 conv's packed default: {vector lanes, rows}.
std::pair<int64_t, int64_t> packed_block(int64_t c, int64_t hw, int64_t k, int register_floats) {
  schedule::Conv2dParams p{1, c, hw, hw, k, 1, 1};
  p.layout = schedule::Layout::kNHWC;
  auto dag = schedule::conv2d_bias_relu(p);
  EXPECT_TRUE(dag.ok());
  if (!dag.ok()) return {0, 0};
  for (const auto& choice : runtime::default_schedules(*dag, runtime::CoreShape{register_floats})) {
    if (choice.sketch != "conv:packed:tile_fuse(Y)") continue;
    // NHWC: the knobs name the output's axes n, c, h, w in order, so conv.w is the channels.
    auto inner = [&](const char* knob) { return choice.knobs.at(knob).back().get<int64_t>(); };
    return {inner("conv.w"), inner("conv.c") * inner("conv.h")};
  }
  ADD_FAILURE() << "no packed default for " << dag->summary();
  return {0, 0};
}

// The block's accumulators fit the register file: on AVX2 8 of its 16 registers (a 16-lane
// vector by 4 rows, or one register by 7 rows where the rows, a 7x7 map, cannot shrink to 4);
// on AVX-512 28 of its 32 (a 32-lane vector by 14 rows, by 7 on the 7x7 map). Fails if the rule
// ignores the register width (16 x 8 on AVX2 spilled: 0.40 of oneDNN against 0.89 at 16 x 4 on
// a Zen 3), always narrows the vector to one register (8 x 8: 0.47), never does (16 x 7 on the
// 7x7 map: 0.52 against 0.78), or keeps AVX-512 at AVX2's 8 registers (16 x 8: 0.81 of oneDNN
// against 0.99 at 32 x 14 on an Intel Xeon).
TEST(DefaultSchedule, RegisterBlockFitsTheVectorRegisters) {
  EXPECT_EQ(packed_block(64, 56, 256, 16), std::make_pair(int64_t{32}, int64_t{14}));
  EXPECT_EQ(packed_block(64, 56, 256, 8), std::make_pair(int64_t{16}, int64_t{4}));
  EXPECT_EQ(packed_block(960, 7, 320, 16), std::make_pair(int64_t{32}, int64_t{7}));
  EXPECT_EQ(packed_block(960, 7, 320, 8), std::make_pair(int64_t{8}, int64_t{7}));
}

// Winograd's gemm ([16 transform points] x [49 pixel tiles] x [256 channels out], each point with
// weights of its own, 4 MB) on a 14x14 map: the default's tiles. On AVX2 (a 512 KiB L2) 49 has
// no divisor up to the 4 rows a 16-lane vector leaves, so the block would take 4 rows of points,
// each loading its own weights 256 KB apart; the pixel tiles take a ceil tile of 4 instead (13
// tiles, the last padded), all rows sharing one 16-lane vector. On AVX-512 (1 MiB) the pixel
// tiles take 7 rows and the rule keeps its 32 lanes by 7 by 2 points. The point tiles stay
// outermost. Fails if the block takes rows of points where pixel rows fit (ResNet-50's t18
// 40.6-41.7 ms an inference against 18.0-18.6, Zen 3) or keeps the one pixel row of 32 lanes
// where a ceil tile fits (16.8-19.7 ms against 11.0-13.6, Zen 3). With 256 KiB of L2 a point's
// 256 KB of weights passes half of it, and a tiled axis the weights depend on once kept the
// panels inside (AVX2, 16 x 4 points: 37.9-40.3 -> 32.7-33.4 ms); the 13 pixel tiles now read
// the panels 13 times (4.1 MB) against the 800 KB input's 16 (one per panel: 13 MB), so the
// count keeps the pixel tiles outside: fails if the count or the point tiles' place changes.
TEST(DefaultSchedule, WinogradGemmBlockAvoidsRowsOfPointsAndItsPanelsLeadWherePastL2) {
  schedule::Conv2dParams p{1, 256, 14, 14, 256, 3, 3};
  p.pad_h = p.pad_w = 1;
  p.layout = schedule::Layout::kNHWC;
  auto dag = schedule::conv2d_winograd(p);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  auto tiles = [&](const runtime::CoreShape& core, const char* knob) -> std::vector<int64_t> {
    for (const auto& choice : runtime::default_schedules(*dag, core)) {
      if (choice.knobs.contains(knob)) return choice.knobs.at(knob).get<std::vector<int64_t>>();
    }
    ADD_FAILURE() << "no Winograd gemm default";
    return {};
  };
  const runtime::CoreShape avx2{8, int64_t{512} << 10}, avx512{16, int64_t{1} << 20};
  EXPECT_EQ(tiles(avx2, "winograd_gemm.k"), (std::vector<int64_t>{16, 1, 1, 16}));
  EXPECT_EQ(tiles(avx2, "winograd_gemm.j"), (std::vector<int64_t>{13, 1, 1, 4}));
  EXPECT_EQ(tiles(avx2, "winograd_gemm.i"), (std::vector<int64_t>{16, 1, 1, 1}));
  EXPECT_EQ(tiles(avx512, "winograd_gemm.k"), (std::vector<int64_t>{8, 1, 1, 32}));
  EXPECT_EQ(tiles(avx512, "winograd_gemm.j"), (std::vector<int64_t>{7, 1, 1, 7}));
  EXPECT_EQ(tiles(avx512, "winograd_gemm.i"), (std::vector<int64_t>{8, 1, 1, 2}));
  // The same block with 256 KiB of L2: the pixel tiles stay outside the panels by the count.
  const runtime::CoreShape small_l2{8, int64_t{256} << 10};
  EXPECT_EQ(tiles(small_l2, "winograd_gemm.j"), (std::vector<int64_t>{13, 1, 1, 4}));
  EXPECT_EQ(tiles(small_l2, "winograd_gemm.i"), (std::vector<int64_t>{16, 1, 1, 1}));
}

// The packed conv default's outer tile levels for one conv on a core with `l2_bytes` of L2:
// {rows' outer extent at level 0, at level 1, the channel panels' outer extent at level 0}.
struct OuterTiles {
  int64_t rows_level0 = 0, rows_level1 = 0, panels_level0 = 0;
  bool operator==(const OuterTiles&) const = default;
};
OuterTiles packed_outer(schedule::Conv2dParams p, int64_t l2_bytes) {
  p.layout = schedule::Layout::kNHWC;
  auto dag = schedule::conv2d_bias_relu(p);
  EXPECT_TRUE(dag.ok());
  if (!dag.ok()) return {};
  for (const auto& choice : runtime::default_schedules(*dag, runtime::CoreShape{16, l2_bytes})) {
    if (choice.sketch != "conv:packed:tile_fuse(Y)") continue;
    // NHWC: conv.c and conv.h are the output's rows and columns, conv.w its channels.
    const auto& c = choice.knobs.at("conv.c");
    const auto& h = choice.knobs.at("conv.h");
    return {c[0].get<int64_t>() * h[0].get<int64_t>(), c[1].get<int64_t>() * h[1].get<int64_t>(),
            choice.knobs.at("conv.w")[0].get<int64_t>()};
  }
  ADD_FAILURE() << "no packed default for " << dag->summary();
  return {};
}

// Deep convs whose weights outgrow L2 run their channel panels outside the row tiles, so each
// panel is read once per call; shallow ones, and those whose input would then be re-read from
// beyond L2, keep rows outside. Fails if the rule never moves the rows (ResNet-50's 512 -> 512
// 3x3 conv at 7x7 re-read its 9.4 MB of weights 7 times a call: 111 GFLOP/s against 164 with
// panels outside, on an Intel Xeon), always moves them (the 56x56 conv's 0.8 MB input would be
// re-read per panel), or ignores the L2 size (the strided 1x1 conv's 800 KB input stays in a
// 2 MiB L2 but not in a Zen 3's 512 KiB, where panels outside lost 14%).
TEST(DefaultSchedule, PanelsLeadWhereTheirReReadsWouldCostMore) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  schedule::Conv2dParams deep{1, 512, 7, 7, 512, 3, 3};
  deep.pad_h = deep.pad_w = 1;
  EXPECT_EQ(packed_outer(deep, 2 * kMiB), (OuterTiles{1, 7, 16}));
  EXPECT_EQ(packed_outer(deep, kMiB / 2), (OuterTiles{1, 7, 16}));
  schedule::Conv2dParams shallow{1, 64, 56, 56, 64, 3, 3};
  shallow.pad_h = shallow.pad_w = 1;
  EXPECT_EQ(packed_outer(shallow, 2 * kMiB).rows_level1, 1);
  EXPECT_GT(packed_outer(shallow, 2 * kMiB).rows_level0, 1);
  schedule::Conv2dParams strided{1, 1024, 14, 14, 2048, 1, 1};
  strided.stride_h = strided.stride_w = 2;
  EXPECT_EQ(packed_outer(strided, 2 * kMiB), (OuterTiles{1, 7, 64}));
  EXPECT_EQ(packed_outer(strided, kMiB / 2), (OuterTiles{7, 1, 64}));
}

// The packed conv defaults' knobs for one conv on an AVX-512 core with a 2 MiB L2, in order.
std::vector<nlohmann::json> packed_defaults(schedule::Conv2dParams p, runtime::Constants constants) {
  p.layout = schedule::Layout::kNHWC;
  auto dag = schedule::conv2d_bias_relu(p);
  EXPECT_TRUE(dag.ok());
  if (!dag.ok()) return {};
  std::vector<nlohmann::json> knobs;
  for (const auto& choice : runtime::default_schedules(*dag, runtime::CoreShape{16, int64_t{2} << 20}, constants)) {
    if (choice.sketch == "conv:packed:tile_fuse(Y)") knobs.push_back(choice.knobs);
  }
  return knobs;
}

// The first of them, the one a network without records runs.
nlohmann::json packed_knobs(schedule::Conv2dParams p, runtime::Constants constants) {
  const std::vector<nlohmann::json> knobs = packed_defaults(p, constants);
  if (knobs.empty()) ADD_FAILURE() << "no packed default";
  return knobs.empty() ? nlohmann::json{} : knobs.front();
}

// A deep conv over a 7x7 plane whose weights come from memory tiles the whole plane (rows and
// columns at tile level 2, four 16-lane vectors of channels) with 8 reduction steps a pass, its
// channel tiles shared between threads; with cached weights, or over a 14x14 plane, or with
// weights that fit L2, it keeps the register block. Fails if the rule never tiles the plane
// (ResNet-50's 512 -> 512 3x3 at 7x7, weights evicted: 0.77 of oneDNN against 1.00-1.05 on an
// Intel Xeon), tiles it with cached weights (0.87 -> 0.80) or at 14x14 (10-30% slower), or
// caps the parallel loops below the panels' (the 7x7 convs, whose other outer loops have one
// iteration, would then run on one thread of many).
TEST(DefaultSchedule, WholePlaneTilesWhereWeightsStreamFromMemory) {
  using runtime::Constants;
  schedule::Conv2dParams deep{1, 512, 7, 7, 512, 3, 3};
  deep.pad_h = deep.pad_w = 1;
  const nlohmann::json plane = packed_knobs(deep, Constants::kFromMemory);
  EXPECT_EQ(plane.at("conv.c"), nlohmann::json({1, 1, 7, 1}));
  EXPECT_EQ(plane.at("conv.h"), nlohmann::json({1, 1, 7, 1}));
  EXPECT_EQ(plane.at("conv.w"), nlohmann::json({8, 1, 4, 16}));
  EXPECT_EQ(plane.at("conv.r2"), nlohmann::json({64, 8}));
  EXPECT_EQ(plane.at("conv.parallel"), 4);
  const nlohmann::json cached = packed_knobs(deep, Constants::kCached);
  EXPECT_EQ(cached.at("conv.c"), nlohmann::json({1, 7, 1, 1}));
  EXPECT_EQ(cached.at("conv.parallel"), 4);
  schedule::Conv2dParams wide{1, 256, 14, 14, 1024, 1, 1};
  EXPECT_EQ(packed_knobs(wide, Constants::kFromMemory).at("conv.h").back(), 14);
  schedule::Conv2dParams light{1, 64, 7, 7, 256, 1, 1};  // 64 KB of weights
  EXPECT_EQ(packed_knobs(light, Constants::kFromMemory).at("conv.h").back(), 7);
}

// Where the plane tile applies, the register block follows it as a second default, so a tuning
// run times both and starts from the one this machine runs faster; elsewhere there is one. Fails
// if the alternative is dropped (ResNet-50's 3x3 512 conv at 7x7 on an AMD EPYC Zen 5, cold
// constants: the register block ran 0.78-0.84 of the plane tile's time) or if it is added where
// it equals the first (a task would time the same kernel twice).
TEST(DefaultSchedule, TheRegisterBlockFollowsAPlaneTile) {
  using runtime::Constants;
  schedule::Conv2dParams deep{1, 512, 7, 7, 512, 3, 3};
  deep.pad_h = deep.pad_w = 1;
  const std::vector<nlohmann::json> from_memory = packed_defaults(deep, Constants::kFromMemory);
  ASSERT_EQ(from_memory.size(), 2u);
  EXPECT_EQ(from_memory[0].at("conv.c"), nlohmann::json({1, 1, 7, 1}));  // the plane, first
  EXPECT_EQ(from_memory[1], packed_knobs(deep, Constants::kCached));    // then the register block
  EXPECT_EQ(packed_defaults(deep, Constants::kCached).size(), 1u);
  schedule::Conv2dParams light{1, 64, 7, 7, 256, 1, 1};
  EXPECT_EQ(packed_defaults(light, Constants::kFromMemory).size(), 1u);
}

// A stride-2 conv over a vector's worth of channels or more keeps its zero padding inlined
// (the nest unswitched, schedule/padding_skip.h); a stride-1 conv and a 3-channel stem copy it
// at root. Fails if the rule inlines everywhere (ResNet-50's 64-channel 3x3 at 56x56, stride 1:
// 0.98 of oneDNN at root, 0.75-0.89 inlined; the 7x7 stem over 3 channels 0.93 -> 0.82, Intel
// Xeon) or nowhere (its stride-2 3x3 at 56x56: 0.89 at root, 0.96 inlined).
TEST(DefaultSchedule, StridedConvsKeepTheirPaddingInlined) {
  using runtime::Constants;
  schedule::Conv2dParams strided{1, 128, 56, 56, 128, 3, 3};
  strided.stride_h = strided.stride_w = 2;
  strided.pad_h = strided.pad_w = 1;
  schedule::Conv2dParams unit_stride{1, 64, 56, 56, 64, 3, 3};
  unit_stride.pad_h = unit_stride.pad_w = 1;
  schedule::Conv2dParams stem{1, 3, 224, 224, 64, 7, 7};
  stem.stride_h = stem.stride_w = 2;
  stem.pad_h = stem.pad_w = 3;
  for (Constants constants : {Constants::kCached, Constants::kFromMemory}) {
    EXPECT_EQ(packed_knobs(strided, constants).at("conv.producers_at_root"), 0);
    EXPECT_EQ(packed_knobs(unit_stride, constants).at("conv.producers_at_root"), 1);
    EXPECT_EQ(packed_knobs(stem, constants).at("conv.producers_at_root"), 1);
  }
}

// A row-wise op's first default is the row sketch, its vector 16 lanes and its partial sums one
// register of the machine. Fails if the per-stage sketches come first again (BERT's softmax,
// 1536 rows of 128, ran 2.8x slower that way on a Zen 3, its layer norm 2x) or if the row
// sketch's choices stay at their first value (4 lanes).
TEST(DefaultSchedule, RowOpsRunAsRows) {
  auto softmax = schedule::softmax({1536, 128});
  auto norm = schedule::layer_norm({128, 768});
  ASSERT_TRUE(softmax.ok() && norm.ok());
  for (int register_floats : {8, 16}) {
    for (const auto& [dag, name] : {std::pair{&*softmax, "softmax"}, std::pair{&*norm, "layer_norm"}}) {
      const auto choices = runtime::default_schedules(*dag, runtime::CoreShape{register_floats});
      ASSERT_FALSE(choices.empty());
      EXPECT_EQ(choices[0].sketch, std::string(name) + ":rows");
      EXPECT_EQ(choices[0].knobs.value(std::string(name) + ".vector", 0), 16);
      EXPECT_EQ(choices[0].knobs.value(std::string(name) + ".accumulate", 0), register_floats);
    }
  }
}

}  // namespace
}  // namespace tessera::graph

// Layouts and constants packed at load, compiled and compared with the reference: blocked
// layouts of attached and root stages (dividing and padded blocks), the packed tiling sketch of
// convolutions (stride 1 and 2, 1x1, fused epilogue, depthwise with its input stored NCHW16c;
// none for grouped ones), dense layers and matmuls (panels packed in the call), the packing run
// once at load rather than in each call, and hot loops without strided reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>

#include "jit_test_util.h"
#include "schedule/ops.h"
#include "schedule/simplify.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

TEST(JitLayout, BlockedRootAndAttachedLayoutsCompute) {
  // K = 20 is padded to two blocks of 16; the accumulator tile is stored transposed.
  auto dag = dense_bias(12, 20, 9);
  ASSERT_TRUE(dag.ok());
  std::vector<Step> steps{
      CacheReadStep{"W", "dense", "global"},
      LayoutStep{"W.local", {"0/16", "1", "0%16"}},
      CacheWriteStep{"dense", "local"},
      LayoutStep{"dense.local", {"1", "0"}},
      SplitStep{"dense", "i", {4}},
      ComputeAtStep{"dense.local", "dense", "i.0"},
  };
  EXPECT_TRUE(MatchesReference(*dag, steps));
  steps.push_back(PackStep{"W.local"});
  EXPECT_TRUE(MatchesReference(*dag, steps));
}

// Every packed sketch of `dag`, with `samples` random knob settings each, equals the reference.
void expect_packed_sketches_match(const ComputeDAG& dag, int samples) {
  std::mt19937_64 rng(7);
  int packed = 0;
  for (const Sketch& sketch : generate_sketches(dag)) {
    if (sketch.id.find(":packed") == std::string::npos) continue;
    ++packed;
    for (int i = 0; i < samples; ++i) {
      KnobValues values = sketch.knobs.sample(rng);
      EXPECT_TRUE(MatchesReference(dag, sketch.steps(values))) << sketch.id;
    }
  }
  EXPECT_EQ(packed, 1) << dag.summary() << ": expected one packed sketch";
}

TEST(JitLayout, PackedSketchOfConvolutions) {
  Conv2dParams base{1, 16, 9, 9, 32, 3, 3};
  base.pad_h = base.pad_w = 1;
  Conv2dParams stride2 = base;
  stride2.stride_h = stride2.stride_w = 2;
  Conv2dParams grouped = base;
  grouped.groups = 4;
  Conv2dParams depthwise = base;
  depthwise.out_channels = depthwise.groups = 16;
  Conv2dParams pointwise{1, 24, 7, 5, 40, 1, 1};
  Conv2dParams depthwise_unpadded = depthwise;
  depthwise_unpadded.pad_h = depthwise_unpadded.pad_w = 0;
  depthwise_unpadded.stride_h = 2;
  for (const Conv2dParams& p : {base, stride2, pointwise, depthwise, depthwise_unpadded}) {
    auto dag = conv2d(p);
    ASSERT_TRUE(dag.ok());
    expect_packed_sketches_match(*dag, 4);
  }
  // A channel group follows the output channel by a division: a vector of them would gather.
  for (const Conv2dParams& p : {grouped}) {
    auto dag = conv2d(p);
    ASSERT_TRUE(dag.ok());
    for (const Sketch& s : generate_sketches(*dag)) {
      EXPECT_EQ(s.id.find(":packed"), std::string::npos) << dag->summary() << ": " << s.id;
    }
  }
  auto fused = conv2d_bias_relu(stride2);
  ASSERT_TRUE(fused.ok());
  expect_packed_sketches_match(*fused, 4);
}

TEST(JitLayout, PackedSketchOfDenseLayers) {
  for (auto [m, n, k] : {std::tuple{8, 48, 20}, {5, 24, 7}}) {
    auto dense = dense_bias(m, n, k);
    ASSERT_TRUE(dense.ok());
    expect_packed_sketches_match(*dense, 4);
    auto gelu = dense_bias_gelu(m, n, k);
    ASSERT_TRUE(gelu.ok());
    expect_packed_sketches_match(*gelu, 4);
  }
}

// A matmul reads no constant: its panels are packed in every call. Dividing, padded (13, 40 and
// 9 rows) and one-row shapes; fails on a panel copy that loses or misplaces values.
TEST(JitLayout, PackedInTheCallSketchOfMatmuls) {
  for (auto [m, n, k] : {std::tuple{16, 48, 20}, {13, 40, 9}, {1, 64, 7}}) {
    auto dag = matmul(m, n, k);
    ASSERT_TRUE(dag.ok());
    expect_packed_sketches_match(*dag, 6);
  }
}

const Sketch& packed_sketch(const std::vector<Sketch>& sketches) {
  for (const Sketch& s : sketches) {
    if (s.id.find(":packed") != std::string::npos) return s;
  }
  ADD_FAILURE() << "no packed sketch";
  return sketches.front();
}

// Knob values of `sketch`: for each knob, the last domain value `want(knob name, factors)`
// accepts, else its first.
KnobValues values_where(const Sketch& sketch,
                        const std::function<bool(const std::string&, const std::vector<int64_t>&)>& want) {
  KnobValues values(sketch.knobs.size(), 0);
  for (size_t k = 0; k < sketch.knobs.size(); ++k) {
    const Knob& knob = sketch.knobs.knobs()[k];
    for (size_t i = 0; i < knob.domain.size(); ++i) {
      if (want(knob.name, knob.domain[i])) values[k] = static_cast<int>(i);
    }
  }
  return values;
}

// A packed stride-2 convolution: a 16-lane output-channel vector with 4 output pixels per tile.
Result<LoweredFunc> packed_stride2_conv(const ComputeDAG& dag) {
  const std::vector<Sketch> sketches = generate_sketches(dag);
  const Sketch& sketch = packed_sketch(sketches);
  KnobValues values = values_where(sketch, [](const std::string& name, const std::vector<int64_t>& f) {
    return name == "conv.c"                  ? f.back() == 16 && f[2] == 1
           : name == "conv.w"                ? f.back() == 4 && f[2] == 1
           : name == "conv.producers_at_root" ? f[0] == 1
           : name == "conv.unroll"           ? f[0] == 512
                                             : false;
  });
  auto state = apply_candidate(dag, sketch, values);
  if (!state) return state.error();
  return lower(*state, "kernel");
}

// The same for a padded (1) 3x3 stride-2 convolution of `channels` x size x size into
// `out_channels`: its zero padding is computed at root.
Result<LoweredFunc> packed_stride2_conv(int64_t channels, int64_t size, int64_t out_channels) {
  Conv2dParams p{1, channels, size, size, out_channels, 3, 3};
  p.pad_h = p.pad_w = 1;
  p.stride_h = p.stride_w = 2;
  auto dag = conv2d(p);
  if (!dag.ok()) return dag.error();
  return packed_stride2_conv(*dag);
}

TEST(JitLayout, PackingRunsOnceAtLoadNotInEachCall) {
  auto func = packed_stride2_conv(8, 8, 16);
  ASSERT_TRUE(func.ok()) << func.error().message;
  ASSERT_EQ(func->packed.size(), 1u);
  EXPECT_EQ(func->packed[0].name, "W.local");
  auto kernel = runtime::compile_cpu(*func);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;

  const auto& args = kernel->arguments();  // X, W, conv
  std::vector<std::unique_ptr<runtime::AlignedBuffer>> buffers;
  std::vector<float*> pointers;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-1, 1);
  for (const auto& a : args) {
    buffers.push_back(std::make_unique<runtime::AlignedBuffer>(static_cast<size_t>(a.size)));
    for (int64_t i = 0; i < a.size; ++i) buffers.back()->data()[i] = value(rng);
    pointers.push_back(buffers.back()->data());
  }
  ASSERT_TRUE(kernel->run(pointers).ok());
  const size_t out = args.size() - 1;
  std::vector<float> first(pointers[out], pointers[out] + args[out].size);
  // New weights: a call without prepare still computes with the packed old ones...
  for (int64_t i = 0; i < args[1].size; ++i) pointers[1][i] *= 2;
  std::vector<void*> raw(pointers.begin(), pointers.end());
  kernel->run_unchecked(raw.data());
  EXPECT_EQ(std::vector<float>(pointers[out], pointers[out] + args[out].size), first)
      << "the kernel read the weights in the call instead of the buffer packed at load";
  // ...and after prepare with the new ones (a linear op in W: twice the output).
  kernel->prepare_unchecked(raw.data());
  kernel->run_unchecked(raw.data());
  for (int64_t i = 0; i < args[out].size; ++i) {
    ASSERT_NEAR(pointers[out][i], 2 * first[static_cast<size_t>(i)], 1e-4) << "element " << i;
  }
}

// Loads in vectorized loops of the reduction that reads `packed`: each is contiguous (stride 1)
// or uniform (stride 0) across the lanes; nothing there is a gather.
void expect_unit_stride_hot_loop(const Stmt& body, const std::string& packed) {
  int hot_loops = 0;
  visit(body, [&](const StmtNode& loop) {
    if (loop.kind != StmtKind::kFor || loop.for_kind != ForKind::kVectorized) return;
    visit(loop.body, [&](const StmtNode& store) {
      if (store.kind != StmtKind::kStore) return;
      std::vector<Expr> loads;
      std::function<void(const Expr&)> collect = [&](const Expr& e) {
        if (e->kind == ExprKind::kLoad) loads.push_back(e);
        for (const Expr& o : e->operands) collect(o);
      };
      collect(store.value);
      bool hot = std::any_of(loads.begin(), loads.end(), [&](const Expr& l) { return l->name == packed; });
      if (!hot) return;
      ++hot_loops;
      for (const Expr& l : loads) {
        int64_t stride = -1;
        bool linear = linear_coefficient(l->operands[0], loop.loop_var.get(), &stride);
        EXPECT_TRUE(linear && (stride == 0 || stride == 1))
            << l->name << " is read with stride " << stride << " across the lanes";
      }
    });
  });
  EXPECT_GE(hot_loops, 1) << "no vectorized loop reads " << packed;
}

TEST(JitLayout, PackedConvolutionHotLoopIsUnitStride) {
  auto func = packed_stride2_conv(8, 12, 32);
  ASSERT_TRUE(func.ok()) << func.error().message;
  // Stride 2 over the input is a broadcast per output pixel; the packed weights are contiguous.
  expect_unit_stride_hot_loop(func->body, "W.local");
  runtime::CompileOptions options;
  options.keep_llvm_ir = true;
  auto object = runtime::compile_object(*func, options);
  ASSERT_TRUE(object.ok()) << object.error().message;
  EXPECT_NE(object->llvm_ir.find("<16 x float>"), std::string::npos) << "no 16-lane vector code";
}

// The zero padding computed at root by the packed sketch is copied by vector loops. Fails if
// the copy is left a scalar loop (a branch per element: 3-5% of a 3x3 convolution's time on Zen 4).
TEST(JitLayout, PaddingAtRootIsCopiedInVectors) {
  auto func = packed_stride2_conv(8, 12, 32);
  ASSERT_TRUE(func.ok()) << func.error().message;
  int vector_stores = 0;
  visit(func->body, [&](const StmtNode& loop) {
    if (loop.kind != StmtKind::kFor || loop.for_kind != ForKind::kVectorized) return;
    visit(loop.body, [&](const StmtNode& store) {
      if (store.kind == StmtKind::kStore && store.buffer == "pad") ++vector_stores;
    });
  });
  EXPECT_GT(vector_stores, 0) << to_string(*func);
}

TEST(JitLayout, PackedDepthwiseHotLoopIsUnitStride) {
  Conv2dParams p{1, 32, 10, 10, 32, 3, 3};
  p.pad_h = p.pad_w = 1;
  p.groups = 32;
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok());
  const std::vector<Sketch> sketches = generate_sketches(*dag);
  const Sketch& sketch = packed_sketch(sketches);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 6; ++i) {
    KnobValues values = sketch.knobs.sample(rng);
    auto state = apply_candidate(*dag, sketch, values);
    ASSERT_TRUE(state.ok()) << state.error().message;
    auto func = lower(*state, "kernel");
    ASSERT_TRUE(func.ok()) << func.error().message;
    // Both the packed weights and the padded input (stored NCHW16c) are contiguous vectors.
    expect_unit_stride_hot_loop(func->body, "W.local");
  }
}

// In the hot loop of a matmul packed in the call, consecutive k read B's panel `lanes` apart and
// A's panel `rows` apart: each panel streams. Fails if a panel keeps the input's row stride
// (1024 apart, the 4 KiB stride whose cache sets depend on the physical pages).
TEST(JitLayout, MatmulPanelsStreamAlongTheReduction) {
  auto dag = matmul(64, 1024, 1024);
  ASSERT_TRUE(dag.ok());
  const std::vector<Sketch> sketches = generate_sketches(*dag);
  const Sketch& sketch = packed_sketch(sketches);
  KnobValues values = values_where(sketch, [](const std::string& name, const std::vector<int64_t>& f) {
    return name == "C.j"           ? f.back() == 32 && f[2] == 1
           : name == "C.i"         ? f.back() == 4
           : name == "C.r0"        ? f.back() == 8
           : name == "C.pack_rows" ? f[0] == 1
                                   : false;
  });
  auto state = apply_candidate(*dag, sketch, values);
  ASSERT_TRUE(state.ok()) << state.error().message;
  auto func = lower(*state, "kernel");
  ASSERT_TRUE(func.ok()) << func.error().message;
  std::map<std::string, int64_t> k_stride;  // panel -> coefficient of the inner reduction loop
  visit(func->body, [&](const StmtNode& loop) {
    if (loop.kind != StmtKind::kFor || loop.loop_var->name != "r0.1") return;
    std::function<void(const Expr&)> collect = [&](const Expr& e) {
      if (e->kind == ExprKind::kLoad && (e->name == "A.local" || e->name == "B.local")) {
        int64_t stride = -1;
        if (linear_coefficient(e->operands[0], loop.loop_var.get(), &stride)) k_stride[e->name] = stride;
      }
      for (const Expr& o : e->operands) collect(o);
    };
    visit(loop.body, [&](const StmtNode& store) {
      if (store.kind == StmtKind::kStore) collect(store.value);
    });
  });
  EXPECT_EQ(k_stride["B.local"], 32);
  EXPECT_EQ(k_stride["A.local"], 4);
}

}  // namespace
}  // namespace tessera::testing

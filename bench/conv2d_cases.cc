// conv2d + bias + relu: the hand-scheduled Tessera kernel next to oneDNN's convolution with the
// same fused epilogue (eltwise relu post-op). oneDNN chooses its own memory formats
// (format_tag::any); inputs are reordered into them once, outside the timing, so the baseline
// is oneDNN's convolution alone, at its best layout. Outputs of both are compared.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <dnnl.hpp>

#include "bench/cases.h"
#include "bench/measure.h"
#include "runtime/parallel_runtime.h"
#include "runtime/timing.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"
#include "schedule/reference.h"

namespace tessera::bench {
namespace {

// The layout oneDNN chose: "plain strides ..." (one stride per logical dimension, N C H W, so
// NHWC activations read "plain strides H*W*C 1 W*C C"), or its inner blocking, e.g. "blocked
// 16b1" (16 of dimension 1 inside: nChw16c).
std::string describe_layout(const dnnl::memory::desc& md) {
  const auto& blocking = md.data.format_desc.blocking;
  if (blocking.inner_nblks == 0) {
    std::string text = "plain strides";
    for (int i = 0; i < md.data.ndims; ++i) text += " " + std::to_string(blocking.strides[i]);
    return text;
  }
  std::string text = "blocked";
  for (int i = 0; i < blocking.inner_nblks; ++i) {
    text += " " + std::to_string(blocking.inner_blks[i]) + "b" + std::to_string(blocking.inner_idxs[i]);
  }
  return text;
}

int64_t output_width(const schedule::Conv2dParams& p) {
  return (p.width + 2 * p.pad_w - p.dilation_w * (p.kernel_w - 1) - 1) / p.stride_w + 1;
}

}  // namespace

nlohmann::json run_conv2d_bias_relu(const schedule::Conv2dParams& p, int threads) {
  auto dag = schedule::conv2d_bias_relu(p);
  if (!dag) return error_json(dag.error().message);
  runtime::set_num_threads(threads);
  auto compiled = compile_and_check(*dag, schedule::conv2d_bias_relu_schedule(p.out_channels, output_width(p)));
  if (!compiled) return error_json(compiled.error().message);
  return compare_with_onednn(p, *dag, *compiled, threads);
}

nlohmann::json compare_with_onednn(const schedule::Conv2dParams& p, const schedule::ComputeDAG& dag,
                                   const CompiledSchedule& compiled, int threads, bool cold_weights) {
  runtime::set_num_threads(threads);
  omp_set_num_threads(threads);
  const int64_t oh = (p.height + 2 * p.pad_h - p.dilation_h * (p.kernel_h - 1) - 1) / p.stride_h + 1;
  const int64_t ow = output_width(p);

  schedule::TensorValues inputs = schedule::random_inputs(dag, 11);
  std::vector<float>& x = inputs["X"];
  std::vector<float>& w = inputs["W"];
  std::vector<float>& bias = inputs["bias"];
  runtime::AlignedBuffer xb(x.size()), wb(w.size()), bb(bias.size()),
      yb(static_cast<size_t>(p.batch * p.out_channels * oh * ow));
  std::copy(x.begin(), x.end(), xb.data());
  std::copy(w.begin(), w.end(), wb.data());
  std::copy(bias.begin(), bias.end(), bb.data());
  std::vector<void*> args{xb.data(), wb.data(), bb.data(), yb.data()};
  compiled.kernel->prepare_unchecked(args.data());  // constants packed at load, untimed
  auto ours = [&] { compiled.kernel->run_unchecked(args.data()); };

  using dnnl::memory;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  memory::dims src_dims{p.batch, p.in_channels, p.height, p.width};
  // Grouped (and depthwise) weights: oneDNN's goihw, the same bytes as Tessera's OIHW with
  // C/groups input channels per output channel.
  const bool grouped = p.groups > 1;
  memory::dims wei_dims = grouped ? memory::dims{p.groups, p.out_channels / p.groups, p.in_channels / p.groups,
                                                 p.kernel_h, p.kernel_w}
                                  : memory::dims{p.out_channels, p.in_channels, p.kernel_h, p.kernel_w};
  memory::dims bias_dims{p.out_channels};
  memory::dims dst_dims{p.batch, p.out_channels, oh, ow};
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      memory::desc(src_dims, dt::f32, tag::any), memory::desc(wei_dims, dt::f32, tag::any),
      memory::desc(bias_dims, dt::f32, tag::x), memory::desc(dst_dims, dt::f32, tag::any),
      {p.stride_h, p.stride_w}, {p.dilation_h - 1, p.dilation_w - 1}, {p.pad_h, p.pad_w},
      {p.pad_h, p.pad_w});
  dnnl::post_ops post;
  post.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(post);
  dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
  // Tessera's buffers in their logical layout: NCHW with OIHW weights, or NHWC with HWIO.
  const bool nchw = p.layout == schedule::Layout::kNCHW;
  const tag data_tag = nchw ? tag::nchw : tag::nhwc;
  memory user_src({src_dims, dt::f32, data_tag}, engine, x.data());
  memory user_wei({wei_dims, dt::f32, grouped ? (nchw ? tag::goihw : tag::hwigo) : (nchw ? tag::oihw : tag::hwio)},
                  engine, w.data());
  memory bias_mem({bias_dims, dt::f32, tag::x}, engine, bias.data());
  // oneDNN's own buffers from the allocator Tessera's use (huge pages where large), so that page
  // sizes favour neither side.
  auto buffer_for = [](const memory::desc& d) { return std::make_unique<runtime::AlignedBuffer>(d.get_size() / sizeof(float) + 1); };
  auto src_buffer = buffer_for(pd.src_desc()), wei_buffer = buffer_for(pd.weights_desc()), dst_buffer = buffer_for(pd.dst_desc());
  memory src(pd.src_desc(), engine, src_buffer->data()), wei(pd.weights_desc(), engine, wei_buffer->data()),
      dst(pd.dst_desc(), engine, dst_buffer->data());
  dnnl::reorder(user_src, src).execute(stream, user_src, src);
  dnnl::reorder(user_wei, wei).execute(stream, user_wei, wei);
  dnnl::convolution_forward conv(pd);
  auto baseline = [&] {
    conv.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias_mem},
                          {DNNL_ARG_DST, dst}});
    stream.wait();
  };

  ours();
  baseline();
  std::vector<float> dnnl_out(yb.size());
  memory user_dst({dst_dims, dt::f32, data_tag}, engine, dnnl_out.data());
  dnnl::reorder(dst, user_dst).execute(stream, dst, user_dst);
  stream.wait();
  double worst = 0;
  for (size_t i = 0; i < dnnl_out.size(); ++i) {
    worst = std::max(worst, std::fabs(yb.data()[i] - dnnl_out[i]) / (1.0 + std::fabs(dnnl_out[i])));
  }
  if (!(worst <= schedule::tolerance_for(dag))) {
    return error_json("Tessera and oneDNN disagree: max difference " + std::to_string(worst));
  }
  // Useful multiply-adds only: 2*N*K*(C/groups)*R*S*OH*OW; the pad copy and epilogue are free.
  double flops = 2.0 * p.batch * p.out_channels * (p.in_channels / p.groups) * p.kernel_h *
                 p.kernel_w * oh * ow;
  std::function<void()> evict_ours, evict_theirs;
  if (cold_weights) {
    evict_ours = [&] {
      runtime::evict_from_caches(wb.data(), wb.size() * sizeof(float));
      const auto& packed = compiled.kernel->packed();
      for (size_t i = 0; i < packed.size(); ++i) {
        runtime::evict_from_caches(compiled.kernel->packed_buffers()[i], static_cast<size_t>(packed[i].size) * sizeof(float));
      }
    };
    evict_theirs = [&] { runtime::evict_from_caches(wei_buffer->data(), pd.weights_desc().get_size()); };
  }
  nlohmann::json line =
      result_json(flops, time_alternately(ours, baseline, 5, evict_ours, evict_theirs), "onednn", compiled);
  line["cold_weights"] = cold_weights;
  line["baseline_src_format"] = describe_layout(pd.src_desc());
  line["baseline_weights_format"] = describe_layout(pd.weights_desc());
  line["threads"] = threads;
  line["shape"] = dag.summary();
  line["layout"] = nchw ? "NCHW" : "NHWC";
  return line;
}

}  // namespace tessera::bench

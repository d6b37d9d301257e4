// The op registry (see ops.h): maps the op names that configs and the CLI use, with their
// integer parameters, onto the builders in ops.cc. Each entry lists its required parameters and
// its optional ones with defaults, so a missing or unknown parameter gets a message saying what
// was expected; shape checks themselves stay in the builders. Adding an op: one entry in
// `registry()` below.
#include <cassert>
#include <string>

#include "schedule/ops.h"

namespace tessera::schedule {
namespace {

struct OptionalParam {
  const char* name;
  int64_t default_value;
};

class Args;
using Builder = Result<ComputeDAG> (*)(const Args&);

struct OpSpec {
  const char* name;
  std::vector<const char*> required;
  std::vector<OptionalParam> optional;
  Builder build;

  bool accepts(const std::string& param) const {
    for (const char* r : required) {
      if (param == r) return true;
    }
    for (const OptionalParam& o : optional) {
      if (param == o.name) return true;
    }
    return false;
  }
  // "m, n, k" (required only) or "m, n, k, trans_a, trans_b" (all).
  std::string expected(bool with_optional) const {
    std::string text;
    for (const char* r : required) text += (text.empty() ? "" : ", ") + std::string(r);
    if (with_optional) {
      for (const OptionalParam& o : optional) {
        text += (text.empty() ? "" : ", ") + std::string(o.name);
      }
    }
    return text;
  }
};

// The parameters of one make_op call, already checked against its OpSpec.
class Args {
 public:
  Args(const OpSpec& spec, const std::map<std::string, int64_t>& params)
      : spec_(spec), params_(params) {}

  bool has(const char* name) const { return params_.count(name) > 0; }
  // The given value, else the optional parameter's default.
  int64_t operator[](const char* name) const {
    if (auto it = params_.find(name); it != params_.end()) return it->second;
    for (const OptionalParam& o : spec_.optional) {
      if (std::string(o.name) == name) return o.default_value;
    }
    assert(false && "required parameter checked by make_op");
    return 0;
  }
  const char* op() const { return spec_.name; }

 private:
  const OpSpec& spec_;
  const std::map<std::string, int64_t>& params_;
};

Result<ComputeDAG> build_matmul(const Args& a) {
  for (const char* flag : {"trans_a", "trans_b"}) {
    if (a[flag] != 0 && a[flag] != 1) {
      return make_error(std::string(a.op()) + ": " + flag + " (" + std::to_string(a[flag]) +
                        ") must be 0 or 1");
    }
  }
  return matmul(a["m"], a["n"], a["k"], a["trans_a"] == 1, a["trans_b"] == 1);
}

// The image and channel extents every conv op takes: n, c, h, w, k.
Conv2dParams conv_extents(const Args& a, Layout layout) {
  Conv2dParams p;
  p.batch = a["n"];
  p.in_channels = a["c"];
  p.height = a["h"];
  p.width = a["w"];
  p.out_channels = a["k"];
  p.layout = layout;
  return p;
}

Result<ComputeDAG> build_conv(const Args& a, Layout layout, bool bias_relu = false) {
  Conv2dParams p = conv_extents(a, layout);
  p.kernel_h = a["r"];
  p.kernel_w = a["s"];
  p.stride_h = p.stride_w = a["stride"];
  p.pad_h = p.pad_w = a["pad"];
  p.dilation_h = p.dilation_w = a["dilation"];
  p.groups = a["groups"];
  return bias_relu ? conv2d_bias_relu(p) : conv2d(p);
}

Result<ComputeDAG> build_depthwise(const Args& a) {
  Conv2dParams p;
  p.batch = a["n"];
  p.in_channels = p.out_channels = p.groups = a["c"];
  p.height = a["h"];
  p.width = a["w"];
  p.kernel_h = a["r"];
  p.kernel_w = a["s"];
  p.stride_h = p.stride_w = a["stride"];
  p.pad_h = p.pad_w = a["pad"];
  p.dilation_h = p.dilation_w = a["dilation"];
  return conv2d(p);
}

Pool2dParams pool_params(const Args& a) {
  Pool2dParams p;
  p.batch = a["n"];
  p.channels = a["c"];
  p.height = a["h"];
  p.width = a["w"];
  p.kernel_h = a["r"];
  p.kernel_w = a["s"];
  // The stride defaults to the kernel (non-overlapping windows), as in PyTorch.
  p.stride_h = a.has("stride") ? a["stride"] : p.kernel_h;
  p.stride_w = a.has("stride") ? a["stride"] : p.kernel_w;
  p.pad_h = p.pad_w = a["pad"];
  return p;
}

Result<ComputeDAG> build_elementwise(const Args& a, Elementwise op) {
  return elementwise(op, {a["m"], a["n"]});
}

const std::vector<OpSpec>& registry() {
  using A = const Args&;
  static const std::vector<OpSpec> ops = {
      {"matmul", {"m", "n", "k"}, {{"trans_a", 0}, {"trans_b", 0}}, build_matmul},
      {"batch_matmul", {"batch", "m", "n", "k"}, {},
       [](A a) { return batch_matmul(a["batch"], a["m"], a["n"], a["k"]); }},
      {"dense_bias", {"m", "n", "k"}, {},
       [](A a) { return dense_bias(a["m"], a["n"], a["k"]); }},
      {"conv2d", {"n", "c", "h", "w", "k", "r", "s"},
       {{"stride", 1}, {"pad", 0}, {"dilation", 1}, {"groups", 1}},
       [](A a) { return build_conv(a, Layout::kNCHW); }},
      {"conv2d_bias_relu", {"n", "c", "h", "w", "k", "r", "s"},
       {{"stride", 1}, {"pad", 0}, {"dilation", 1}, {"groups", 1}},
       [](A a) { return build_conv(a, Layout::kNCHW, /*bias_relu=*/true); }},
      {"dense_bias_gelu", {"m", "n", "k"}, {},
       [](A a) { return dense_bias_gelu(a["m"], a["n"], a["k"]); }},
      {"conv2d_nhwc", {"n", "c", "h", "w", "k", "r", "s"},
       {{"stride", 1}, {"pad", 0}, {"dilation", 1}, {"groups", 1}},
       [](A a) { return build_conv(a, Layout::kNHWC); }},
      {"conv2d_bias_relu_nhwc", {"n", "c", "h", "w", "k", "r", "s"},
       {{"stride", 1}, {"pad", 0}, {"dilation", 1}, {"groups", 1}},
       [](A a) { return build_conv(a, Layout::kNHWC, /*bias_relu=*/true); }},
      {"conv2d_winograd_nhwc", {"n", "c", "h", "w", "k"}, {{"pad", 1}},
       [](A a) {
         Conv2dParams p = conv_extents(a, Layout::kNHWC);
         p.kernel_h = p.kernel_w = 3;
         p.pad_h = p.pad_w = a["pad"];
         return conv2d_winograd(p);
       }},
      {"depthwise_conv2d", {"n", "c", "h", "w", "r", "s"},
       {{"stride", 1}, {"pad", 0}, {"dilation", 1}}, build_depthwise},
      // stride's default 0 is a placeholder: an absent stride means "the kernel size".
      {"max_pool2d", {"n", "c", "h", "w", "r", "s"}, {{"stride", 0}, {"pad", 0}},
       [](A a) { return max_pool2d(pool_params(a)); }},
      {"avg_pool2d", {"n", "c", "h", "w", "r", "s"}, {{"stride", 0}, {"pad", 0}},
       [](A a) { return avg_pool2d(pool_params(a)); }},
      {"global_avg_pool2d", {"n", "c", "h", "w"}, {},
       [](A a) { return global_avg_pool2d(a["n"], a["c"], a["h"], a["w"]); }},
      {"relu", {"m", "n"}, {}, [](A a) { return build_elementwise(a, Elementwise::kRelu); }},
      {"sigmoid", {"m", "n"}, {},
       [](A a) { return build_elementwise(a, Elementwise::kSigmoid); }},
      {"gelu", {"m", "n"}, {}, [](A a) { return build_elementwise(a, Elementwise::kGelu); }},
      {"add", {"m", "n"}, {}, [](A a) { return build_elementwise(a, Elementwise::kAdd); }},
      {"mul", {"m", "n"}, {}, [](A a) { return build_elementwise(a, Elementwise::kMul); }},
      {"softmax", {"m", "n"}, {}, [](A a) { return softmax({a["m"], a["n"]}); }},
      {"layer_norm", {"m", "n"}, {}, [](A a) { return layer_norm({a["m"], a["n"]}); }},
  };
  return ops;
}

}  // namespace

Result<ComputeDAG> make_op(const std::string& name, const std::map<std::string, int64_t>& params) {
  const OpSpec* spec = nullptr;
  for (const OpSpec& s : registry()) {
    if (name == s.name) spec = &s;
  }
  if (spec == nullptr) {
    std::string known;
    for (const std::string& n : op_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error("unknown op '" + name + "' (known: " + known + ")");
  }
  for (const auto& entry : params) {
    if (!spec->accepts(entry.first)) {
      return make_error(name + ": unknown parameter '" + entry.first + "' (expected " +
                        spec->expected(/*with_optional=*/true) + ")");
    }
  }
  for (const char* r : spec->required) {
    if (params.count(r) == 0) {
      return make_error(name + ": missing parameter '" + r + "' (expected " +
                        spec->expected(/*with_optional=*/false) + ")");
    }
  }
  return spec->build(Args(*spec, params));
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const OpSpec& s : registry()) names.emplace_back(s.name);
  return names;
}

}  // namespace tessera::schedule

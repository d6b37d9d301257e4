// A Conv node's schedule::Conv2dParams from its attributes and operand shapes (see conv_params.h).
#include "graph/conv_params.h"

#include <string>

#include "graph/channels_last.h"
#include "graph/winograd.h"

namespace tessera::graph {

Result<schedule::Conv2dParams> conv2d_params_of(const Node& node, const std::vector<int64_t>& xs,
                                                const std::vector<int64_t>& ws) {
  if (xs.size() != 4) return make_error("only 2-D convolutions (4-D input) are supported");
  const std::string auto_pad = node.get_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return make_error("auto_pad " + auto_pad + " is not supported");
  const auto st = node.get_ints("strides", {1, 1}), dil = node.get_ints("dilations", {1, 1});
  const auto pads = node.get_ints("pads", {0, 0, 0, 0});
  if (st.size() != 2 || dil.size() != 2 || pads.size() != 4) return make_error("strides, dilations and pads must be 2-D");
  const bool nhwc = is_channels_last(node), winograd = is_winograd(node);
  if (winograd && (!nhwc || ws.size() != 3 || ws[0] != schedule::kWinogradPoints)) {
    return make_error("a Winograd conv needs NHWC input and [16, C, K] weights");
  }
  if (!winograd && ws.size() != 4) return make_error("the weights must be 4-D");

  schedule::Conv2dParams p;
  if (nhwc) {
    p.layout = schedule::Layout::kNHWC;
    p.batch = xs[0], p.height = xs[1], p.width = xs[2], p.in_channels = xs[3];
    if (winograd) {
      p.kernel_h = p.kernel_w = 3, p.out_channels = ws[2];
    } else {
      p.kernel_h = ws[0], p.kernel_w = ws[1], p.out_channels = ws[3];
    }
  } else {
    p.batch = xs[0], p.in_channels = xs[1], p.height = xs[2], p.width = xs[3];
    p.out_channels = ws[0], p.kernel_h = ws[2], p.kernel_w = ws[3];
  }
  p.stride_h = st[0], p.stride_w = st[1], p.dilation_h = dil[0], p.dilation_w = dil[1];
  p.pad_h = pads[0], p.pad_w = pads[1], p.pad_bottom = pads[2], p.pad_right = pads[3];
  p.groups = node.get_int("group", 1);
  return p;
}

}  // namespace tessera::graph

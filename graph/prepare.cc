// fold -> layout -> Winograd convs -> fuse (see prepare.h).
#include "graph/prepare.h"

#include "graph/channels_last.h"
#include "graph/fold.h"
#include "graph/winograd.h"

namespace tessera::graph {

const char* layout_name(ActivationLayout layout) {
  return layout == ActivationLayout::kNHWC ? "nhwc" : "nchw";
}

Result<ActivationLayout> parse_layout(const std::string& text) {
  if (text == "nhwc") return ActivationLayout::kNHWC;
  if (text == "nchw") return ActivationLayout::kNCHW;
  return make_error("unknown layout '" + text + "' (expected nhwc or nchw)");
}

Result<PreparedNetwork> prepare_network(const Graph& imported, ActivationLayout layout, bool winograd) {
  auto folded = fold_constants(imported);
  if (!folded) return folded.error();
  PreparedNetwork prepared;
  if (layout == ActivationLayout::kNHWC) {
    auto rewritten = to_channels_last(*folded);
    if (!rewritten) return rewritten.error();
    if (winograd) {
      auto with_winograd = use_winograd(*rewritten);
      if (!with_winograd) return with_winograd.error();
      rewritten = std::move(with_winograd);
    }
    prepared.graph = std::move(*rewritten);
  } else {
    prepared.graph = std::move(*folded);
  }
  auto tasks = fuse(prepared.graph);
  if (!tasks) return tasks.error();
  prepared.tasks = std::move(*tasks);
  return prepared;
}

}  // namespace tessera::graph

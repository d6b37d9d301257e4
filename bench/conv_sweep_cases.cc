// packed_conv_sweep: what the packed tiling sketch (schedule/sketch_packed.cc) reaches on one
// convolution with no search: a small grid of register tiles (output-channel vector width x
// output pixels x output rows per tile, which way the tile is copied out, input channels per
// inner reduction step), each compiled, checked and timed
// against oneDNN in the same process. One line per grid point; the ceiling a search on that
// sketch can find, and which tile shape this CPU likes.
#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "bench/cases.h"
#include "runtime/parallel_runtime.h"
#include "schedule/lower.h"
#include "schedule/sketch.h"

namespace tessera::bench {
namespace {

// The index of `factors` in the domain of knob `name`, or -1.
int value_of(const schedule::KnobSpace& space, const std::string& name, const std::vector<int64_t>& factors) {
  for (const schedule::Knob& k : space.knobs()) {
    if (k.name != name) continue;
    for (size_t i = 0; i < k.domain.size(); ++i) {
      if (k.domain[i] == factors) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

nlohmann::json run_packed_conv_sweep(const schedule::Conv2dParams& p) {
  auto dag = schedule::conv2d_bias_relu(p);
  if (!dag) return error_json(dag.error().message);
  const std::vector<schedule::Sketch> sketches = schedule::generate_sketches(*dag);
  auto sketch = std::find_if(sketches.begin(), sketches.end(),
                             [](const schedule::Sketch& s) { return s.id.find(":packed") != std::string::npos; });
  if (sketch == sketches.end()) return error_json("no packed sketch for " + dag->summary());
  const auto& space = sketch->knobs;
  const int64_t oh = (p.height + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1;
  const int64_t ow = (p.width + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
  struct Point {
    int64_t lanes, pixels, copy, rows, channels;
    std::string name() const {
      return std::to_string(lanes) + "x" + std::to_string(pixels) + "x" + std::to_string(copy) + "x" +
             std::to_string(rows) + "x" + std::to_string(channels);
    }
  };
  std::vector<Point> grid;
  for (int64_t lanes : {16, 32}) {
    for (int64_t pixels : {4, 7, 8, 14}) {
      for (int64_t copy : {0, 1}) {
        for (int64_t rows : {1, 2}) {
          for (int64_t channels : {1, 4}) grid.push_back({lanes, pixels, copy, rows, channels});
        }
      }
    }
  }
  // TESSERA_SWEEP=LxPxCxRxI,... (vector lanes x pixels x copy along the vector x output rows x
  // input channels per inner reduction step) narrows the grid to those points.
  const char* only = std::getenv("TESSERA_SWEEP");
  nlohmann::json lines = nlohmann::json::array();
  for (const Point& g : grid) {
    if (p.out_channels % g.lanes || ow % g.pixels || oh % g.rows || p.in_channels % g.channels) continue;
    if (only && ("," + std::string(only) + ",").find("," + g.name() + ",") == std::string::npos) continue;
    schedule::KnobValues v(space.size(), 0);
    auto set = [&](const std::string& name, std::vector<int64_t> f) {
      int i = value_of(space, name, f);
      for (size_t k = 0; k < space.size(); ++k) {
        if (space.knobs()[k].name == name && i >= 0) v[k] = i;
      }
      return i >= 0;
    };
    bool ok = set("conv.n", {1, 1, 1, 1}) && set("conv.c", {p.out_channels / g.lanes, 1, 1, g.lanes}) &&
              set("conv.h", {oh / g.rows, 1, 1, g.rows}) && set("conv.w", {ow / g.pixels, 1, 1, g.pixels}) &&
              set("conv.r0", {p.in_channels / g.channels, g.channels}) && set("conv.r1", {1, p.kernel_h}) &&
              set("conv.r2", {1, p.kernel_w}) && set("conv.unroll", {512}) && set("conv.producers_at_root", {1}) &&
              set("conv.parallel", {1}) && set("conv.copy_along_vector", {g.copy});
    if (!ok) return error_json("grid point " + g.name() + ": a knob value is not in the packed sketch's domain");
    // TESSERA_SWEEP_IR=DIR writes each grid point's optimized LLVM IR there.
    if (const char* dir = std::getenv("TESSERA_SWEEP_IR")) {
      schedule::State state(*dag);
      if (state.apply_all(sketch->steps(v)).ok()) {
        runtime::CompileOptions options;
        options.keep_llvm_ir = true;
        auto func = schedule::lower(state, "kernel");
        auto object = func ? runtime::compile_object(*func, options) : Result<runtime::ObjectCode>(func.error());
        std::ofstream(std::string(dir) + "/conv_" + g.name() + ".ll") << (object ? object->llvm_ir : object.error().message);
      }
    }
    auto compiled = compile_and_check(*dag, sketch->steps(v));
    if (!compiled) return error_json(compiled.error().message);
    nlohmann::json line = compare_with_onednn(p, *dag, *compiled, 1);
    line["point"] = g.name();
    line["lanes"] = g.lanes;
    line["pixels"] = g.pixels;
    line["copy_along_vector"] = g.copy;
    line["rows"] = g.rows;
    line["channels"] = g.channels;
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace tessera::bench

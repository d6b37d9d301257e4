// conv_suite (issue 20): every convolution of the op suite (ResNet-50, MobileNetV2) and three
// more (a stride-2 3x3, a grouped 3x3, a 1x1 with a large K), each as conv + bias + relu tuned by
// harl for TESSERA_TRIALS (1,000) trials on one thread, then compiled, checked and timed
// alternately with oneDNN's convolution (the formats oneDNN picks, weights reordered outside
// the timing; Tessera's packing also runs once, outside). One line per conv with the chosen
// sketch and layouts, and a last line with the geometric mean of the ratios.
// TESSERA_CONVS=name,... narrows the list; TESSERA_CONV_LAYOUT=nhwc runs every conv channels-last
// (NHWC activations, HWIO weights), the layout a network tuned end to end computes in. conv_probe
// times one given schedule of one suite conv (or of TESSERA_PROBE_CONV's).
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>

#include "bench/cases.h"
#include "experiments/config.h"
#include "runtime/kernel.h"
#include "schedule/lower.h"
#include "schedule/sketch.h"
#include "schedule/state.h"
#include "schedule/step_json.h"

namespace tessera::bench {
namespace {

struct NamedConv {
  std::string name;
  schedule::Conv2dParams params;
};

schedule::Conv2dParams params_of(const experiments::TaskSpec& spec) {
  auto get = [&](const char* key, int64_t fallback) {
    auto it = spec.params.find(key);
    return it == spec.params.end() ? fallback : it->second;
  };
  schedule::Conv2dParams p;
  p.batch = get("n", 1);
  p.in_channels = get("c", 1);
  p.height = get("h", 1);
  p.width = get("w", 1);
  p.out_channels = spec.op == "depthwise_conv2d" ? p.in_channels : get("k", 1);
  p.groups = spec.op == "depthwise_conv2d" ? p.in_channels : get("groups", 1);
  p.kernel_h = get("r", 1);
  p.kernel_w = get("s", 1);
  p.stride_h = p.stride_w = get("stride", 1);
  p.pad_h = p.pad_w = get("pad", 0);
  p.dilation_h = p.dilation_w = get("dilation", 1);
  return p;
}

schedule::Layout suite_layout() {
  const char* layout = std::getenv("TESSERA_CONV_LAYOUT");
  return layout && std::string(layout) == "nhwc" ? schedule::Layout::kNHWC : schedule::Layout::kNCHW;
}

Result<std::vector<NamedConv>> suite_convs() {
  auto config = experiments::load_config(TESSERA_SOURCE_DIR "/configs/op_suite.yaml");
  if (!config) return config.error();
  std::vector<NamedConv> convs;
  for (const experiments::TaskSpec& spec : config->tasks) {
    if (spec.op.find("conv2d") == std::string::npos) continue;
    convs.push_back({spec.name, params_of(spec)});
  }
  schedule::Conv2dParams stride2{1, 128, 56, 56, 128, 3, 3};
  stride2.stride_h = stride2.stride_w = 2;
  stride2.pad_h = stride2.pad_w = 1;
  schedule::Conv2dParams grouped{1, 128, 28, 28, 128, 3, 3};
  grouped.pad_h = grouped.pad_w = 1;
  grouped.groups = 32;
  schedule::Conv2dParams wide_1x1{1, 512, 7, 7, 2048, 1, 1};
  convs.push_back({"resnet50_conv3_3x3_s2", stride2});
  convs.push_back({"resnext_grouped_3x3_g32", grouped});
  convs.push_back({"resnet50_conv5_1x1_k2048", wide_1x1});
  // TESSERA_PROBE_CONV=c,k,h,w,r,s,stride,pad[,groups]: one more conv named "probe" (a network's
  // layer the suite lacks, for conv_probe).
  if (const char* probe = std::getenv("TESSERA_PROBE_CONV")) {
    std::vector<int64_t> v;
    for (const char* p = probe; *p;) {
      char* end = nullptr;
      v.push_back(std::strtoll(p, &end, 10));
      if (end == p) return make_error("TESSERA_PROBE_CONV: expected c,k,h,w,r,s,stride,pad[,groups], got " + std::string(probe));
      p = *end == ',' ? end + 1 : end;
    }
    if (v.size() != 8 && v.size() != 9) return make_error("TESSERA_PROBE_CONV: expected 8 or 9 numbers, got " + std::string(probe));
    schedule::Conv2dParams extra{1, v[0], v[2], v[3], v[1], v[4], v[5]};
    extra.stride_h = extra.stride_w = v[6];
    extra.pad_h = extra.pad_w = v[7];
    extra.groups = v.size() == 9 ? v[8] : 1;
    convs.push_back({"probe", extra});
  }
  for (NamedConv& conv : convs) conv.params.layout = suite_layout();
  return convs;
}

}  // namespace

nlohmann::json run_conv_suite(int trials) {
  auto convs = suite_convs();
  if (!convs) return error_json(convs.error().message);
  const char* only = std::getenv("TESSERA_CONVS");
  const char* agent = std::getenv("TESSERA_AGENT");
  nlohmann::json lines = nlohmann::json::array();
  double log_sum = 0;
  int measured = 0;
  for (const NamedConv& conv : *convs) {
    if (only && ("," + std::string(only) + ",").find("," + conv.name + ",") == std::string::npos) continue;
    auto dag = schedule::conv2d_bias_relu(conv.params);
    if (!dag) return error_json(conv.name + ": " + dag.error().message);
    nlohmann::json line;
    const std::string agent_name = agent ? agent : "harl";
    auto compiled = search_and_compile(*dag, agent_name, trials,
                                       "conv_suite_" + conv.name + (conv.params.layout == schedule::Layout::kNHWC ? "_nhwc_" : "_") +
                                           agent_name + "_" + std::to_string(trials),
                                       line);
    if (!compiled) {
      lines.push_back(error_json(conv.name + ": " + compiled.error().message));
      continue;
    }
    nlohmann::json compared = compare_with_onednn(conv.params, *dag, *compiled, 1);
    compared.update(line);
    compared["conv"] = conv.name;
    for (const schedule::Sketch& sketch : schedule::generate_sketches(*dag)) {
      if (sketch.id != compared.value("best_sketch", "")) continue;
      if (auto knobs = sketch.knobs.from_json(compared["best_knobs"])) {
        compared["tessera_layout"] = schedule::describe_layouts(sketch.steps(*knobs));
      }
    }
    if (compared.contains("ratio") && compared["ratio"].is_number()) {
      log_sum += std::log(compared["ratio"].get<double>());
      ++measured;
    }
    lines.push_back(std::move(compared));
  }
  nlohmann::json summary;
  summary["conv"] = "geometric_mean";
  summary["convs"] = measured;
  summary["ratio"] = measured ? std::round(std::exp(log_sum / measured) * 1000) / 1000 : 0.0;
  summary["baseline"] = "onednn";
  lines.push_back(std::move(summary));
  return lines;
}

// TESSERA_CONVS=name (one suite conv), TESSERA_PROBE_SKETCH=id, TESSERA_PROBE_KNOBS={"knob":
// [factors], ...} as records write them, or "default" for the default rule's (runtime/
// default_schedule.h): that one schedule compiled, checked and timed against
// oneDNN. TESSERA_PROBE_IR=1 prints its loop nest to stderr; TESSERA_PROBE_OBJECT=FILE writes
// its object code (for objdump -d). TESSERA_PROBE_PRINT_STEPS=1 prints the schedule's steps as
// JSON to stderr; TESSERA_PROBE_STEPS=[steps] times that step list instead (a hand edit of the
// printed one: a schedule no sketch offers yet, tried before writing its rule). TESSERA_PROBE_COLD=1
// evicts both sides' weights before each call (what network tuning times).
nlohmann::json run_conv_probe() {
  auto convs = suite_convs();
  if (!convs) return error_json(convs.error().message);
  const char* only = std::getenv("TESSERA_CONVS");
  const char* sketch_id = std::getenv("TESSERA_PROBE_SKETCH");
  const char* knobs = std::getenv("TESSERA_PROBE_KNOBS");
  if (!only || !sketch_id || !knobs) {
    return error_json("set TESSERA_CONVS=name, TESSERA_PROBE_SKETCH=id and TESSERA_PROBE_KNOBS={json}");
  }
  for (const NamedConv& conv : *convs) {
    if (conv.name != only) continue;
    auto dag = schedule::conv2d_bias_relu(conv.params);
    if (!dag) return error_json(dag.error().message);
    for (const schedule::Sketch& sketch : schedule::generate_sketches(*dag)) {
      if (sketch.id != sketch_id) continue;
      auto knob_json = probe_knobs(*dag, sketch, knobs);
      if (!knob_json) return error_json("TESSERA_PROBE_KNOBS: " + knob_json.error().message);
      auto values = sketch.knobs.from_json(*knob_json);
      if (!values) return error_json(values.error().message);
      std::vector<schedule::Step> steps = sketch.steps(*values);
      if (std::getenv("TESSERA_PROBE_PRINT_STEPS")) std::fprintf(stderr, "%s\n", schedule::steps_to_json(steps).dump().c_str());
      if (const char* given = std::getenv("TESSERA_PROBE_STEPS")) {
        nlohmann::json json = nlohmann::json::parse(given, nullptr, /*allow_exceptions=*/false);
        if (json.is_discarded()) return error_json("TESSERA_PROBE_STEPS is not JSON");
        auto parsed = schedule::steps_from_json(json);
        if (!parsed) return error_json(parsed.error().message);
        steps = std::move(*parsed);
      }
      schedule::State state(*dag);
      if (auto applied = state.apply_all(steps); !applied) return error_json(applied.error().message);
      auto func = schedule::lower(state, "kernel");
      if (!func) return error_json(func.error().message);
      if (std::getenv("TESSERA_PROBE_IR")) std::fprintf(stderr, "%s\n", schedule::to_string(*func).c_str());
      if (const char* object_path = std::getenv("TESSERA_PROBE_OBJECT")) {
        auto object = runtime::compile_object(*func);
        if (!object) return error_json(object.error().message);
        std::ofstream(object_path, std::ios::binary) << object->bytes;
      }
      auto compiled = compile_and_check(*dag, steps, 1);
      if (!compiled) return error_json(compiled.error().message);
      const bool cold = std::getenv("TESSERA_PROBE_COLD") != nullptr;
      nlohmann::json line = compare_with_onednn(conv.params, *dag, *compiled, 1, cold);
      line["conv"] = conv.name;
      line["sketch"] = sketch.id;
      line["knobs"] = *knob_json;
      if (std::getenv("TESSERA_PROBE_STEPS")) line["steps_given"] = true;  // not the sketch's own
      return line;
    }
    return no_sketch_json(*dag, sketch_id, conv.name);
  }
  return error_json(std::string("no suite conv ") + only);
}

}  // namespace tessera::bench

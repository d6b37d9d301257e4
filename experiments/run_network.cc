// `tessera run` (see run_network.h). Human-readable output goes to stdout, or to stderr with
// --json, so that stdout then holds only the JSON line bench/e2e.sh reads. With several
// --records, one executor per records set is built and checked, and all are timed in one loop,
// an inference of each per round in a rotated order: the machine's drift (15-40% between
// processes minutes apart on a shared host) then falls on all of them alike.
#include "experiments/run_network.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "experiments/config.h"
#include "graph/interpret.h"
#include "graph/onnx/import.h"
#include "graph/prepare.h"
#include "runtime/network_executor.h"
#include "runtime/timing.h"

namespace tessera::experiments {
namespace {

// Outputs must match the interpreter within this fraction of the output's largest magnitude.
constexpr double kRelativeTolerance = 1e-3;
constexpr int kMinRuns = 20, kMaxRuns = 500, kWarmupRuns = 3;
constexpr double kMinTimedSeconds = 1.0;

struct Args {
  std::string model, input, output;
  std::vector<std::string> records;  // none: default schedules; several: compared
  std::string layout;  // empty: the records' run's (experiments::layout_of_run), else nhwc
  std::string winograd;  // "on", "off"; empty: the records' run's (winograd_of_run), else on
  int threads = 1, runs = 0;  // runs 0: at least kMinRuns, more until kMinTimedSeconds
  uint64_t seed = 1;
  bool json = false, check = true;
  graph::ImportOptions import;
};

const char* kUsage =
    "usage: tessera run MODEL.onnx [--records DIR_OR_FILE ...] [--layout nhwc|nchw] [--winograd on|off] [--threads N] [--input IN.bin] "
    "[--output OUT.bin] [--runs N] [--seed N] [--json] [--no-check] [--dim NAME=VALUE ...]\n";

bool parse_positive(const std::string& text, int64_t* out) {
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || v < 1) return false;
  *out = v;
  return true;
}

// Fills `a` from the command line; false (with the reason on stderr) for a bad one.
bool parse_args(const std::vector<std::string>& args, Args* a) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    const bool has_value = i + 1 < args.size();
    int64_t number = 0;
    if (flag == "--json") {
      a->json = true;
    } else if (flag == "--no-check") {
      a->check = false;
    } else if (has_value && flag == "--records") {
      a->records.push_back(args[++i]);
    } else if (has_value && (flag == "--input" || flag == "--output")) {
      (flag == "--input" ? a->input : a->output) = args[++i];
    } else if (has_value && flag == "--layout" && graph::parse_layout(args[i + 1])) {
      a->layout = args[++i];
    } else if (has_value && flag == "--winograd" && (args[i + 1] == "on" || args[i + 1] == "off")) {
      a->winograd = args[++i];
    } else if (has_value && (flag == "--threads" || flag == "--runs" || flag == "--seed") &&
               parse_positive(args[i + 1], &number)) {
      if (flag == "--threads") a->threads = static_cast<int>(number);
      if (flag == "--runs") a->runs = static_cast<int>(number);
      if (flag == "--seed") a->seed = static_cast<uint64_t>(number);
      ++i;
    } else if (flag == "--dim" && has_value && args[i + 1].find('=') != std::string::npos &&
               args[i + 1].find('=') > 0 &&
               parse_positive(args[i + 1].substr(args[i + 1].find('=') + 1), &number)) {
      a->import.dim_values[args[i + 1].substr(0, args[i + 1].find('='))] = number;
      ++i;
    } else if (a->model.empty() && flag.rfind("--", 0) != 0) {
      a->model = flag;
    } else {
      std::fprintf(stderr, "tessera run: bad argument '%s'\n%s", flag.c_str(), kUsage);
      return false;
    }
  }
  if (a->model.empty()) std::fprintf(stderr, "tessera run: missing MODEL.onnx\n%s", kUsage);
  return !a->model.empty();
}

// The graph inputs' values: from the raw float32 file (the inputs one after another, in graph
// order) or seeded uniform in [-1, 1).
Result<std::map<std::string, std::vector<float>>> make_inputs(const graph::Graph& g, const Args& a) {
  if (a.input.empty()) return runtime::random_network_inputs(g, a.seed);
  std::map<std::string, std::vector<float>> inputs;
  int64_t total = 0;
  for (const std::string& name : g.inputs) total += g.info(name)->num_elements();
  std::vector<float> values(static_cast<size_t>(total));
  {
    std::ifstream in(a.input, std::ios::binary | std::ios::ate);
    if (!in) return make_error(a.input + ": cannot open the input file");
    const auto bytes = static_cast<int64_t>(in.tellg());
    if (bytes != total * 4) {
      return make_error(a.input + ": holds " + std::to_string(bytes) + " bytes; the model's inputs take " +
                        std::to_string(total) + " float32 values (" + std::to_string(total * 4) + " bytes)");
    }
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values.data()), bytes);  // little-endian host
  }
  int64_t at = 0;
  for (const std::string& name : g.inputs) {
    const int64_t n = g.info(name)->num_elements();
    inputs[name].assign(values.begin() + at, values.begin() + at + n);
    at += n;
  }
  return inputs;
}

struct Check {
  double max_abs_error = 0, output_max_abs = 0, tolerance = 0;
  bool ok = true;
};

// Every graph output against `expected`, graph::interpret's on the unfolded graph (import,
// folding, fusion, scheduling and code generation checked together).
Result<Check> check_outputs(const graph::Graph& raw, const std::map<std::string, graph::Value>& expected,
                            const std::map<std::string, std::vector<float>>& outputs) {
  Check c;
  for (const std::string& name : raw.outputs) {
    const std::vector<double>& want = expected.at(name).data;
    const std::vector<float>& got = outputs.at(name);
    if (got.size() != want.size()) return make_error("output '" + name + "' has the wrong size");
    double scale = 0, error = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      scale = std::max(scale, std::abs(want[i]));
      const double d = std::abs(double(got[i]) - want[i]);
      if (!(d <= error)) error = d;  // NaN sticks
    }
    const double tolerance = kRelativeTolerance * std::max(scale, 1e-6);
    c.ok &= error <= tolerance;
    if (!(error <= c.max_abs_error)) c.max_abs_error = error;
    c.output_max_abs = std::max(c.output_max_abs, scale);
    c.tolerance = std::max(c.tolerance, tolerance);
  }
  return c;
}

// One network as built from one records set (or from default schedules).
struct Built {
  std::string records;  // "" for default schedules
  runtime::NetworkExecutor executor;
  double build_seconds = 0;
  Check check;
  std::vector<double> seconds;  // one per timed round
};

// The layout (or Winograd choice) the records' runs tuned with: the first one known, and an
// error when two records sets name different ones, since their kernels would be for other tasks.
template <typename T>
Result<std::optional<T>> agreed(const std::vector<std::string>& records, std::optional<T> (*of)(const std::string&),
                                const std::string& what, const std::string& flag) {
  std::optional<T> first;
  std::string first_records;
  for (const std::string& r : records) {
    std::optional<T> v = of(r);
    if (!v) continue;
    if (first && *first != *v) {
      return make_error("--records " + first_records + " and --records " + r + " were tuned with different " + what +
                        ": their kernels are for different tasks (give --" + flag + " to run both with one)");
    }
    if (!first) first = v, first_records = r;
  }
  return first;
}

}  // namespace

int run_network(const std::vector<std::string>& args) {
  Args a;
  if (!parse_args(args, &a)) return 2;
  FILE* out = a.json ? stderr : stdout;
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "tessera run: %s\n", message.c_str());
    return 1;
  };
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto raw = graph::import_onnx(a.model, a.import);
  if (!raw) return fail(raw.error().message);
  std::string layout_text = a.layout;
  if (layout_text.empty()) {
    auto of_runs = agreed<std::string>(a.records, layout_of_run, "layouts", "layout");
    if (!of_runs) {
      fail(of_runs.error().message);
      return 2;
    }
    layout_text = of_runs->value_or("nhwc");
  }
  auto layout = graph::parse_layout(layout_text);
  if (!layout) return fail(layout.error().message);
  bool winograd = a.winograd == "on";
  if (a.winograd.empty()) {
    auto of_runs = agreed<bool>(a.records, winograd_of_run, "Winograd choices", "winograd");
    if (!of_runs) {
      fail(of_runs.error().message);
      return 2;
    }
    winograd = of_runs->value_or(true);
  }
  auto prepared = graph::prepare_network(*raw, *layout, winograd);
  if (!prepared) return fail(prepared.error().message);
  const graph::Graph* folded = &prepared->graph;
  const graph::NetworkTasks* network = &prepared->tasks;
  auto inputs = make_inputs(*raw, a);
  if (!inputs) return fail(inputs.error().message);

  std::fprintf(stderr, "%s: %zu tasks, %zu kernel launches, %s activations%s; compiling and checking each kernel...\n",
               a.model.c_str(), network->tasks.size(), network->order.size(), layout_text.c_str(),
               winograd ? ", Winograd convs" : "");
  std::vector<Built> built;
  for (const std::string& records : a.records.empty() ? std::vector<std::string>{""} : a.records) {
    const auto building = Clock::now();
    runtime::ExecutorOptions options;
    options.records = records;
    // The records' run directory keeps the checks, as the tune keeps its own there.
    options.checks_dir = checks_dir_of(records);
    auto executor = runtime::NetworkExecutor::build(*folded, *network, options);
    if (!executor) return fail((records.empty() ? "" : records + ": ") + executor.error().message);
    for (const std::string& w : executor->record_warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
    built.push_back({records, std::move(*executor), std::chrono::duration<double>(Clock::now() - building).count(), {}, {}});
  }
  const bool compared = built.size() > 1;
  const double build_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const Built& b : built) {
    std::fprintf(out, "built in %.1f s: schedules %s%s\n", compared ? b.build_seconds : build_seconds, b.executor.schedules().c_str(),
                 compared ? (" (" + b.records + ")").c_str() : "");
  }

  std::optional<std::map<std::string, graph::Value>> expected;
  if (a.check) {
    std::fprintf(stderr, "checking the outputs against the double-precision interpreter...\n");
    auto interpreted = graph::interpret(*raw, *inputs);
    if (!interpreted) return fail("reference interpreter: " + interpreted.error().message);
    expected = std::move(*interpreted);
  }
  for (size_t k = 0; k < built.size(); ++k) {
    Built& b = built[k];
    auto outputs = b.executor.run(*inputs, a.threads);
    if (!outputs) return fail(outputs.error().message);
    if (expected) {
      auto c = check_outputs(*raw, *expected, *outputs);
      if (!c) return fail(c.error().message);
      b.check = *c;
      std::fprintf(out, "check: max abs error %.3g against graph::interpret (double precision); output max |y| %.4g; "
          "tolerance %.0e x max |y| = %.3g: %s%s\n",
          b.check.max_abs_error, b.check.output_max_abs, kRelativeTolerance, b.check.tolerance,
          b.check.ok ? "OK" : "FAILED", compared ? (" (" + b.records + ")").c_str() : "");
    } else if (k == 0) {
      std::fprintf(out, "check: skipped (--no-check)\n");
    }
    if (k == 0 && !a.output.empty()) {
      const std::vector<float>& first = outputs->at(raw->outputs.front());
      std::ofstream file(a.output, std::ios::binary);
      file.write(reinterpret_cast<const char*>(first.data()), static_cast<std::streamsize>(first.size() * 4));
      if (!file) return fail(a.output + ": cannot write the output");
    }
  }

  for (Built& b : built) {
    for (int i = 0; i < kWarmupRuns; ++i) {
      if (auto r = b.executor.run(*inputs, a.threads); !r) return fail(r.error().message);
    }
    b.executor.set_timing(true);
    b.executor.reset_times();
  }
  // Rounds: each network once, the order rotated from round to round. The stopping rule is
  // the single network's, on the least-timed network.
  const size_t count = built.size();
  int rounds = 0;
  auto least_timed = [&] {
    double least = INFINITY;
    for (const Built& b : built) {
      double sum = 0;
      for (double s : b.seconds) sum += s;
      least = std::min(least, sum);
    }
    return least;
  };
  while (a.runs > 0 ? rounds < a.runs : (rounds < kMinRuns || (least_timed() < kMinTimedSeconds && rounds < kMaxRuns))) {
    for (size_t j = 0; j < count; ++j) {
      Built& b = built[(j + static_cast<size_t>(rounds)) % count];
      const auto t0 = Clock::now();
      if (auto r = b.executor.run(*inputs, a.threads); !r) return fail(r.error().message);
      b.seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    ++rounds;
  }
  const int runs = rounds;
  auto latency_ms = [](const Built& b) { return runtime::median(b.seconds) * 1e3; };
  // The median over rounds of b's time over the first network's in the same round.
  auto paired_ratio = [&](const Built& b) {
    std::vector<double> ratios;
    for (size_t r = 0; r < b.seconds.size(); ++r) ratios.push_back(b.seconds[r] / built.front().seconds[r]);
    return runtime::median(ratios);
  };
  auto task_total = [&](const Built& b) {
    double total = 0;
    for (const auto& t : b.executor.task_times()) total += t.seconds;
    return total;
  };

  const runtime::NetworkExecutor& first = built.front().executor;
  const auto& reports = first.tasks();
  if (!compared) {
    const auto& times = first.task_times();
    const double total = task_total(built.front());
    std::fprintf(out, "%-30s %-32s %6s %10s %6s %8s  %s\n", "task", "ops", "weight", "ms/inf", "share", "GFLOP/s", "schedule");
    for (size_t t = 0; t < reports.size(); ++t) {
      const runtime::TaskReport& r = reports[t];
      const double ms = times[t].seconds / runs * 1e3;
      const double gflops = times[t].seconds > 0 ? r.flops * static_cast<double>(times[t].calls) / times[t].seconds * 1e-9 : 0;
      std::string ops = r.ops.size() > 32 ? r.ops.substr(0, 29) + "..." : r.ops;
      std::fprintf(out, "%-30s %-32s %6d %10.3f %5.1f%% %8.1f  %s%s%s\n", r.name.substr(0, 30).c_str(), ops.c_str(), r.weight, ms,
          total > 0 ? 100 * times[t].seconds / total : 0.0, gflops, runtime::to_string(r.source),
          r.sketch.empty() ? "" : (" " + r.sketch).c_str(), r.note.empty() ? "" : "  [fallback]");
    }
    for (const runtime::TaskReport& r : reports) {
      if (!r.note.empty()) std::fprintf(out, "note: %s: %s\n", r.name.c_str(), r.note.c_str());
    }
  } else {
    // Per task, each network's ms per inference, and the later ones' over the first's: which
    // tasks make the difference.
    std::fprintf(out, "%-30s %6s", "task", "weight");
    for (size_t k = 0; k < count; ++k) std::fprintf(out, " %9s%zu", "ms/inf #", k + 1);
    for (size_t k = 1; k < count; ++k) std::fprintf(out, " %6s%zu/1", "#", k + 1);
    std::fprintf(out, "\n");
    for (size_t t = 0; t < reports.size(); ++t) {
      std::fprintf(out, "%-30s %6d", reports[t].name.substr(0, 30).c_str(), reports[t].weight);
      for (const Built& b : built) std::fprintf(out, " %10.3f", b.executor.task_times()[t].seconds / runs * 1e3);
      for (size_t k = 1; k < count; ++k) {
        const double base = first.task_times()[t].seconds;
        std::fprintf(out, " %9.3f", base > 0 ? built[k].executor.task_times()[t].seconds / base : 0.0);
      }
      std::fprintf(out, "\n");
    }
  }
  const runtime::MemoryPlan& plan = first.memory_plan();
  std::fprintf(out, "intermediates: %.2f MB in %zu buffers (%.2f MB without reuse)\n", plan.peak_bytes / 1e6,
      plan.buffer_bytes.size(), plan.total_bytes / 1e6);
  for (size_t k = 0; k < count; ++k) {
    const Built& b = built[k];
    std::fprintf(out, "latency: %.3f ms (median of %d runs after %d warm-up, %d thread%s; tasks sum to %.3f ms)", latency_ms(b),
        runs, kWarmupRuns, a.threads, a.threads == 1 ? "" : "s", task_total(b) / runs * 1e3);
    if (compared) {
      std::fprintf(out, " #%zu %s", k + 1, b.records.c_str());
      if (k > 0) std::fprintf(out, "; paired ratio to #1 %.4f (median of the rounds' ratios)", paired_ratio(b));
    }
    std::fprintf(out, "\n");
  }
  bool ok = true;
  for (const Built& b : built) ok &= b.check.ok;
  if (a.json) {
    auto fields = [&](const Built& b) {
      return nlohmann::json{
          {"latency_ms", latency_ms(b)},
          {"kernels", b.executor.kernel_calls()},
          {"schedules", b.executor.schedules()},
          {"max_abs_error_vs_reference", a.check ? nlohmann::json(b.check.max_abs_error) : nlohmann::json(nullptr)},
          {"reference_tolerance", a.check ? nlohmann::json(b.check.tolerance) : nlohmann::json(nullptr)},
      };
    };
    nlohmann::json line = fields(built.front());
    line.update({
        {"model", std::filesystem::path(a.model).stem().string()},
        {"threads", a.threads},
        {"tasks", reports.size()},
        {"peak_intermediate_bytes", plan.peak_bytes},
        {"total_intermediate_bytes", plan.total_bytes},
        {"runs", runs},
        {"build_seconds", build_seconds},
    });
    if (compared) {
      line["compared"] = nlohmann::json::array();
      for (const Built& b : built) {
        nlohmann::json entry = fields(b);
        entry["records"] = b.records;
        entry["paired_ratio_to_first"] = paired_ratio(b);
        nlohmann::json task_ms = nlohmann::json::object();  // ms per inference, each task's calls together
        for (size_t t = 0; t < reports.size(); ++t) task_ms[reports[t].name] = b.executor.task_times()[t].seconds / runs * 1e3;
        entry["task_ms"] = task_ms;
        line["compared"].push_back(entry);
      }
    }
    std::printf("%s\n", line.dump().c_str());
  }
  return ok ? 0 : 1;
}

}  // namespace tessera::experiments

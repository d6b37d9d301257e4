// The network measured end to end during tuning, and its curve (see network_progress.h).
#include "experiments/network_progress.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "experiments/config.h"
#include "runtime/network_executor.h"
#include "runtime/timing.h"

namespace tessera::experiments {

Result<double> measure_network(const graph::Graph& folded, const graph::NetworkTasks& tasks, const std::string& records,
                               int threads, uint64_t seed, int runs, runtime::ExecutorCache* cache, double min_seconds) {
  using Clock = std::chrono::steady_clock;
  runtime::ExecutorOptions options;
  options.records = records;
  options.check_seed = seed;
  options.checks_dir = checks_dir_of(records);
  options.cache = cache;
  auto executor = runtime::NetworkExecutor::build(folded, tasks, options);
  if (!executor) return executor.error();
  const auto inputs = runtime::random_network_inputs(folded, seed);
  for (int i = 0; i < 3; ++i) {
    if (auto r = executor->run(inputs, threads); !r) return r.error();
  }
  std::vector<double> seconds;
  double timed = 0;
  while (static_cast<int>(seconds.size()) < std::max(1, runs) || timed < min_seconds) {
    const auto start = Clock::now();
    if (auto r = executor->run(inputs, threads); !r) return r.error();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    timed += seconds.back();
  }
  return runtime::median(seconds);
}

std::string network_curve_svg(const std::vector<CurvePoint>& points) {
  const double width = 720, height = 420, left = 70, right = 20, top = 30, bottom = 50;
  std::vector<const CurvePoint*> estimate, measured;
  double max_seconds = 1, max_ms = 0;
  for (const CurvePoint& p : points) {
    const bool is_estimate = p.task == kNetworkEstimateRow, is_measured = p.task == kNetworkMeasuredRow;
    if ((!is_estimate && !is_measured) || p.best_seconds <= 0) continue;
    (is_estimate ? estimate : measured).push_back(&p);
    max_seconds = std::max(max_seconds, p.elapsed_seconds);
    max_ms = std::max(max_ms, p.best_seconds * 1e3);
  }
  if (max_ms <= 0) max_ms = 1;
  auto x = [&](double s) { return left + s / max_seconds * (width - left - right); };
  auto y = [&](double ms) { return height - bottom - ms / (max_ms * 1.1) * (height - top - bottom); };
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << width / 2 << "\" y=\"18\" text-anchor=\"middle\">network latency (ms) vs tuning time</text>\n"
      << "<line x1=\"" << left << "\" y1=\"" << y(0) << "\" x2=\"" << width - right << "\" y2=\"" << y(0)
      << "\" stroke=\"black\"/>\n<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\"" << y(0)
      << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double ms = max_ms * 1.1 * i / 4, s = max_seconds * i / 4;
    svg << "<text x=\"" << left - 6 << "\" y=\"" << y(ms) + 4 << "\" text-anchor=\"end\">" << std::round(ms * 100) / 100
        << "</text>\n<text x=\"" << x(s) << "\" y=\"" << y(0) + 18 << "\" text-anchor=\"middle\">"
        << static_cast<int>(s) << "</text>\n";
  }
  svg << "<text x=\"" << (left + width - right) / 2 << "\" y=\"" << height - 12
      << "\" text-anchor=\"middle\">seconds of tuning</text>\n";
  svg << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
  for (const CurvePoint* p : estimate) svg << x(p->elapsed_seconds) << "," << y(p->best_seconds * 1e3) << " ";
  svg << "\"/>\n<text x=\"" << left + 10 << "\" y=\"" << top + 16 << "\" fill=\"#1f77b4\">estimated (sum of weight x best)</text>\n";
  for (const CurvePoint* p : measured) {
    svg << "<circle cx=\"" << x(p->elapsed_seconds) << "\" cy=\"" << y(p->best_seconds * 1e3)
        << "\" r=\"4\" fill=\"#d62728\"/>\n";
  }
  svg << "<text x=\"" << left + 10 << "\" y=\"" << top + 32 << "\" fill=\"#d62728\">measured end to end</text>\n</svg>\n";
  return svg.str();
}

}  // namespace tessera::experiments

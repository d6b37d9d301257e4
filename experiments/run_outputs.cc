// curve.csv and curve.svg (see run_outputs.h).
#include "experiments/run_outputs.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace tessera::experiments {

std::vector<CurvePoint> read_curve(const std::string& path) {
  std::vector<CurvePoint> points;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    // task names are quoted and may hold commas: the numbers are the last four or five fields
    size_t close = line.rfind('"');
    if (line.empty() || line[0] != '"' || close == 0 || close == std::string::npos) continue;
    CurvePoint p;
    p.task = line.substr(1, close - 1);
    if (std::sscanf(line.c_str() + close + 1, ",%d,%lf,%lf,%lf,%lf", &p.trial, &p.elapsed_seconds,
                    &p.best_seconds, &p.best_gflops, &p.best_gbps) >= 4) {
      points.push_back(p);
    }
  }
  return points;
}

void append_curve(const std::string& path, const CurvePoint& p) {
  std::string header;
  std::ifstream existing(path);
  bool fresh = !std::getline(existing, header);
  existing.close();
  bool with_gbps = fresh || header.find(",best_gbps") != std::string::npos;
  std::ofstream out(path, std::ios::app);
  if (fresh) out << "task,trial,elapsed_seconds,best_seconds,best_gflops,best_gbps\n";
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, ",%d,%.3f,%.9g,%.3f", p.trial, p.elapsed_seconds,
                p.best_seconds, p.best_gflops);
  std::string row = numbers;
  if (with_gbps) {
    std::snprintf(numbers, sizeof numbers, ",%.3f", p.best_gbps);
    row += numbers;
  }
  out << '"' << p.task << '"' << row << "\n";
}

std::string curve_svg(const std::vector<CurvePoint>& points) {
  const double width = 720, height = 420, left = 70, right = 20, top = 30, bottom = 50;
  std::map<std::string, std::vector<const CurvePoint*>> by_task;
  double max_trial = 1, max_gflops = 1;
  for (const CurvePoint& p : points) {
    by_task[p.task].push_back(&p);
    max_trial = std::max(max_trial, static_cast<double>(p.trial));
    max_gflops = std::max(max_gflops, p.best_gflops);
  }
  auto x = [&](double t) { return left + t / max_trial * (width - left - right); };
  auto y = [&](double g) { return height - bottom - g / (max_gflops * 1.1) * (height - top - bottom); };
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << width / 2 << "\" y=\"18\" text-anchor=\"middle\">best GFLOP/s found vs trials</text>\n"
      << "<line x1=\"" << left << "\" y1=\"" << y(0) << "\" x2=\"" << width - right << "\" y2=\"" << y(0)
      << "\" stroke=\"black\"/>\n<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left
      << "\" y2=\"" << y(0) << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    double g = max_gflops * 1.1 * i / 4, t = max_trial * i / 4;
    svg << "<text x=\"" << left - 6 << "\" y=\"" << y(g) + 4 << "\" text-anchor=\"end\">"
        << static_cast<int>(g) << "</text>\n<text x=\"" << x(t) << "\" y=\"" << y(0) + 18
        << "\" text-anchor=\"middle\">" << static_cast<int>(t) << "</text>\n";
  }
  svg << "<text x=\"" << (left + width - right) / 2 << "\" y=\"" << height - 12
      << "\" text-anchor=\"middle\">trials</text>\n";
  int color = 0;
  for (const auto& [task, series] : by_task) {
    const char* c = kColors[color % 6];
    svg << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"";
    for (const CurvePoint* p : series) svg << x(p->trial) << "," << y(p->best_gflops) << " ";
    svg << "\"/>\n<text x=\"" << left + 10 << "\" y=\"" << top + 16 * (color + 1) << "\" fill=\"" << c
        << "\">" << task.substr(0, 80) << "</text>\n";
    ++color;
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace tessera::experiments

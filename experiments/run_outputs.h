// The files of a run directory besides the records: curve.csv rows, summary.json and the SVG
// plot of the best throughput per task against trials.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessera::experiments {

struct CurvePoint {
  std::string task;
  int trial;
  double elapsed_seconds;
  double best_seconds;  // 0 while nothing has measured correctly
  double best_gflops;
};

// Reads curve.csv (missing file: empty), so a resumed run continues its curve and clock.
std::vector<CurvePoint> read_curve(const std::string& path);
void append_curve(const std::string& path, const CurvePoint& point);  // writes the header first
// Best GFLOP/s against trials, one line per task.
std::string curve_svg(const std::vector<CurvePoint>& points);

}  // namespace tessera::experiments

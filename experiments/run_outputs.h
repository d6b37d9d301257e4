// The files of a run directory besides the records: curve.csv rows, summary.json and the SVG
// plot of the best throughput per task against trials.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessera::experiments {

// Lines for the user (stderr) and the run's log (run.log, flushed per line).
class RunLog {
 public:
  explicit RunLog(const std::string& path) : file_(path, std::ios::app) {}
  void say(const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    file_ << line << "\n";
    file_.flush();
  }

 private:
  std::ofstream file_;
};

struct CurvePoint {
  std::string task;
  int trial;
  double elapsed_seconds;
  double best_seconds;  // 0 while nothing has measured correctly
  double best_gflops;
  double best_gbps = 0;  // bytes that must move (ComputeDAG::min_bytes) per best_seconds
};

// Reads curve.csv (missing file: empty), so a resumed run continues its curve and clock.
// Files written before best_gbps was added (five columns) read with best_gbps 0.
std::vector<CurvePoint> read_curve(const std::string& path);
// Writes the header first; appends to a five-column file in its own five columns.
void append_curve(const std::string& path, const CurvePoint& point);
// Best GFLOP/s against trials, one line per task.
std::string curve_svg(const std::vector<CurvePoint>& points);

}  // namespace tessera::experiments

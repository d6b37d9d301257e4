// The network tune's round log (see round_log.h).
#include "experiments/round_log.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace tessera::experiments {

void append_round(const std::string& path, const LoggedRound& round) {
  const env::RoundResult& r = round.result;
  nlohmann::json line = {{"task", round.task}, {"transfer", round.transfer}, {"trials", r.trials},
                         {"seconds", r.seconds}, {"exhausted", r.exhausted}};
  // JSON has no infinity: a task with nothing correct yet has no best.
  if (std::isfinite(r.best_seconds)) line["best_seconds"] = r.best_seconds;
  if (r.search_seconds > 0 || r.measure_seconds > 0) {
    line["search_seconds"] = r.search_seconds;
    line["measure_seconds"] = r.measure_seconds;
  }
  std::ofstream out(path, std::ios::app);
  out << line.dump() << "\n";
  out.flush();
}

std::vector<LoggedRound> read_rounds(const std::string& path, std::vector<std::string>* warnings) {
  std::vector<LoggedRound> rounds;
  std::ifstream in(path);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.empty()) continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(text);
      LoggedRound round;
      round.task = j.at("task").get<std::string>();
      round.transfer = j.value("transfer", false);
      round.result.trials = j.at("trials").get<int>();
      round.result.seconds = j.at("seconds").get<double>();
      round.result.exhausted = j.value("exhausted", false);
      round.result.best_seconds = j.value("best_seconds", std::numeric_limits<double>::infinity());
      round.result.search_seconds = j.value("search_seconds", 0.0);
      round.result.measure_seconds = j.value("measure_seconds", 0.0);
      if (round.result.seconds < 0 || round.result.trials < 0) throw std::invalid_argument("negative trials or seconds");
      rounds.push_back(std::move(round));
    } catch (const std::exception& e) {
      if (warnings) warnings->push_back(path + ":" + std::to_string(line) + ": round skipped: " + e.what());
    }
  }
  return rounds;
}

}  // namespace tessera::experiments

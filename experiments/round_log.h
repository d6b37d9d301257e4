// rounds.jsonl: a network tune's round log, one JSON line per round (the task, whether it was a
// transfer round, and the task's best, trials and round seconds after it). A resumed run
// replays it into the network environment and the allocator (env::NetworkEnv::replay), so that
// the rounds, per-task seconds and gains the allocator decides by survive a kill: without it a
// resumed harl or gradient run gave every task its warm-up round again.
//
// The records stay the source of truth for what was measured; a round killed before its line
// was written is simply not replayed (its measurements are restored from the records).
#pragma once

#include <string>
#include <vector>

#include "env/network_env.h"

namespace tessera::experiments {

struct LoggedRound {
  std::string task;
  bool transfer = false;  // a transfer round (measured before any search; the allocator did not choose it)
  env::RoundResult result;
};

// Appends one line and flushes it.
void append_round(const std::string& path, const LoggedRound& round);

// The rounds in order (missing file: none). A line that does not parse (a half-written last
// line after a kill) is skipped with a warning naming the file and line.
std::vector<LoggedRound> read_rounds(const std::string& path, std::vector<std::string>* warnings);

}  // namespace tessera::experiments

// tessera_bench: runs benchmark cases by name and prints one JSON object per line per case.
// Invoked by bench/run.sh, which builds it and prepares the environment (see README).
#include <cstdio>
#include <string>
#include <vector>

#include "bench/cases.h"

int main(int argc, char** argv) {
  const auto& cases = tessera::bench::all_cases();
  std::vector<std::string> wanted(argv + 1, argv + argc);
  if (wanted.empty()) {
    for (const auto& c : cases) wanted.push_back(c.name);
  }
  int failures = 0;
  for (const std::string& name : wanted) {
    const tessera::bench::Case* found = nullptr;
    for (const auto& c : cases) {
      if (c.name == name) found = &c;
    }
    if (!found) {
      std::string known;
      for (const auto& c : cases) known += " " + c.name;
      std::fprintf(stderr, "tessera_bench: unknown case '%s' (known:%s)\n", name.c_str(), known.c_str());
      return 2;
    }
    nlohmann::json result = found->run();
    // A case returns one line, or a list of lines (one per task and strategy).
    for (nlohmann::json& line : result.is_array() ? result : nlohmann::json::array({result})) {
      line["case"] = name;
      if (line.contains("error")) ++failures;
      std::printf("%s\n", line.dump().c_str());
    }
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}

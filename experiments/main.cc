// The `tessera` command-line tool: dispatches to its subcommands.
#include <cstdio>
#include <string>
#include <vector>

#include "experiments/quickstart.h"

namespace {

void print_help() {
  std::printf(
      "usage: tessera <command> [options]\n\n"
      "commands:\n"
      "  quickstart [--m N] [--n N] [--k N] [--threads N] [--print-ir]\n"
      "      JIT-compile the hand-scheduled matmul (default 1024^3), check it against the\n"
      "      reference evaluator and print its GFLOP/s.\n"
      "  help\n"
      "      this text.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    print_help();
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "quickstart") return tessera::experiments::run_quickstart(args);
  std::fprintf(stderr, "tessera: unknown command '%s' (try 'tessera help')\n", command.c_str());
  return 2;
}

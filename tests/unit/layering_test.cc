// The one-way layering rule, schedule <- graph <- runtime <- env|mpi <- agents <- experiments,
// checked on the source tree: an #include of a higher layer fails, and so does an LLVM or
// LibTorch header outside the folders allowed to hold one, or an ONNX header outside the
// sources of graph/onnx/ (its public header stays ONNX-free), or <mpi.h> outside mpi/comm.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const std::map<std::string, int> kRank = {
    {"schedule", 1}, {"graph", 2}, {"runtime", 3}, {"env", 4}, {"mpi", 4}, {"agents", 5}, {"experiments", 6}};

struct Violation {
  std::string file;
  int line;
  std::string text;
};

std::vector<Violation> scan(const fs::path& root) {
  std::vector<Violation> found;
  const std::regex project_include(R"(^\s*#\s*include\s*"([a-z_]+)/)");
  const std::regex system_include(R"(^\s*#\s*include\s*<(llvm|torch|ATen|cuda|nvrtc|onnx|mpi)[/.])");
  for (const auto& [folder, rank] : kRank) {
    if (!fs::exists(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cc") continue;
      std::ifstream in(entry.path());
      std::string line;
      int number = 0;
      const std::string rel = fs::relative(entry.path(), root).string();
      while (std::getline(in, line)) {
        ++number;
        std::smatch m;
        if (std::regex_search(line, m, project_include)) {
          auto target = kRank.find(m[1].str());
          if (target != kRank.end() && target->second > rank) found.push_back({rel, number, line});
        }
        if (std::regex_search(line, m, system_include)) {
          const std::string lib = m[1].str();
          bool allowed = (lib == "llvm" && rel.rfind("runtime/", 0) == 0) ||
                         ((lib == "torch" || lib == "ATen") &&
                          (rel.rfind("agents/rl/", 0) == 0 || rel.rfind("env/proxy/", 0) == 0)) ||
                         ((lib == "cuda" || lib == "nvrtc") && rel.rfind("runtime/cuda/", 0) == 0) ||
                         (lib == "onnx" && rel.rfind("graph/onnx/", 0) == 0 && ext == ".cc") ||
                         (lib == "mpi" && rel == "mpi/comm.cc");
          if (!allowed) found.push_back({rel, number, line});
        }
      }
    }
  }
  return found;
}

TEST(Layering, NoIncludeCrossesALayerUpward) {
  ASSERT_TRUE(fs::exists(fs::path(TESSERA_SOURCE_DIR) / "schedule" / "expr.h"));
  for (const Violation& v : scan(TESSERA_SOURCE_DIR)) {
    ADD_FAILURE() << v.file << ":" << v.line << ": " << v.text;
  }
}

TEST(Layering, TheScannerCatchesViolations) {
  const fs::path root = fs::temp_directory_path() / ("tessera_layering_" + std::to_string(::getpid()));
  fs::create_directories(root / "schedule");
  fs::create_directories(root / "runtime");
  fs::create_directories(root / "graph" / "onnx");
  std::ofstream(root / "schedule" / "bad.h") << "#include \"runtime/kernel.h\"\n";
  std::ofstream(root / "schedule" / "net.h") << "#include \"graph/graph.h\"\n";
  std::ofstream(root / "graph" / "onnx" / "import.h") << "#include <onnx/onnx_pb.h>\n";
  std::ofstream(root / "graph" / "onnx" / "import.cc") << "#include <onnx/onnx_pb.h>\n#include \"schedule/ops.h\"\n";
  std::ofstream(root / "graph" / "fuse.cc") << "#include \"runtime/kernel.h\"\n";
  std::ofstream(root / "schedule" / "jit.cc") << "#include <llvm/IR/Module.h>\n";
  std::ofstream(root / "runtime" / "fine.cc") << "#include \"schedule/expr.h\"\n#include <llvm/IR/Module.h>\n";
  std::vector<Violation> found = scan(root);
  fs::remove_all(root);
  // schedule/bad.h, schedule/jit.cc, schedule/net.h, graph/onnx/import.h, graph/fuse.cc.
  ASSERT_EQ(found.size(), 5u);
  std::set<std::string> files;
  for (const Violation& v : found) files.insert(v.file);
  EXPECT_EQ(files, (std::set<std::string>{"graph/fuse.cc", "graph/onnx/import.h", "schedule/bad.h",
                                          "schedule/jit.cc", "schedule/net.h"}));
}

}  // namespace

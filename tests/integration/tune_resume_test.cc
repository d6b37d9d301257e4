// `tessera tune` end to end: a run killed with SIGKILL at random moments and resumed each
// time measures exactly the candidates an uninterrupted run measures, none twice; the run
// directory holds every output; best and replay read it back.
#include <gtest/gtest.h>
#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "runtime/records.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

const std::string kTessera = std::string(TESSERA_BINARY_DIR) + "/tessera";

std::string write_config(const fs::path& dir, const std::string& run_dir) {
  fs::create_directories(dir);
  const fs::path path = dir / "tiny.yaml";
  std::ofstream(path) << "run_dir: " << run_dir << "\n"
                      << "seed: 5\n"
                      << "tasks: [{op: matmul, params: {m: 24, n: 32, k: 16}}]\n"
                      << "search: {agent: random}\n"
                      << "budget: {trials: 128, batch_size: 8}\n"
                      << "measure: {repeat: 2, min_repeat_ms: 1}\n";
  return path.string();
}

pid_t start(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::multiset<std::string> measured(const std::string& run_dir) {
  auto file = tessera::runtime::read_records(run_dir + "/records.jsonl");
  std::multiset<std::string> ids;
  if (file) {
    for (const auto& r : file->records) ids.insert(r.sketch + " " + r.knobs.dump());
  }
  return ids;
}

TEST(TuneResume, KilledAtRandomMomentsLosesAndRepeatsNothing) {
  const fs::path root = fs::temp_directory_path() / ("tessera_resume_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string straight = (root / "straight").string(), killed = (root / "killed").string();

  // Uninterrupted.
  ASSERT_EQ(wait_for(start({kTessera, "tune", write_config(root / "a", straight)})), 0);
  auto expected = measured(straight);
  ASSERT_EQ(expected.size(), 128u);
  EXPECT_EQ(std::set<std::string>(expected.begin(), expected.end()).size(), 128u);
  for (const char* file : {"config.yaml", "records.jsonl", "curve.csv", "curve.svg", "summary.json", "run.log"}) {
    EXPECT_TRUE(fs::exists(fs::path(straight) / file)) << file;
  }

  // Killed five times at random moments, resumed after each.
  const std::string config = write_config(root / "b", killed);
  std::mt19937_64 rng(11);
  int kills = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    pid_t pid = start({kTessera, "tune", config});
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(100, 300)(rng)));
    ::kill(pid, SIGKILL);
    if (wait_for(pid) == -SIGKILL) ++kills;  // it was still running when killed
  }
  EXPECT_EQ(kills, 5) << "a run finished before its kill; the test did not test resume";
  EXPECT_LT(measured(killed).size(), 128u) << "the killed runs finished the budget";
  ASSERT_EQ(wait_for(start({kTessera, "tune", config})), 0);
  auto got = measured(killed);
  EXPECT_EQ(got, expected) << "resumed runs measured a different set of candidates";

  EXPECT_EQ(wait_for(start({kTessera, "best", killed})), 0);
  EXPECT_EQ(wait_for(start({kTessera, "replay", killed})), 0);
  fs::remove_all(root);
}

TEST(TuneResume, RefusedConfigWritesNothing) {
  const fs::path root = fs::temp_directory_path() / ("tessera_refused_" + std::to_string(::getpid()));
  fs::create_directories(root);
  std::ofstream(root / "bad.yaml") << "run_dir: " << (root / "run").string() << "\n"
                                   << "tasks: [{op: matmul, params: {m: 8, n: 8, k: 8}}]\n"
                                   << "budget: {trials: -1}\n";
  EXPECT_EQ(wait_for(start({kTessera, "tune", (root / "bad.yaml").string()})), 2);
  EXPECT_FALSE(fs::exists(root / "run"));
  fs::remove_all(root);
}

}  // namespace

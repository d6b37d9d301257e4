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
#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <sstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "runtime/records.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

const std::string kTessera = std::string(TESSERA_BINARY_DIR) + "/tessera";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

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
  // The whole budget was spent: the summary says the trial rule stopped it (not convergence).
  EXPECT_EQ(nlohmann::json::parse(read_file(fs::path(straight) / "summary.json"))["tasks"][0]["stopped_by"], "trials");

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

size_t line_count(const fs::path& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}


// Every file of a directory with its bytes: to show that a refused run changed nothing.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path());
  }
  return files;
}

// Runs the tessera CLI with stderr captured.
int run_capturing(const std::vector<std::string>& args, const fs::path& err, std::string* text) {
  std::string command;
  for (const auto& a : args) command += "'" + a + "' ";
  int status = std::system((command + "> /dev/null 2> '" + err.string() + "'").c_str());
  *text = read_file(err);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TuneResume, AKillInTheMiddleOfABatchKeepsItsFinishedMeasurements) {
  const fs::path root = fs::temp_directory_path() / ("tessera_midbatch_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path run = root / "run";
  const fs::path config = root / "midbatch.yaml";
  // One batch of 16 whose candidates take ~60 ms each to measure: the kill lands inside it.
  std::ofstream(config) << "run_dir: " << run.string() << "\n"
                        << "seed: 9\n"
                        << "tasks: [{op: matmul, params: {m: 32, n: 32, k: 32}}]\n"
                        << "search: {agent: random}\n"
                        << "budget: {trials: 32, batch_size: 16}\n"
                        << "measure: {repeat: 2, min_repeat_ms: 15, warmup_ms: 20, retime_top: 0}\n";
  pid_t pid = start({kTessera, "tune", config.string()});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (line_count(run / "records.jsonl") < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  ASSERT_EQ(wait_for(pid), -SIGKILL) << "the run ended before the kill";
  const size_t kept = line_count(run / "records.jsonl");
  ASSERT_GE(kept, 3u);
  ASSERT_LT(kept, 16u) << "the kill did not land inside the first batch; the test tested nothing";
  // Records come per measurement, not per batch; so does the time spent (a curve point each).
  EXPECT_EQ(measured(run.string()).size(), kept);
  const size_t curve_rows = line_count(run / "curve.csv") - 1;
  EXPECT_GE(curve_rows + 1, kept) << "time spent was not carried with each measurement";

  ASSERT_EQ(wait_for(start({kTessera, "tune", config.string()})), 0);
  auto all = measured(run.string());
  EXPECT_EQ(all.size(), 32u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size()) << "a candidate was measured twice";
  EXPECT_NE(read_file(run / "run.log").find("resuming: " + std::to_string(kept) + " trials restored"), std::string::npos)
      << read_file(run / "run.log");
  fs::remove_all(root);
}

TEST(TuneResume, AnotherMachinesRecordsAreRefusedAndNothingIsWritten) {
  const fs::path root = fs::temp_directory_path() / ("tessera_foreign_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string run = (root / "run").string();
  const std::string config = write_config(root, run);
  ASSERT_EQ(wait_for(start({kTessera, "tune", config, "--set", "budget.trials=40"})), 0);
  // The same records as if copied from another machine: only the fingerprint differs.
  {
    std::string text = read_file(fs::path(run) / "records.jsonl"), out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      auto j = nlohmann::json::parse(line);
      j["hardware"]["cpu_model"] = "Imaginary CPU 9000";
      j["hardware"]["llvm_cpu"] = "imaginary";
      out += j.dump() + "\n";
    }
    std::ofstream(fs::path(run) / "records.jsonl", std::ios::trunc) << out;
  }
  auto before = snapshot(run);
  std::string said;
  EXPECT_EQ(run_capturing({kTessera, "tune", config, "--set", "budget.trials=80"}, root / "err.txt", &said), 1);
  EXPECT_NE(said.find("40 of 40 records were measured on another machine"), std::string::npos) << said;
  EXPECT_NE(said.find("Imaginary CPU 9000"), std::string::npos) << "names the other machine: " << said;
  EXPECT_NE(said.find(tessera::runtime::host_fingerprint().id()), std::string::npos) << "names this one: " << said;
  EXPECT_NE(said.find("choose a new run_dir"), std::string::npos) << said;
  EXPECT_EQ(snapshot(run), before) << "a refused resume changed the run directory";

  // Reading them on purpose is its own path: proxy pre-training takes them.
  EXPECT_EQ(run_capturing({kTessera, "proxy-eval", run + "/records.jsonl", "--save", (root / "w.pt").string()},
                          root / "err2.txt", &said), 0) << said;
  EXPECT_TRUE(fs::exists(root / "w.pt"));
  fs::remove_all(root);
}

// One timing per candidate, no warm-up and no re-timing at the end: what a test of the run's
// bookkeeping needs, not of its timing.
const std::string kQuickMeasure = "{repeat: 1, min_repeat_ms: 1, warmup_ms: 0, retime_top: 0}";

// A fresh directory `name`_PID under the temp directory with net.yaml: the tiny CNN of
// tests/integration/models tuned into ROOT/run by the gradient scheduler over random search.
fs::path tiny_cnn_config(const std::string& name, const std::string& budget, const std::string& measure = kQuickMeasure) {
  const fs::path root = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  std::ofstream(root / "net.yaml") << "run_dir: " << (root / "run").string() << "\n"
                                   << "network: " << TESSERA_SOURCE_DIR << "/tests/integration/models/tiny_cnn.onnx\n"
                                   << "allocator: gradient\n"
                                   << "search: {agent: random}\n"
                                   << "budget: " << budget << "\n"
                                   << "measure: " << measure << "\n";
  return root;
}

// (tuning clock, seconds) of the rows of `task` in RUN/curve.csv, in file order.
std::vector<std::pair<double, double>> curve_rows(const fs::path& run, const std::string& task) {
  std::vector<std::pair<double, double>> rows;
  std::istringstream in(read_file(run / "curve.csv"));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    if (cells.size() >= 4 && cells[0] == "\"" + task + "\"") rows.emplace_back(std::stod(cells[2]), std::stod(cells[3]));
  }
  return rows;
}

// A whole network (the tiny CNN of tests/integration/models): killed at random moments and
// resumed, nothing measured is lost and nothing is measured twice; the last run measures the
// network end to end with the tuned kernels.
TEST(TuneNetwork, KilledAtRandomMomentsLosesAndRepeatsNothing) {
  const fs::path root = tiny_cnn_config("tessera_network", "{trials: 48, batch_size: 4}",
                                        "{repeat: 1, min_repeat_ms: 2, warmup_ms: 0, retime_top: 2, retime_rounds: 2}");
  const fs::path run = root / "run", config = root / "net.yaml";
  std::mt19937_64 rng(21);
  std::multiset<std::string> before;
  int kills = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    pid_t pid = start({kTessera, "tune", config.string()});
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(400, 1200)(rng)));
    ::kill(pid, SIGKILL);
    kills += wait_for(pid) == -SIGKILL;
    auto now = measured(run.string());
    EXPECT_TRUE(std::includes(now.begin(), now.end(), before.begin(), before.end())) << "a kill lost measurements";
    before = now;
  }
  EXPECT_EQ(kills, 5) << "a run finished before its kill; the test did not test resume";
  EXPECT_LT(before.size(), 48u);
  std::string said;
  ASSERT_EQ(run_capturing({kTessera, "tune", config.string()}, root / "err.txt", &said), 0) << said;
  auto all = measured(run.string());
  EXPECT_GE(all.size(), 48u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size()) << "a candidate was measured twice";
  EXPECT_TRUE(std::includes(all.begin(), all.end(), before.begin(), before.end()));
  EXPECT_NE(said.find("trials restored"), std::string::npos) << said;
  auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary["tasks"].size(), 4u);
  EXPECT_GT(summary.value("measured_ms", 0.0), 0.0) << "the network was not run with the tuned kernels";
  EXPECT_GT(summary.value("estimated_ms", 0.0), 0.0);
  // fails if the allocator's own estimate is missing or in other units than the re-timed one (ms)
  const double in_loop = summary.value("estimated_ms_in_loop", 0.0), estimated = summary.value("estimated_ms", 0.0);
  EXPECT_GT(in_loop, 0.3 * estimated) << summary.dump(2);
  EXPECT_LT(in_loop, 3.0 * estimated) << summary.dump(2);
  // `tessera best` reads a network run back (it used to find no task and print nothing): each
  // fused task with its best schedule.
  const fs::path best = root / "best.txt";
  ASSERT_EQ(std::system(("'" + std::string(kTessera) + "' best '" + run.string() + "' > '" + best.string() + "'").c_str()), 0);
  const std::string shown = read_file(best);
  for (const auto& task : summary["tasks"]) {
    EXPECT_NE(shown.find("== " + task.value("name", std::string("?")) + "\n"), std::string::npos) << shown;
    // The op tag the allocators group similar tasks by, which bench/'s allocator_replay reads
    // back: the task's first ONNX op, which its name spells in lower case after "tN_" (fails if
    // it is not written, or written from another field).
    const std::string name = task.value("name", std::string());
    std::string tag = task.value("op_tag", std::string());
    EXPECT_FALSE(tag.empty()) << task.dump();
    for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(name.find("_" + tag), name.find('_')) << task.dump();
  }
  fs::remove_all(root);
}

// A resumed network run replays its round log (rounds.jsonl) into the allocator: no task gets
// its warm-up round again, the round count goes on, and every round has its line (fails if the
// log is not written, not read, or read without telling the allocator: the gradient scheduler
// then warms every task up again after each resume).
TEST(TuneNetwork, AResumedRunGoesOnFromItsRounds) {
  const fs::path root = tiny_cnn_config("tessera_rounds", "{trials: 24, batch_size: 4}");
  const fs::path run = root / "run", config = root / "net.yaml";
  std::string said;
  ASSERT_EQ(run_capturing({kTessera, "tune", config.string()}, root / "first.txt", &said), 0) << said;
  EXPECT_NE(said.find("warm-up: its first round"), std::string::npos) << said;
  const auto rounds_in = [](const std::string& text) {
    size_t n = 0;
    for (size_t at = text.find("[round "); at != std::string::npos; at = text.find("[round ", at + 1)) ++n;
    return n;
  };
  const size_t first_rounds = rounds_in(said);
  ASSERT_GE(first_rounds, 4u) << said;
  ASSERT_EQ(run_capturing({kTessera, "tune", config.string(), "--set", "budget.trials=40"}, root / "second.txt", &said), 0)
      << said;
  EXPECT_NE(said.find(std::to_string(first_rounds) + " rounds replayed"), std::string::npos) << said;
  EXPECT_EQ(said.find("warm-up"), std::string::npos) << "a task was warmed up again after the resume:\n" << said;
  EXPECT_NE(said.find("[round " + std::to_string(first_rounds + 1) + "]"), std::string::npos) << said;
  const std::string log = read_file(run / "rounds.jsonl");
  EXPECT_EQ(static_cast<size_t>(std::count(log.begin(), log.end(), '\n')), first_rounds + rounds_in(said));
  fs::remove_all(root);
}

// The machine probe (experiments/machine_probe.h): one curve.csv row at the start and one after
// every round once budget.probe_every_s has passed (here: every round), each a positive time
// taken at its round's tuning clock; none of its timings reach the records; 0 turns it off.
TEST(TuneNetwork, TheMachineProbeIsTimedBesideTheSearchNotInIt) {
  const fs::path root = tiny_cnn_config("tessera_probe", "{trials: 24, batch_size: 4, probe_every_s: 0.000001}");
  const fs::path run = root / "run", config = root / "net.yaml";
  std::string said;
  ASSERT_EQ(run_capturing({kTessera, "tune", config.string()}, root / "first.txt", &said), 0) << said;
  EXPECT_NE(said.find("machine probe: "), std::string::npos) << said;
  const auto rows_of = [&](const std::string& task) { return curve_rows(run, task); };
  const auto probes = rows_of("<machine probe>"), rounds = rows_of("<network>");
  ASSERT_GE(rounds.size(), 4u);
  // fails if a round's probe is skipped or taken twice, or the start's is missing
  ASSERT_EQ(probes.size(), rounds.size() + 1);
  EXPECT_EQ(probes.front().first, 0.0);
  for (size_t i = 0; i < rounds.size(); ++i) {
    EXPECT_EQ(probes[i + 1].first, rounds[i].first) << "probe " << i + 1 << " not at its round's clock";
  }
  for (const auto& [elapsed, seconds] : probes) EXPECT_GT(seconds, 0.0) << "at " << elapsed << " s";
  // fails if the probe's timings are recorded as the run's trials (a duplicate default schedule)
  auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(static_cast<int>(line_count(run / "records.jsonl")), summary.value("trials", -1));
  // Off: a resume with probe_every_s 0 adds rounds and no probe.
  ASSERT_EQ(run_capturing({kTessera, "tune", config.string(), "--set", "budget.trials=40", "--set", "budget.probe_every_s=0"},
                          root / "second.txt", &said), 0) << said;
  EXPECT_GT(rows_of("<network>").size(), rounds.size());
  EXPECT_EQ(rows_of("<machine probe>").size(), probes.size());
  fs::remove_all(root);
}

// A run that spent its seconds, resumed with a larger budget.seconds, tunes only the
// difference: its tuning clock goes on from where it stopped (bench/e2e_tune.sh's
// TESSERA_E2E_SLICE_S interleaves a sitting's runs this way). Fails if the resume starts the
// clock at 0 (the second run's first round reads under the first run's end, and it tunes the
// whole budget again) or counts the spent seconds twice (the second run tunes nothing).
TEST(TuneNetwork, AResumedRunsClockGoesOnFromWhereItStopped) {
  const fs::path root = tiny_cnn_config("tessera_clock", "{trials: 1000000, seconds: 1, batch_size: 4}");
  const fs::path run = root / "run", config = root / "net.yaml";
  std::string said;
  ASSERT_EQ(run_capturing({kTessera, "tune", config.string()}, root / "first.txt", &said), 0) << said;
  const auto first = curve_rows(run, "<network>");
  ASSERT_FALSE(first.empty()) << said;
  const double stopped = first.back().first;
  ASSERT_GE(stopped, 1.0) << "the first run ended before its budget:\n" << said;
  ASSERT_EQ(run_capturing({kTessera, "tune", config.string(), "--set", "budget.seconds=2"}, root / "second.txt", &said), 0)
      << said;
  const auto both = curve_rows(run, "<network>");
  ASSERT_GT(both.size(), first.size()) << said;
  double previous = stopped;
  for (size_t i = first.size(); i < both.size(); ++i) {
    EXPECT_GE(both[i].first, previous) << "round row " << i << " of curve.csv";
    previous = both[i].first;
  }
  // It stopped at the new budget: its last round began before 2 s and ended after.
  EXPECT_LT(both[both.size() - 2].first, 2.0);
  EXPECT_GE(both.back().first, 2.0);
  fs::remove_all(root);
}

// Transfer-tuning between two models: the tiny CNN tuned briefly, then the same layers on a
// larger input tuned from its records with no search (--budget.trials=0): every task gets
// schedules carried over, the network runs with them, and a rerun measures nothing again.
TEST(TuneNetwork, PureTransferFromAnotherModelsRunRepeatsNothing) {
  const fs::path root = fs::temp_directory_path() / ("tessera_transfer_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string models = std::string(TESSERA_SOURCE_DIR) + "/tests/integration/models/";
  fs::create_directories(root);
  const fs::path source = root / "source", target = root / "target";
  std::string said;
  ASSERT_EQ(run_capturing({kTessera, "tune", models + "tiny_cnn.onnx", "--set", "run_dir=" + source.string(),
                           "--set", "search.agent=random", "--budget.trials=24", "--budget.batch_size=6",
                           "--measure.retime_top=0"},
                          root / "err1.txt", &said), 0) << said;
  const std::vector<std::string> transfer = {kTessera, "tune", models + "tiny_cnn_24.onnx", "--from", source.string(),
                                             "--set", "run_dir=" + target.string(), "--budget.trials=0",
                                             "--measure.retime_top=0"};
  ASSERT_EQ(run_capturing(transfer, root / "err2.txt", &said), 0) << said;
  // fails if transfer finds nothing for some task (e.g. knobs not carried between extents)
  EXPECT_NE(said.find("for 4 of 4 tasks, measured before any search"), std::string::npos) << said;
  EXPECT_NE(said.find("[round 4] transfer: "), std::string::npos) << said;
  EXPECT_EQ(said.find("[round 5]"), std::string::npos) << "a search round ran with a budget of 0 trials:\n" << said;
  const auto first = measured(target.string());
  EXPECT_GT(first.size(), 4u) << "only default schedules were measured";
  auto summary = nlohmann::json::parse(read_file(target / "summary.json"));
  EXPECT_GT(summary.value("measured_ms", 0.0), 0.0);
  EXPECT_EQ(summary["transfer"][0], fs::absolute(source).string());
  ASSERT_EQ(run_capturing(transfer, root / "err3.txt", &said), 0) << said;
  EXPECT_EQ(measured(target.string()), first) << "the rerun measured transfer candidates again";
  std::vector<std::string> missing = transfer;
  missing[4] = (root / "nowhere").string();
  EXPECT_EQ(run_capturing(missing, root / "err4.txt", &said), 2);
  EXPECT_NE(said.find("nowhere"), std::string::npos) << said;
  // Resumed in the other activation layout, none of the run's records would match its tasks:
  // refused before anything is measured or written (fails if the layouts' tasks were mixed).
  const auto source_records = measured(source.string());
  EXPECT_EQ(run_capturing({kTessera, "tune", models + "tiny_cnn.onnx", "--set", "run_dir=" + source.string(), "--set",
                           "layout=nchw", "--budget.trials=48"},
                          root / "err5.txt", &said), 1);
  EXPECT_NE(said.find("was tuned with nhwc activations and this run asks for nchw"), std::string::npos) << said;
  EXPECT_EQ(measured(source.string()), source_records);
  // The same for Winograd convs (graph/winograd.h): their tasks differ from the direct convs'.
  EXPECT_EQ(run_capturing({kTessera, "tune", models + "tiny_cnn.onnx", "--set", "run_dir=" + source.string(), "--set",
                           "winograd=false", "--budget.trials=48"},
                          root / "err6.txt", &said), 1);
  EXPECT_NE(said.find("was tuned with Winograd convs and this run asks for none"), std::string::npos) << said;
  EXPECT_EQ(measured(source.string()), source_records);
  fs::remove_all(root);
}

// A network run times its constants cold (measure.cold_constants, on by default for networks).
// Warm records of the same tasks in its directory (here a run with it off; a single-op run's
// are the same) are not restored as if comparable, nor ignored: each task's fastest warm
// schedule is measured again, cold, before any search.
TEST(TuneNetwork, WarmRecordsAreMeasuredAgainColdNotRestored) {
  const fs::path root = fs::temp_directory_path() / ("tessera_cold_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string model = std::string(TESSERA_SOURCE_DIR) + "/tests/integration/models/tiny_cnn.onnx";
  const fs::path run = root / "run";
  std::vector<std::string> args = {kTessera, "tune", model, "--set", "run_dir=" + run.string(), "--set",
                                   "search.agent=random", "--budget.trials=24", "--budget.batch_size=6",
                                   "--measure.retime_top=0", "--measure.cold_constants=false"};
  std::string said;
  ASSERT_EQ(run_capturing(args, root / "err1.txt", &said), 0) << said;
  args.pop_back();  // the network default: cold
  ASSERT_EQ(run_capturing(args, root / "err2.txt", &said), 0) << said;
  EXPECT_NE(said.find("timed with warm constants are not restored"), std::string::npos) << said;
  auto file = tessera::runtime::read_records((run / "records.jsonl").string());
  ASSERT_TRUE(file) << file.error().message;
  std::map<std::string, const tessera::runtime::MeasureRecord*> warm_best;
  std::set<std::string> cold;
  int carried = 0;  // warm schedules measured again, cold, before any search
  for (const auto& r : file->records) {
    if (r.error != tessera::runtime::MeasureError::kNone) continue;
    if (r.target == "llvm-cpu+cold-constants") {
      cold.insert(r.workload_key + " " + r.sketch + " " + r.knobs.dump());
      carried += r.source == "transfer";
    } else if (r.target == "llvm-cpu") {
      auto& best = warm_best[r.workload_key];
      if (!best || r.median_cost() < best->median_cost()) best = &r;
    }
  }
  EXPECT_EQ(warm_best.size(), 4u);
  EXPECT_GT(carried, 0) << "no warm schedule was carried over (a warm best that is a default schedule is measured anyway)";
  for (const auto& [key, r] : warm_best) {
    EXPECT_TRUE(cold.count(key + " " + r->sketch + " " + r->knobs.dump())) << "the fastest warm schedule of " << key
                                                                            << " was not measured cold";
  }
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

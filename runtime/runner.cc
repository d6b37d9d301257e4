// The isolated measurement runner (see runner.h).
#include "runtime/runner.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "runtime/worker_protocol.h"

#ifndef TESSERA_BUILD_WORKER_PATH
#define TESSERA_BUILD_WORKER_PATH ""
#endif

namespace tessera::runtime {
namespace {

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// The last line the worker wrote to stderr, if any (non-blocking).
std::string last_stderr_line(int fd) {
  if (fd < 0) return "";
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t start = text.rfind('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
}

}  // namespace

std::string default_worker_path() {
  if (const char* env = std::getenv("TESSERA_WORKER"); env && *env) return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto sibling = (self.parent_path() / "tessera-worker").string();
    if (executable(sibling)) return sibling;
  }
  return TESSERA_BUILD_WORKER_PATH;
}

Runner::Runner(RunnerOptions options) : options_(std::move(options)) {
  if (options_.worker_path.empty()) options_.worker_path = default_worker_path();
}

Runner::~Runner() { stop_worker(/*kill_first=*/true); }

std::vector<int> measurement_cpus(int threads) {
  std::vector<int> cpus;
  if (const char* env = std::getenv("TESSERA_MEASURE_CPUS"); env && *env) {
    for (const char* p = env; *p;) {
      char* end = nullptr;
      long cpu = std::strtol(p, &end, 10);
      if (end == p) break;
      if (cpu >= 0 && cpu < CPU_SETSIZE) cpus.push_back(static_cast<int>(cpu));
      p = *end == ',' ? end + 1 : end;
    }
    if (!cpus.empty()) return cpus;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpus;
  for (int cpu = CPU_SETSIZE - 1; cpu >= 0 && static_cast<int>(cpus.size()) < std::max(threads, 1); --cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.insert(cpus.begin(), cpu);
  }
  return cpus;
}

bool pin_this_thread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

Result<void> Runner::ensure_worker(int threads) {
  if (pid_ > 0 && threads_ == threads) return {};
  if (pid_ > 0) stop_worker(/*kill_first=*/true);
  cpu_set_t pinned;
  CPU_ZERO(&pinned);
  const std::vector<int> cpus = measurement_cpus(threads);
  for (int cpu : cpus) CPU_SET(cpu, &pinned);
  if (!executable(options_.worker_path)) {
    return make_error("cannot start the measurement worker: '" + options_.worker_path +
                      "' is not an executable (build tessera-worker or set TESSERA_WORKER)");
  }
  int sockets[2], errors[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0 ||
      ::pipe2(errors, O_CLOEXEC) != 0) {
    return make_error(std::string("cannot create the worker's channels: ") + std::strerror(errno));
  }
  const std::string path = options_.worker_path;
  const rlim_t limit = options_.memory_limit_bytes;
  pid_t pid = ::fork();
  if (pid < 0) return make_error(std::string("cannot fork the worker: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::dup2(sockets[1], 0);
    ::dup2(errors[1], 2);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (limit > 0) {
      rlimit rl{limit, limit};
      ::setrlimit(RLIMIT_AS, &rl);
    }
    if (!cpus.empty()) ::sched_setaffinity(0, sizeof pinned, &pinned);
    char* argv[] = {const_cast<char*>("tessera-worker"), nullptr};
    ::execv(path.c_str(), argv);
    ::_exit(127);
  }
  ::close(sockets[1]);
  ::close(errors[1]);
  ::fcntl(errors[0], F_SETFL, O_NONBLOCK);
  pid_ = pid;
  socket_ = sockets[0];
  stderr_pipe_ = errors[0];
  task_key_.clear();
  threads_ = threads;
  ++workers_started_;
  return {};
}

std::string Runner::stop_worker(bool kill_first) {
  if (pid_ <= 0) return "";
  if (kill_first) ::kill(pid_, SIGKILL);
  ::close(socket_);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  std::string said = last_stderr_line(stderr_pipe_);
  ::close(stderr_pipe_);
  pid_ = -1;
  socket_ = stderr_pipe_ = -1;
  task_key_.clear();
  std::string how;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* abbrev = ::sigabbrev_np(sig);
    how = std::string("was killed by ") + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig)) +
          " (" + ::strsignal(sig) + ")";
  } else if (WIFEXITED(status)) {
    how = "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (!said.empty()) how += "; it said: " + said;
  return how;
}

MeasureResult Runner::measure(const MeasureTask& task, const BuildResult& build,
                              const MeasureOptions& options) {
  MeasureResult result;
  result.compile_seconds = build.compile_seconds;
  if (build.error != MeasureError::kNone) {
    result.error = build.error;
    result.message = build.message;
    return result;
  }
  MeasureResult measured = measure_message(task, run_message(build.object, options), options);
  measured.compile_seconds = build.compile_seconds;
  return measured;
}

MeasureResult Runner::measure_message(const MeasureTask& task, const Message& run, const MeasureOptions& options) {
  MeasureResult result;
  if (auto r = ensure_worker(options.threads); !r) {
    result.error = MeasureError::kWorkerCrash;
    result.message = r.error().message;
    return result;
  }
  auto fail = [&](MeasureError error, const std::string& what, bool kill_first) {
    std::string how = stop_worker(kill_first);
    result.error = error;
    result.message = what;
    if (error == MeasureError::kWorkerCrash && !how.empty()) result.message += " (the worker " + how + ")";
    return result;
  };
  if (task_key_ != task.workload_key) {
    if (!send_message(socket_, task_message(task))) {
      return fail(MeasureError::kWorkerCrash, "the measurement worker stopped before the task", true);
    }
    task_key_ = task.workload_key;
  }
  if (!send_message(socket_, run)) {
    return fail(MeasureError::kWorkerCrash, "the measurement worker stopped before the candidate", true);
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(options.run_timeout_s));
  auto reply = receive_message(socket_, deadline);
  if (!reply) {
    if (reply.error().message == kTimedOut) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "the kernel did not finish within %.1f s (check, warm-up and timing); the "
                    "worker was killed", options.run_timeout_s);
      return fail(MeasureError::kRunTimeout, text, true);
    }
    return fail(MeasureError::kWorkerCrash, "the measurement worker died running the kernel", false);
  }
  auto parsed = result_from_json(reply->header);
  if (!parsed) return fail(MeasureError::kWorkerCrash, parsed.error().message, true);
  if (reply->header.value("retire", false)) stop_worker(/*kill_first=*/false);  // it ends by itself (worker.h)
  return *parsed;
}

std::vector<MeasureResult> Runner::measure_batch(const MeasureTask& task,
                                                 const std::vector<BuildResult>& builds,
                                                 const MeasureOptions& options) {
  std::vector<MeasureResult> results;
  results.reserve(builds.size());
  for (const BuildResult& build : builds) results.push_back(measure(task, build, options));
  return results;
}

}  // namespace tessera::runtime

// The MPI calls behind Comm (see comm.h). The only file that includes <mpi.h>.
#include "mpi/comm.h"

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <list>
#include <string>
#include <thread>

namespace tessera::mpi {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTag = 7;

// Sends that timed out keep their buffer alive until the process ends (MPI may still read it).
std::list<std::string>& abandoned_sends() {
  static std::list<std::string> sends;
  return sends;
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

// Short sleeps while polling: at first 50 us (a reply that is almost there), then up to 2 ms.
void backoff(int polls) {
  std::this_thread::sleep_for(std::chrono::microseconds(polls < 20 ? 50 : 2000));
}

}  // namespace

int launched_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"}) {
    if (int n = env_int(name); n > 0) return n;
  }
  return 0;
}

void release_launch_binding() {
  const char* bound = std::getenv("OMPI_MCA_orte_bound_at_launch");
  if (!bound || std::string(bound) != "1") return;
  cpu_set_t all;
  CPU_ZERO(&all);
  for (long c = 0, n = sysconf(_SC_NPROCESSORS_ONLN); c < n && c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  sched_setaffinity(0, sizeof all, &all);
}

Result<Comm> Comm::init(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return make_error("MPI_Init failed");
  }
  // Errors are results: a dead peer must not abort the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return Comm(rank, size);
}

Comm::Comm(Comm&& other) noexcept : rank_(other.rank_), size_(other.size_), active_(other.active_) {
  other.active_ = false;
}

Comm::~Comm() {
  if (active_) MPI_Finalize();
}

void Comm::abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

std::string Comm::host() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<size_t>(length));
}

bool Comm::send(int to, const nlohmann::json& message, double timeout_s) {
  auto text = std::make_unique<std::string>(message.dump());
  MPI_Request request;
  if (MPI_Isend(text->data(), static_cast<int>(text->size()), MPI_CHAR, to, kTag, MPI_COMM_WORLD, &request) !=
      MPI_SUCCESS) {
    return false;
  }
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (int polls = 0;; ++polls) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    if (timeout_s >= 0 && Clock::now() > deadline) {
      abandoned_sends().push_back(std::move(*text));
      MPI_Request_free(&request);
      return false;
    }
    backoff(polls);
  }
}

std::optional<Envelope> Comm::receive(int source, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (int polls = 0;; ++polls) {
    int ready = 0;
    MPI_Status status;
    if (MPI_Iprobe(source < 0 ? MPI_ANY_SOURCE : source, kTag, MPI_COMM_WORLD, &ready, &status) != MPI_SUCCESS) {
      return std::nullopt;
    }
    if (ready) {
      int count = 0;
      MPI_Get_count(&status, MPI_CHAR, &count);
      std::string text(static_cast<size_t>(count), '\0');
      if (MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
          MPI_SUCCESS) {
        return std::nullopt;
      }
      Envelope envelope{status.MPI_SOURCE, nlohmann::json::parse(text, nullptr, false)};
      if (envelope.message.is_discarded()) envelope.message = {{"type", "malformed"}};
      return envelope;
    }
    if (timeout_s >= 0 && Clock::now() > deadline) return std::nullopt;
    backoff(polls);
  }
}

}  // namespace tessera::mpi

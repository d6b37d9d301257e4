// Framing and (de)serialization of worker messages (see worker_protocol.h).
#include "runtime/worker_protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tessera::runtime {
namespace {

using Clock = std::chrono::steady_clock;

Result<void> write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error(std::string("cannot write to the worker socket: ") + std::strerror(errno));
    p += n;
    size -= static_cast<size_t>(n);
  }
  return {};
}

Result<void> read_all(int fd, void* data, size_t size, std::optional<Clock::time_point> deadline) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
      pollfd pfd{fd, POLLIN, 0};
      int ready = ::poll(&pfd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return make_error(kTimedOut);
    }
    ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return make_error(kEndOfStream);
    if (n < 0) return make_error(std::string("cannot read the worker socket: ") + std::strerror(errno));
    p += n;
    size -= static_cast<size_t>(n);
  }
  return {};
}

template <typename T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <typename T>
std::vector<T> vector_of(const std::string& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace

Result<void> send_message(int fd, const Message& message) {
  std::string header = message.header.dump();
  uint64_t sizes[2] = {header.size(), message.blobs.size()};
  if (auto r = write_all(fd, sizes, sizeof sizes); !r) return r;
  if (auto r = write_all(fd, header.data(), header.size()); !r) return r;
  for (const std::string& blob : message.blobs) {
    uint64_t size = blob.size();
    if (auto r = write_all(fd, &size, sizeof size); !r) return r;
    if (auto r = write_all(fd, blob.data(), blob.size()); !r) return r;
  }
  return {};
}

Result<Message> receive_message(int fd, std::optional<Clock::time_point> deadline) {
  uint64_t sizes[2];
  if (auto r = read_all(fd, sizes, sizeof sizes, deadline); !r) return r.error();
  constexpr uint64_t kMaxHeader = 1 << 26, kMaxBlobs = 1 << 16;
  if (sizes[0] > kMaxHeader || sizes[1] > kMaxBlobs) return make_error("malformed worker message");
  std::string header(sizes[0], '\0');
  if (auto r = read_all(fd, header.data(), header.size(), deadline); !r) return r.error();
  Message message;
  message.header = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (message.header.is_discarded()) return make_error("malformed worker message header");
  for (uint64_t i = 0; i < sizes[1]; ++i) {
    uint64_t size;
    if (auto r = read_all(fd, &size, sizeof size, deadline); !r) return r.error();
    if (size > (uint64_t{1} << 36)) return make_error("malformed worker message blob");
    std::string blob(size, '\0');
    if (auto r = read_all(fd, blob.data(), size, deadline); !r) return r.error();
    message.blobs.push_back(std::move(blob));
  }
  return message;
}

Message task_message(const MeasureTask& task) {
  Message m;
  m.header = {{"type", "task"},
              {"workload_key", task.workload_key},
              {"tolerance", task.tolerance},
              {"inputs", task.inputs.size()},
              {"constant_inputs", task.constant_inputs},
              {"output_sizes", task.output_sizes}};
  for (const auto& input : task.inputs) m.blobs.push_back(bytes_of(input));
  for (const OutputCheck& check : task.checks) {
    m.blobs.push_back(bytes_of(check.points));
    m.blobs.push_back(bytes_of(check.expected));
  }
  return m;
}

Result<MeasureTask> task_from_message(const Message& m) {
  MeasureTask task;
  try {
    task.workload_key = m.header.at("workload_key").get<std::string>();
    task.tolerance = m.header.at("tolerance").get<double>();
    size_t inputs = m.header.at("inputs").get<size_t>();
    task.output_sizes = m.header.at("output_sizes").get<std::vector<int64_t>>();
    task.constant_inputs = m.header.value("constant_inputs", std::vector<bool>{});
    if (m.blobs.size() != inputs + 2 * task.output_sizes.size()) return make_error("malformed task message");
    for (size_t i = 0; i < inputs; ++i) task.inputs.push_back(vector_of<float>(m.blobs[i]));
    for (size_t o = 0; o < task.output_sizes.size(); ++o) {
      task.checks.push_back(OutputCheck{vector_of<int64_t>(m.blobs[inputs + 2 * o]),
                                        vector_of<float>(m.blobs[inputs + 2 * o + 1])});
    }
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("malformed task message: ") + e.what());
  }
  return task;
}

nlohmann::json options_to_json(const MeasureOptions& o) {
  return {{"warmup", o.warmup}, {"min_warmup_ms", o.min_warmup_ms},
          {"back_to_back_warmup_ms", o.back_to_back_warmup_ms}, {"number", o.number}, {"repeat", o.repeat},
          {"min_repeat_ms", o.min_repeat_ms}, {"flush_cache", o.flush_cache},
          {"cold_constants", o.cold_constants}, {"threads", o.threads}, {"give_up_seconds", o.give_up_seconds},
          {"best_seconds", o.best_seconds}};
}

Result<MeasureOptions> options_from_json(const nlohmann::json& j) {
  MeasureOptions o;
  try {
    o.warmup = j.at("warmup").get<int>();
    o.min_warmup_ms = j.at("min_warmup_ms").get<double>();
    o.back_to_back_warmup_ms = j.value("back_to_back_warmup_ms", o.min_warmup_ms);  // older senders: one warm-up
    o.number = j.at("number").get<int>();
    o.repeat = j.at("repeat").get<int>();
    o.min_repeat_ms = j.at("min_repeat_ms").get<double>();
    o.flush_cache = j.at("flush_cache").get<bool>();
    o.cold_constants = j.value("cold_constants", false);
    o.threads = j.at("threads").get<int>();
    o.give_up_seconds = j.value("give_up_seconds", 0.0);
    o.best_seconds = j.value("best_seconds", 0.0);
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("malformed timing options: ") + e.what());
  }
  return o;
}

Message run_message(const ObjectCode& object, const MeasureOptions& o) {
  Message m;
  nlohmann::json arguments = nlohmann::json::array();
  for (const auto& a : object.arguments) {
    arguments.push_back({{"name", a.name}, {"size", a.size}, {"is_output", a.is_output}});
  }
  nlohmann::json packed = nlohmann::json::array();
  for (const auto& a : object.packed) packed.push_back({{"name", a.name}, {"size", a.size}});
  m.header = {{"type", "run"},
              {"entry", object.entry},
              {"arguments", arguments},
              {"packed", packed},
              {"options", options_to_json(o)}};
  m.blobs.push_back(object.bytes);
  return m;
}

Result<std::pair<ObjectCode, MeasureOptions>> run_from_message(const Message& m) {
  ObjectCode object;
  MeasureOptions o;
  try {
    object.entry = m.header.at("entry").get<std::string>();
    for (const auto& a : m.header.at("arguments")) {
      object.arguments.push_back(schedule::KernelArgument{
          a.at("name").get<std::string>(), a.at("size").get<int64_t>(), schedule::DType::kFloat32,
          a.at("is_output").get<bool>()});
    }
    for (const auto& a : m.header.at("packed")) {
      object.packed.push_back(schedule::KernelArgument{a.at("name").get<std::string>(),
                                                       a.at("size").get<int64_t>(),
                                                       schedule::DType::kFloat32, false});
    }
    auto options = options_from_json(m.header.at("options"));
    if (!options) return options.error();
    o = *options;
    if (m.blobs.size() != 1) return make_error("malformed run message");
    object.bytes = m.blobs[0];
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("malformed run message: ") + e.what());
  }
  return std::make_pair(std::move(object), o);
}

nlohmann::json result_to_json(const MeasureResult& r) {
  return {{"type", "result"},
          {"error", to_string(r.error)},
          {"message", r.message},
          {"costs", r.costs},
          {"max_error", r.max_error}};
}

Result<MeasureResult> result_from_json(const nlohmann::json& j) {
  MeasureResult r;
  try {
    auto error = measure_error_from_string(j.at("error").get<std::string>());
    if (!error) return error.error();
    r.error = *error;
    r.message = j.at("message").get<std::string>();
    r.costs = j.at("costs").get<std::vector<double>>();
    r.max_error = j.at("max_error").is_number() ? j.at("max_error").get<double>() : INFINITY;
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("malformed result message: ") + e.what());
  }
  return r;
}

}  // namespace tessera::runtime

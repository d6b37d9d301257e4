// Reference checks kept on disk (see check_cache.h).
#include "runtime/check_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "schedule/hash.h"

namespace tessera::runtime {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'C', 'H', 'K', '0', '0', '1'};

struct Hash {
  uint64_t value = schedule::kFnvOffsetBasis;
  void add(const void* data, size_t size) { value = schedule::fnv1a64(data, size, value); }
};

uint64_t inputs_hash(const MeasureTask& task) {
  Hash h;
  for (const auto& input : task.inputs) h.add(input.data(), input.size() * sizeof(float));
  for (int64_t size : task.output_sizes) h.add(&size, sizeof size);
  return h.value;
}

// Appends raw bytes.
struct Writer {
  std::string bytes;
  void put(const void* data, size_t size) { bytes.append(static_cast<const char*>(data), size); }
  template <typename T> void put(const T& value) { put(&value, sizeof value); }
};

// Reads raw bytes; every read past the end fails the whole load.
struct Reader {
  const std::string& bytes;
  size_t at = 0;
  bool ok = true;
  bool get(void* out, size_t size) {
    if (!ok || bytes.size() - at < size) return ok = false;
    std::memcpy(out, bytes.data() + at, size);
    at += size;
    return true;
  }
  template <typename T> T get() {
    T value{};
    get(&value, sizeof value);
    return value;
  }
};

std::string header(const MeasureTask& task, uint64_t seed, int64_t max_points) {
  Writer w;
  w.put(kMagic, sizeof kMagic);
  w.put(static_cast<uint64_t>(task.workload_key.size()));
  w.put(task.workload_key.data(), task.workload_key.size());
  w.put(seed);
  w.put(max_points);
  w.put(inputs_hash(task));
  return w.bytes;
}

}  // namespace

std::string checks_file(const std::string& dir, const std::string& workload_key, uint64_t seed,
                        int64_t max_points) {
  Hash h;
  h.add(workload_key.data(), workload_key.size());
  h.add(&seed, sizeof seed);
  h.add(&max_points, sizeof max_points);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(h.value));
  return (std::filesystem::path(dir) / name).string();
}

std::optional<std::vector<OutputCheck>> load_checks(const std::string& path, const MeasureTask& task,
                                                    uint64_t seed, int64_t max_points) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string expected_header = header(task, seed, max_points);
  if (bytes.size() < expected_header.size() + sizeof(uint64_t) ||
      bytes.compare(0, expected_header.size(), expected_header) != 0) {
    return std::nullopt;  // another workload, seed, point count or inputs
  }
  Hash sum;
  sum.add(bytes.data(), bytes.size() - sizeof(uint64_t));
  uint64_t stored_sum;
  std::memcpy(&stored_sum, bytes.data() + bytes.size() - sizeof stored_sum, sizeof stored_sum);
  if (sum.value != stored_sum) return std::nullopt;  // truncated or damaged
  Reader r{bytes, expected_header.size()};
  const auto outputs = r.get<uint64_t>();
  if (outputs != task.output_sizes.size()) return std::nullopt;
  std::vector<OutputCheck> checks(outputs);
  for (size_t o = 0; o < outputs && r.ok; ++o) {
    const auto points = r.get<uint64_t>(), values = r.get<uint64_t>();
    const uint64_t limit = static_cast<uint64_t>(task.output_sizes[o]);
    if (!r.ok || points > limit || values > limit) return std::nullopt;
    checks[o].points.resize(points);
    checks[o].expected.resize(values);
    r.get(checks[o].points.data(), points * sizeof(int64_t));
    r.get(checks[o].expected.data(), values * sizeof(float));
    for (int64_t p : checks[o].points) {
      if (p < 0 || p >= task.output_sizes[o]) return std::nullopt;
    }
    const uint64_t compared = points ? points : limit;
    if (values != compared) return std::nullopt;
  }
  if (!r.ok || r.at != bytes.size() - sizeof(uint64_t)) return std::nullopt;
  return checks;
}

Result<void> save_checks(const std::string& path, const MeasureTask& task, uint64_t seed, int64_t max_points) {
  Writer w;
  w.bytes = header(task, seed, max_points);
  w.put(static_cast<uint64_t>(task.checks.size()));
  for (const OutputCheck& check : task.checks) {
    w.put(static_cast<uint64_t>(check.points.size()));
    w.put(static_cast<uint64_t>(check.expected.size()));
    w.put(check.points.data(), check.points.size() * sizeof(int64_t));
    w.put(check.expected.data(), check.expected.size() * sizeof(float));
  }
  Hash sum;
  sum.add(w.bytes.data(), w.bytes.size());
  w.put(sum.value);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return make_error("cannot create " + std::filesystem::path(path).parent_path().string() + ": " + ec.message());
  static std::atomic<uint64_t> writes{0};  // tasks prepared on several threads: a name each
  const std::string temporary = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(writes++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(w.bytes.data(), static_cast<std::streamsize>(w.bytes.size()));
    if (!out.flush()) return make_error("cannot write " + temporary);
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) return make_error("cannot rename " + temporary + " to " + path + ": " + ec.message());
  return {};
}

}  // namespace tessera::runtime

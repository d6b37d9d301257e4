// JSON-lines measurement records (see records.h).
#include "runtime/records.h"

#include "runtime/timing.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>

namespace tessera::runtime {
namespace {

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

bool MeasureRecord::timed_cold() const {
  const std::string suffix = kColdConstantsSuffix;
  return target.size() >= suffix.size() && target.compare(target.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double MeasureRecord::median_cost() const { return median(costs); }

std::vector<double> MeasureRecord::comparable_costs() const {
  std::vector<double> out = costs;
  for (double& c : out) c /= scale;
  return out;
}

bool ranks_before(const MeasureRecord& a, const MeasureRecord& b) {
  if (a.timed_cold() != b.timed_cold()) return a.timed_cold();
  return a.median_cost() < b.median_cost();
}

MeasureRecord make_record(const std::string& workload_key, const std::string& workload,
                          const std::string& sketch, nlohmann::json steps,
                          const MeasureResult& result, nlohmann::json knobs) {
  MeasureRecord r;
  r.workload_key = workload_key;
  r.workload = workload;
  r.hardware = host_fingerprint();
  r.sketch = sketch;
  r.steps = std::move(steps);
  r.knobs = std::move(knobs);
  r.costs = result.costs;
  r.error = result.error;
  r.message = result.message;
  r.compile_seconds = result.compile_seconds;
  r.measured_by = result.measured_by;
  r.timestamp = utc_now();
  return r;
}

nlohmann::json record_to_json(const MeasureRecord& r) {
  nlohmann::json j = {{"format_version", r.format_version},
          {"workload_key", r.workload_key},
          {"workload", r.workload},
          {"target", r.target},
          {"hardware", to_json(r.hardware)},
          {"sketch", r.sketch},
          {"knobs", r.knobs},
          {"steps", r.steps},
          {"costs", r.costs},
          {"error", to_string(r.error)},
          {"message", r.message},
          {"compile_seconds", r.compile_seconds},
          {"timestamp", r.timestamp},
          {"source", r.source}};
  if (!r.measured_by.empty()) j["measured_by"] = r.measured_by;  // only in MPI jobs
  if (r.scale != 1) j["scale"] = r.scale;  // only re-timings
  return j;
}

Result<MeasureRecord> record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error("a record must be a JSON object");
  MeasureRecord r;
  const char* field = "";
  try {
    field = "format_version";
    r.format_version = j.at(field).get<int>();
    if (r.format_version > kRecordFormatVersion) {
      return make_error("written in record format " + std::to_string(r.format_version) +
                        ", newer than this Tessera reads (" + std::to_string(kRecordFormatVersion) + ")");
    }
    field = "workload_key";
    r.workload_key = j.at(field).get<std::string>();
    field = "workload";
    r.workload = j.at(field).get<std::string>();
    field = "target";
    r.target = j.at(field).get<std::string>();
    field = "hardware";
    r.hardware = fingerprint_from_json(j.at(field));
    field = "sketch";
    r.sketch = j.at(field).get<std::string>();
    field = "knobs";
    r.knobs = j.at(field);
    if (!r.knobs.is_object()) return make_error("field 'knobs' must be an object");
    field = "steps";
    r.steps = j.at(field);
    if (!r.steps.is_array()) return make_error("field 'steps' must be a list");
    field = "costs";
    r.costs = j.at(field).get<std::vector<double>>();
    field = "error";
    auto error = measure_error_from_string(j.at(field).get<std::string>());
    if (!error) return make_error("field 'error': " + error.error().message);
    r.error = *error;
    field = "message";
    r.message = j.at(field).get<std::string>();
    field = "compile_seconds";
    r.compile_seconds = j.at(field).get<double>();
    field = "timestamp";
    r.timestamp = j.at(field).get<std::string>();
    field = "source";  // optional: absent in records written before sources were recorded
    if (j.contains(field)) r.source = j.at(field).get<std::string>();
    field = "measured_by";  // optional: only records measured by another MPI rank have it
    if (j.contains(field)) r.measured_by = j.at(field).get<std::string>();
    field = "scale";  // optional: only re-timings written since stop 86 have it
    if (j.contains(field)) {
      r.scale = j.at(field).get<double>();
      if (!(r.scale > 0) || !std::isfinite(r.scale)) return make_error("field 'scale' must be a positive number");
    }
  } catch (const nlohmann::json::exception&) {
    return make_error(std::string("field '") + field + "' is missing or has the wrong type");
  }
  return r;
}

Result<RecordWriter> RecordWriter::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error("cannot open records file '" + path + "': " + std::strerror(errno));
  return RecordWriter(fd, path);
}

RecordWriter::RecordWriter(RecordWriter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

RecordWriter& RecordWriter::operator=(RecordWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

RecordWriter::~RecordWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> RecordWriter::append(const MeasureRecord& record) {
  std::string line = record_to_json(record).dump() + "\n";
  // One write() per record: a killed run leaves whole lines and at most one partial last line.
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error("cannot append to '" + path_ + "': " + std::strerror(errno));
    p += n;
    left -= static_cast<size_t>(n);
  }
  return {};
}

Result<RecordFile> read_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot read records file '" + path + "': " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  RecordFile file;
  std::map<std::string, int> first_line;  // line text -> where it was first seen
  size_t start = 0;
  int line_number = 0;
  while (start < text.size()) {
    ++line_number;
    size_t end = text.find('\n', start);
    bool complete = end != std::string::npos;
    std::string line = text.substr(start, complete ? end - start : std::string::npos);
    start = complete ? end + 1 : text.size();
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    if (auto [it, fresh] = first_line.emplace(line, line_number); !fresh) {
      file.warnings.push_back(where + "repeats line " + std::to_string(it->second) + " exactly; skipped");
      continue;
    }
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      file.warnings.push_back(where + (complete ? "not valid JSON; skipped"
                                                : "incomplete last line (the run was killed while "
                                                  "writing it); skipped"));
      continue;
    }
    auto record = record_from_json(j);
    if (!record) {
      file.warnings.push_back(where + "not a measurement record: " + record.error().message + "; skipped");
      continue;
    }
    file.records.push_back(std::move(*record));
  }
  return file;
}

namespace {

std::string describe(const HardwareFingerprint& f) {
  return f.id() + " (" + (f.cpu_model.empty() ? "unknown CPU" : f.cpu_model) + ", LLVM cpu " + f.llvm_cpu +
         ", " + std::to_string(f.cores) + " cores, LLVM " + f.llvm_version + ")";
}

}  // namespace

Result<void> check_measured_here(const std::vector<MeasureRecord>& records, const std::string& path,
                                 const HardwareFingerprint* measured_on) {
  const HardwareFingerprint& here = measured_on ? *measured_on : host_fingerprint();
  const std::string here_id = here.id();
  size_t foreign = 0;
  const MeasureRecord* example = nullptr;
  for (const MeasureRecord& r : records) {
    if (r.hardware.id() == here_id) continue;
    ++foreign;
    if (!example) example = &r;
  }
  if (!example) return {};
  return make_error(path + ": " + std::to_string(foreign) + " of " + std::to_string(records.size()) +
                    " records were measured on another machine, " + describe(example->hardware) +
                    "; this machine is " + describe(here) +
                    ". Their timings are not this machine's, so this run cannot resume from them: "
                    "choose a new run_dir (records of other machines can be read on purpose, e.g. "
                    "`tessera proxy-eval RECORDS --save proxy.pt` and `proxy: {weights: proxy.pt}`)");
}

}  // namespace tessera::runtime

// Measurement records: one JSON object per line, the unit of resume, proxy training, transfer
// and of applying the best schedule.
//
// A record holds the workload key (and readable summary), the target, the hardware
// fingerprint, the candidate (sketch id and schedule steps), every repeat's cost in seconds,
// the error class and message, compile time, a timestamp, the format version and the source
// that proposed it (optional: records written before it was added read as ""), and for a
// re-timing the scale that puts its costs beside first timings (optional, 1). The writer
// appends each record as a single write() of one line, so a killed run loses at most the line
// being written; the reader reports a corrupt or half-written line by file and line number,
// skips it and loads the rest. Lines of a newer format version are skipped with a warning.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/fingerprint.h"
#include "runtime/measure.h"

namespace tessera::runtime {

inline constexpr int kRecordFormatVersion = 1;

// What a record's target ends with when its kernel was timed with its constants evicted before
// every call (MeasureOptions::cold_constants): "llvm-cpu+cold-constants".
inline constexpr const char* kColdConstantsSuffix = "+cold-constants";

// The source of a record that re-times a schedule measured before (env::TuningTask::retime, at
// a run's end): not a trial of the search, one more timing of that schedule.
inline constexpr const char* kRetimeSource = "retime";

struct MeasureRecord {
  int format_version = kRecordFormatVersion;
  std::string workload_key;
  std::string workload;          // readable summary, e.g. "matmul M=512 N=512 K=512 ..."
  std::string target = "llvm-cpu";
  HardwareFingerprint hardware;
  std::string sketch;            // sketch id; empty for hand-written schedules
  nlohmann::json knobs = nlohmann::json::object();  // the sketch's knob values
  nlohmann::json steps = nlohmann::json::array();  // the candidate's schedule
  std::vector<double> costs;     // seconds per call, one per repeat
  MeasureError error = MeasureError::kNone;
  std::string message;
  double compile_seconds = 0;
  std::string timestamp;         // ISO 8601, UTC
  std::string source;            // who proposed it ("climb", "evolved", an agent's name); may be empty
  std::string measured_by;       // the MPI rank that measured it (mpi/); empty: the process that wrote it
  // A re-timing's speed against its schedules' earlier timings: the lowest ratio of re-timed to
  // earlier median among the schedules re-timed side by side with it (env::TuningTask::time_again;
  // 1 for every other record). A re-timing happens minutes after the first timings, on a machine
  // running at another speed, and of schedules chosen for their fastest first timings: the end's
  // re-timing of MobileNetV2's top 5 read 0.6-14% slower than their first timings (median over
  // tasks, per run; bench/NOTES.md, stop 86). Ranked raw beside never re-timed schedules, the
  // re-timed lost to them: the executor ran a schedule the end never re-timed for 11-29 of 32
  // tasks. Divided by `scale`, the side-by-side order stands and the group sits on the scale of
  // the first timings.
  double scale = 1;

  // `costs` on the scale of first timings: costs / scale.
  std::vector<double> comparable_costs() const;

  double median_cost() const;    // 0 when there are no costs
  bool timed_cold() const;       // target ends with kColdConstantsSuffix
};

// Whether correct record `a` is the better schedule of its workload than `b`: timed cold when
// `b` is not (a time with the weights cold is the network's; a warm one is always the lower and
// never compares with it), else faster.
bool ranks_before(const MeasureRecord& a, const MeasureRecord& b);

// A record for a result measured on this machine, stamped now.
MeasureRecord make_record(const std::string& workload_key, const std::string& workload,
                          const std::string& sketch, nlohmann::json steps,
                          const MeasureResult& result,
                          nlohmann::json knobs = nlohmann::json::object());

nlohmann::json record_to_json(const MeasureRecord& record);
// Errors name the missing or mistyped field.
Result<MeasureRecord> record_from_json(const nlohmann::json& json);

class RecordWriter {
 public:
  // Opens `path` for appending, creating it (not its directory) if needed.
  static Result<RecordWriter> open(const std::string& path);
  RecordWriter(RecordWriter&& other) noexcept;
  RecordWriter& operator=(RecordWriter&& other) noexcept;
  ~RecordWriter();

  Result<void> append(const MeasureRecord& record);

 private:
  RecordWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

struct RecordFile {
  std::vector<MeasureRecord> records;
  std::vector<std::string> warnings;  // "path:line: what was wrong; skipped"
};

// Reads every valid record; an unreadable file is an Error, bad lines (and exact repeats of an
// earlier line) are warnings naming path:line.
Result<RecordFile> read_records(const std::string& path);

// Resume counts records as measurements of this machine; records whose hardware fingerprint is
// another machine's would pose as its timings. An Error (naming `path`, both fingerprints and
// what to do instead) when any record was measured elsewhere. Reading other machines' records
// on purpose (proxy pre-training with `tessera proxy-eval --save`, transfer) skips this check.
// `measured_on`: the fingerprint a run measures with (a GPU run's); null: this host's CPU.
Result<void> check_measured_here(const std::vector<MeasureRecord>& records, const std::string& path,
                                 const HardwareFingerprint* measured_on = nullptr);

}  // namespace tessera::runtime

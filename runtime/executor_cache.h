// What a process that builds the same network's executor again and again keeps between builds:
// a network tuning run measures its network every quarter of the budget and at the end, and
// each build used to compile every task's kernel and evaluate every task's reference anew
// (ResNet-50 on a 2-core Zen 3: about 36 s of compiling per build, stop 61's reading).
//
// With a cache in ExecutorOptions, a build compiles only the schedules it has not compiled
// before (object code keyed by workload and steps) and evaluates each task's reference once
// (keyed by workload, seed and check points). Every kernel is still loaded and checked against
// its reference on every build, so a cached object is never used unchecked. Not thread-safe:
// one cache serves one build at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "runtime/check.h"
#include "runtime/measure.h"

namespace tessera::runtime {

class ExecutorCache {
 public:
  // The reference of `workload_key` for this seed and check size, or null.
  std::shared_ptr<const MeasureTask> reference(const std::string& workload_key, uint64_t seed,
                                               int64_t points) const;
  void keep_reference(uint64_t seed, int64_t points, std::shared_ptr<const MeasureTask> task);

  // The object code of `steps_json` (a schedule's steps as JSON text) on `workload_key`, or null.
  const ObjectCode* object(const std::string& workload_key, const std::string& steps_json) const;
  void keep_object(const std::string& workload_key, const std::string& steps_json, ObjectCode object);

  size_t objects() const { return objects_.size(); }
  size_t references() const { return references_.size(); }

 private:
  std::map<std::string, std::shared_ptr<const MeasureTask>> references_;
  std::map<std::string, ObjectCode> objects_;
};

}  // namespace tessera::runtime

// Compiled objects and references kept between executor builds (see executor_cache.h).
#include "runtime/executor_cache.h"

namespace tessera::runtime {
namespace {

std::string reference_key(const std::string& workload_key, uint64_t seed, int64_t points) {
  return workload_key + "|" + std::to_string(seed) + "|" + std::to_string(points);
}

std::string object_key(const std::string& workload_key, const std::string& steps_json) {
  return workload_key + "|" + steps_json;
}

}  // namespace

std::shared_ptr<const MeasureTask> ExecutorCache::reference(const std::string& workload_key, uint64_t seed,
                                                            int64_t points) const {
  auto it = references_.find(reference_key(workload_key, seed, points));
  return it == references_.end() ? nullptr : it->second;
}

void ExecutorCache::keep_reference(uint64_t seed, int64_t points, std::shared_ptr<const MeasureTask> task) {
  if (task) references_[reference_key(task->workload_key, seed, points)] = std::move(task);
}

const ObjectCode* ExecutorCache::object(const std::string& workload_key, const std::string& steps_json) const {
  auto it = objects_.find(object_key(workload_key, steps_json));
  return it == objects_.end() ? nullptr : &it->second;
}

void ExecutorCache::keep_object(const std::string& workload_key, const std::string& steps_json, ObjectCode object) {
  objects_[object_key(workload_key, steps_json)] = std::move(object);
}

}  // namespace tessera::runtime

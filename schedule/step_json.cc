// JSON serialization of schedule steps (see step_json.h).
#include "schedule/step_json.h"

#include <nlohmann/json.hpp>
#include <set>

namespace tessera::schedule {

using nlohmann::json;

json step_to_json(const Step& step) {
  return std::visit(
      [](const auto& s) -> json {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, SplitStep>) {
          return {{"step", "split"}, {"stage", s.stage}, {"loop", s.loop}, {"factors", s.factors}};
        } else if constexpr (std::is_same_v<T, ReorderStep>) {
          return {{"step", "reorder"}, {"stage", s.stage}, {"order", s.order}};
        } else if constexpr (std::is_same_v<T, FuseStep>) {
          return {{"step", "fuse"}, {"stage", s.stage}, {"loops", s.loops}};
        } else if constexpr (std::is_same_v<T, AnnotateStep>) {
          return {{"step", "annotate"}, {"stage", s.stage}, {"loop", s.loop},
                  {"annotation", s.annotation}};
        } else if constexpr (std::is_same_v<T, ComputeInlineStep>) {
          return {{"step", "compute_inline"}, {"stage", s.stage}};
        } else if constexpr (std::is_same_v<T, AutoUnrollStep>) {
          return {{"step", "auto_unroll"}, {"stage", s.stage}, {"max_step", s.max_step}};
        } else if constexpr (std::is_same_v<T, ComputeAtStep>) {
          return {{"step", "compute_at"}, {"stage", s.stage}, {"target", s.target}, {"loop", s.loop}};
        } else if constexpr (std::is_same_v<T, ComputeRootStep>) {
          return {{"step", "compute_root"}, {"stage", s.stage}};
        } else if constexpr (std::is_same_v<T, CacheWriteStep>) {
          return {{"step", "cache_write"}, {"stage", s.stage}, {"scope", s.scope}};
        } else if constexpr (std::is_same_v<T, CacheReadStep>) {
          return {{"step", "cache_read"}, {"stage", s.stage}, {"consumer", s.consumer},
                  {"scope", s.scope}};
        } else if constexpr (std::is_same_v<T, RFactorStep>) {
          return {{"step", "rfactor"}, {"stage", s.stage}, {"loop", s.loop}};
        } else if constexpr (std::is_same_v<T, LayoutStep>) {
          return {{"step", "layout"}, {"stage", s.stage}, {"dims", s.dims}};
        } else if constexpr (std::is_same_v<T, PackStep>) {
          return {{"step", "pack"}, {"stage", s.stage}};
        } else {
          return {{"step", "bind"}, {"stage", s.stage}, {"loop", s.loop}, {"thread", s.thread}};
        }
      },
      step);
}

namespace {

// Reads the fields of one step object, remembering which keys were used.
class Fields {
 public:
  Fields(const json& j, std::string kind) : j_(j), kind_(std::move(kind)) {}

  Result<std::string> string(const char* key) {
    used_.insert(key);
    if (!j_.contains(key)) return missing(key, "a string");
    if (!j_[key].is_string()) return wrong(key, "a string");
    return j_[key].get<std::string>();
  }
  Result<int64_t> integer(const char* key) {
    used_.insert(key);
    if (!j_.contains(key)) return missing(key, "an integer");
    if (!j_[key].is_number_integer()) return wrong(key, "an integer");
    return j_[key].get<int64_t>();
  }
  Result<std::vector<int64_t>> integers(const char* key) {
    used_.insert(key);
    if (!j_.contains(key)) return missing(key, "a list of integers");
    const json& v = j_[key];
    if (!v.is_array()) return wrong(key, "a list of integers");
    std::vector<int64_t> out;
    for (const json& e : v) {
      if (!e.is_number_integer()) return wrong(key, "a list of integers");
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  Result<std::vector<std::string>> strings(const char* key) {
    used_.insert(key);
    if (!j_.contains(key)) return missing(key, "a list of strings");
    const json& v = j_[key];
    if (!v.is_array()) return wrong(key, "a list of strings");
    std::vector<std::string> out;
    for (const json& e : v) {
      if (!e.is_string()) return wrong(key, "a list of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  // Every key present must have been read.
  Result<void> no_unknown_keys() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (it.key() != "step" && !used_.count(it.key())) {
        return make_error(kind_ + " step: unknown field '" + it.key() + "'");
      }
    }
    return {};
  }

 private:
  Error missing(const char* key, const char* what) const {
    return make_error(kind_ + " step: missing field '" + key + "' (" + what + ")");
  }
  Error wrong(const char* key, const char* what) const {
    return make_error(kind_ + " step: field '" + key + "' must be " + what + ", got " +
                      j_[key].dump());
  }
  const json& j_;
  std::string kind_;
  std::set<std::string> used_;
};

template <typename T>
Result<Step> finish(const Fields& fields, T step) {
  if (auto r = fields.no_unknown_keys(); !r) return r.error();
  return Step(std::move(step));
}

#define TESSERA_TRY(var, expr)          \
  auto var##_result = (expr);           \
  if (!var##_result) return var##_result.error(); \
  auto var = std::move(*var##_result)

}  // namespace

Result<Step> step_from_json(const json& j) {
  if (!j.is_object()) return make_error("a step must be a JSON object, got " + j.dump());
  if (!j.contains("step") || !j["step"].is_string()) {
    return make_error("a step needs a string field 'step' (the kind), got " + j.dump());
  }
  const std::string kind = j["step"].get<std::string>();
  Fields f(j, kind);
  if (kind == "split") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(loop, f.string("loop"));
    TESSERA_TRY(factors, f.integers("factors"));
    return finish(f, SplitStep{stage, loop, factors});
  }
  if (kind == "reorder") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(order, f.strings("order"));
    return finish(f, ReorderStep{stage, order});
  }
  if (kind == "fuse") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(loops, f.strings("loops"));
    return finish(f, FuseStep{stage, loops});
  }
  if (kind == "annotate") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(loop, f.string("loop"));
    TESSERA_TRY(annotation, f.string("annotation"));
    return finish(f, AnnotateStep{stage, loop, annotation});
  }
  if (kind == "compute_inline") {
    TESSERA_TRY(stage, f.string("stage"));
    return finish(f, ComputeInlineStep{stage});
  }
  if (kind == "auto_unroll") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(max_step, f.integer("max_step"));
    return finish(f, AutoUnrollStep{stage, max_step});
  }
  if (kind == "compute_at") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(target, f.string("target"));
    TESSERA_TRY(loop, f.string("loop"));
    return finish(f, ComputeAtStep{stage, target, loop});
  }
  if (kind == "compute_root") {
    TESSERA_TRY(stage, f.string("stage"));
    return finish(f, ComputeRootStep{stage});
  }
  if (kind == "cache_write") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(scope, f.string("scope"));
    return finish(f, CacheWriteStep{stage, scope});
  }
  if (kind == "cache_read") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(consumer, f.string("consumer"));
    TESSERA_TRY(scope, f.string("scope"));
    return finish(f, CacheReadStep{stage, consumer, scope});
  }
  if (kind == "rfactor") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(loop, f.string("loop"));
    return finish(f, RFactorStep{stage, loop});
  }
  if (kind == "layout") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(dims, f.strings("dims"));
    return finish(f, LayoutStep{stage, dims});
  }
  if (kind == "pack") {
    TESSERA_TRY(stage, f.string("stage"));
    return finish(f, PackStep{stage});
  }
  if (kind == "bind") {
    TESSERA_TRY(stage, f.string("stage"));
    TESSERA_TRY(loop, f.string("loop"));
    TESSERA_TRY(thread, f.string("thread"));
    return finish(f, BindStep{stage, loop, thread});
  }
  return make_error("unknown step kind '" + kind +
                    "' (expected split, reorder, fuse, annotate, compute_inline, auto_unroll, "
                    "compute_at, compute_root, cache_write, cache_read, rfactor, layout, pack, bind)");
}

#undef TESSERA_TRY

json steps_to_json(const std::vector<Step>& steps) {
  json out = json::array();
  for (const Step& s : steps) out.push_back(step_to_json(s));
  return out;
}

Result<std::vector<Step>> steps_from_json(const json& j) {
  if (!j.is_array()) return make_error("steps must be a JSON array");
  std::vector<Step> steps;
  for (size_t i = 0; i < j.size(); ++i) {
    auto step = step_from_json(j[i]);
    if (!step) return make_error("step " + std::to_string(i) + ": " + step.error().message);
    steps.push_back(std::move(*step));
  }
  return steps;
}

}  // namespace tessera::schedule

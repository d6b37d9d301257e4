// JSON form of schedule steps, e.g. {"step":"split","stage":"C","loop":"i","factors":[32,8]}.
//
// Used by records (a candidate's steps) and by tests. Parsing checks every field: a missing or
// mistyped field, an unknown key or an unknown step kind is an Error naming it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "schedule/result.h"
#include "schedule/steps.h"

namespace tessera::schedule {

nlohmann::json step_to_json(const Step& step);
Result<Step> step_from_json(const nlohmann::json& json);

nlohmann::json steps_to_json(const std::vector<Step>& steps);
Result<std::vector<Step>> steps_from_json(const nlohmann::json& json);

}  // namespace tessera::schedule

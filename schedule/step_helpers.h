// Internal to schedule/: lookups and edits shared by the step implementations (steps.cc for
// single-stage steps, steps_multistage.cc for steps that relate or add stages, steps_layout.cc
// for layout and pack).
#pragma once

#include <string>
#include <vector>

#include "schedule/state.h"

namespace tessera::schedule::detail {

std::string join(const std::vector<std::string>& names);

// The index of a compute stage that has loops (not an input, not inlined), or why not.
Result<int> find_stage(const State& state, const std::string& name);
// The position of `loop` in stage `stage`, or an error naming where the loop really is.
Result<int> find_loop(const State& state, int stage, const std::string& loop);
// `wanted`, or `wanted_N` if a loop of the stage already has that name.
std::string unique_loop_name(const StageState& s, const std::string& wanted);
// Rewrites the stage's axis values and guards after loop variable `old_var` becomes `value`.
void rewrite_loop_var(StageState& s, const ExprNode* old_var, const Expr& value);
// Error unless the stage's loops are still one per axis, as initial_stage_state made them.
Result<void> require_untransformed(const StageState& s, const std::string& why);
// Error if other stages are attached to loops of `stage` (its loop structure is then fixed).
Result<void> require_no_attachments(const State& state, int stage, const std::string& step);

Result<void> apply_compute_at(const ComputeAtStep& step, State& state);
Result<void> apply_compute_root(const ComputeRootStep& step, State& state);
Result<void> apply_cache_write(const CacheWriteStep& step, State& state);
Result<void> apply_cache_read(const CacheReadStep& step, State& state);
Result<void> apply_rfactor(const RFactorStep& step, State& state);
Result<void> apply_layout(const LayoutStep& step, State& state);
Result<void> apply_pack(const PackStep& step, State& state);
// Error if a packed stage now reads something other than constants (after a step redirected or
// un-inlined what it reads); `step` describes the step for the message.
Result<void> check_packed_reads(const State& state, const std::string& step);

}  // namespace tessera::schedule::detail

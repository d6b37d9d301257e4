// The packed read of a reduction: which input a vendor-style micro-kernel packs into panels
// of its vector, which inputs it must store blocked by that vector, and which it may pack by
// rows. Found by reading the op's index expressions (sketch_packed.cc builds the rule on it).
//
// For a convolution the packed input is its constant weight, vectorized along the output
// channel (OIHW16o); for a matmul, an input read along the output's last axis (B, [N/16][K][16]),
// packed in every call. A depthwise convolution's input follows its output channel, so it is
// stored blocked (NCHW16c). A grouped convolution's input follows the output channel by a
// division: its vector would be a gather, so it has no packed read.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedule/state.h"

namespace tessera::schedule::detail {

// An input read with the vector axis as (the position along) one of its dimensions.
struct AxisRead {
  std::string input;
  size_t dim = 0;   // the dimension the vector axis indexes
  size_t rank = 0;  // the input's rank
};

// The constant input `op` reads with exactly one of its spatial axes (the vector axis), and
// the other inputs that vector axis indexes (a depthwise convolution's input channel). None
// when another input depends on the vector axis in any other way (a grouped convolution's
// channel group): its vector would be a gather.
struct PackedRead {
  AxisRead packed;                // the input packed: a constant at load, any other in every call
  size_t axis = 0;                // spatial axis of `op`
  std::vector<AxisRead> blocked;  // to store blocked along that axis, its block innermost
  // Inputs read along one other spatial axis only (a matmul's A, by its rows), which a schedule
  // may pack in every call into panels of that axis's register tile: (read, axis).
  std::vector<std::pair<AxisRead, size_t>> rows;
};

// `constant`: the read is of a constant input (packed at load); otherwise of an input packed in
// every call, taken only when its vector axis is the output's last (contiguous) axis.
std::optional<PackedRead> find_packed_read(const TensorNode& op, const State& state, bool constant);

}  // namespace tessera::schedule::detail

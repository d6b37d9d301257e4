// Storage layouts: how a stage's buffer orders (and blocks) its dimensions.
//
// A layout is a list of LayoutDims, outermost first; each is a whole dimension of the stage or
// one half of a blocked one (the block index, or the position inside a block). Empty means
// row-major over the stage's own dimensions. LayoutStep (steps.h) sets a layout from its text
// form ("0/16", "1", "0%16"); lowering (lower.cc) maps every index through it. The values a
// stage computes never depend on its layout, only where they are stored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/expr.h"
#include "schedule/result.h"

namespace tessera::schedule {

struct LayoutDim {
  int dim = 0;        // dimension of the stage
  int64_t block = 0;  // 0: the whole dimension; else blocks of this size
  bool inner = false; // with a block: the position in the block (else the block index)
};
using StorageLayout = std::vector<LayoutDim>;

// Parses LayoutStep's text form for a stage of `rank` dimensions; errors say which entry is wrong.
Result<StorageLayout> parse_layout(const std::vector<std::string>& dims, size_t rank);
// The text form back, e.g. "[0/16, 1, 2, 3, 0%16]".
std::string to_string(const StorageLayout& layout);

// Extents of the buffer's dimensions under `layout` for a stage region of extents `shape`
// (a block that does not divide its extent rounds the block count up).
std::vector<int64_t> layout_extents(const StorageLayout& layout, const std::vector<int64_t>& shape);
// Indices into those dimensions for element `indices` of the region.
std::vector<Expr> layout_indices(const StorageLayout& layout, const std::vector<Expr>& indices);

}  // namespace tessera::schedule

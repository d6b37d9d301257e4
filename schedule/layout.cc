// Storage layouts: parsing, text form, extents and index mapping (see layout.h).
#include "schedule/layout.h"

#include <charconv>

namespace tessera::schedule {
namespace {

bool parse_int(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<StorageLayout> parse_layout(const std::vector<std::string>& dims, size_t rank) {
  StorageLayout layout;
  std::vector<int> whole(rank, 0), outer(rank, 0), inner(rank, 0);
  std::vector<int64_t> block_of(rank, 0);
  for (const std::string& text : dims) {
    const std::string what = "layout entry '" + text + "'";
    size_t split = text.find_first_of("/%");
    int64_t dim = 0, block = 0;
    if (!parse_int(text.substr(0, split), &dim) || dim < 0 || dim >= static_cast<int64_t>(rank)) {
      return make_error(what + ": expected a dimension in [0, " + std::to_string(rank) +
                        ") as \"d\", \"d/block\" or \"d%block\"");
    }
    LayoutDim d{static_cast<int>(dim), 0, false};
    if (split != std::string::npos) {
      if (!parse_int(text.substr(split + 1), &block) || block < 2) {
        return make_error(what + ": the block must be an integer of at least 2");
      }
      if (block_of[dim] != 0 && block_of[dim] != block) {
        return make_error(what + ": dimension " + std::to_string(dim) + " is blocked by " +
                          std::to_string(block_of[dim]) + " elsewhere");
      }
      block_of[dim] = block;
      d.block = block;
      d.inner = text[split] == '%';
      ++(d.inner ? inner : outer)[dim];
    } else {
      ++whole[dim];
    }
    layout.push_back(d);
  }
  for (size_t d = 0; d < rank; ++d) {
    bool ok = (whole[d] == 1 && outer[d] == 0 && inner[d] == 0) ||
              (whole[d] == 0 && outer[d] == 1 && inner[d] == 1);
    if (!ok) {
      return make_error("layout must use dimension " + std::to_string(d) +
                        " once, whole (\"" + std::to_string(d) + "\") or as both halves of a block (\"" +
                        std::to_string(d) + "/b\" and \"" + std::to_string(d) + "%b\")");
    }
  }
  return layout;
}

std::string to_string(const StorageLayout& layout) {
  std::string text = "[";
  for (size_t i = 0; i < layout.size(); ++i) {
    const LayoutDim& d = layout[i];
    text += (i ? ", " : "") + std::to_string(d.dim);
    if (d.block) text += (d.inner ? "%" : "/") + std::to_string(d.block);
  }
  return text + "]";
}

std::vector<int64_t> layout_extents(const StorageLayout& layout, const std::vector<int64_t>& shape) {
  if (layout.empty()) return shape;
  std::vector<int64_t> extents;
  for (const LayoutDim& d : layout) {
    int64_t e = shape[static_cast<size_t>(d.dim)];
    if (d.block) e = d.inner ? d.block : (e + d.block - 1) / d.block;
    extents.push_back(e);
  }
  return extents;
}

std::vector<Expr> layout_indices(const StorageLayout& layout, const std::vector<Expr>& indices) {
  if (layout.empty()) return indices;
  std::vector<Expr> out;
  for (const LayoutDim& d : layout) {
    const Expr& i = indices[static_cast<size_t>(d.dim)];
    if (!d.block) {
      out.push_back(i);
    } else {
      out.push_back(d.inner ? i % Expr(d.block) : i / Expr(d.block));
    }
  }
  return out;
}

}  // namespace tessera::schedule

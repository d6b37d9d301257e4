// Channels-last rewriting (see channels_last.h): one walk over the nodes in order, tracking
// which tensors exist in NHWC and which in NCHW, inserting a Transpose where a reader needs
// the layout a tensor does not have yet.
#include "graph/channels_last.h"

#include <map>
#include <set>

#include "graph/interpret.h"
#include "graph/op_compute.h"

namespace tessera::graph {
namespace {

using Shape = std::vector<int64_t>;

const std::vector<int64_t> kToNhwc{0, 2, 3, 1};  // NCHW -> NHWC
const std::vector<int64_t> kToNchw{0, 3, 1, 2};  // NHWC -> NCHW

Shape permuted(const Shape& s, const std::vector<int64_t>& perm) {
  Shape out;
  for (int64_t p : perm) out.push_back(s[p]);
  return out;
}

// `c` viewed as `shape` (the same elements, e.g. with leading ones), its axes permuted by `perm`:
// the interpreter's Transpose, as constant folding would evaluate it.
Constant permute_constant(const Constant& c, const std::string& name, const Shape& shape,
                          const std::vector<int64_t>& perm) {
  Value v = value_of(c);
  v.shape = shape;
  Node transpose;
  transpose.op_type = "Transpose";
  transpose.attrs["perm"] = perm;
  auto out = evaluate_node(transpose, {&v}, /*opset=*/17);
  return constant_of(name, out->front());
}

class ChannelsLast {
 public:
  explicit ChannelsLast(const Graph& g) : in_(g), out_(g) {
    out_.nodes.clear();
    for (const std::string& name : g.inputs) nchw_.insert(name);
  }

  Result<Graph> run() {
    for (const Node& node : in_.nodes) {
      if (auto placed = place(node); !placed) return placed.error();
    }
    for (const std::string& name : out_.outputs) as_nchw(name, in_.nodes.empty() ? 0 : in_.nodes.back().index);
    drop_unread_constants();
    if (auto valid = out_.validate(); !valid) return valid.error();
    return std::move(out_);
  }

 private:
  const TensorInfo* info(const std::string& name) const { return in_.info(name); }
  bool rank4(const std::string& name) const {
    const TensorInfo* i = info(name);
    return i && i->shape.size() == 4 && i->dtype == DType::kFloat32;
  }
  bool is_nhwc(const std::string& name) const { return nhwc_.count(name) > 0; }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int i = 1; out_.tensors.count(name); ++i) name = base + "_" + std::to_string(i);
    return name;
  }

  // The NHWC name of `name`, transposing it (before the node being placed) if needed.
  std::string as_nhwc(const std::string& name, int index) {
    auto it = nhwc_.find(name);
    if (it != nhwc_.end()) return it->second;
    const std::string target = fresh(name + "__nhwc");
    out_.tensors[target] = TensorInfo{target, permuted(info(name)->shape, kToNhwc), DType::kFloat32};
    add_transpose(name, target, kToNhwc, index);
    nhwc_[name] = target;
    return target;
  }

  // `name` itself, in NCHW: transposed back from its NHWC tensor if that is all there is.
  std::string as_nchw(const std::string& name, int index) {
    if (nchw_.count(name) || !is_nhwc(name)) return name;
    add_transpose(nhwc_.at(name), name, kToNchw, index);
    nchw_.insert(name);
    return name;
  }

  void add_transpose(const std::string& from, const std::string& to, const std::vector<int64_t>& perm,
                     int index) {
    Node t;
    t.name = to + "_transpose";
    t.op_type = "Transpose";
    t.index = index;
    t.attrs["perm"] = perm;
    t.inputs = {from};
    t.outputs = {to};
    out_.nodes.push_back(std::move(t));
  }

  // The node's output becomes an NHWC tensor.
  void output_nhwc(Node& node) {
    const std::string name = node.outputs[0];
    const std::string target = fresh(name + "__nhwc");
    out_.tensors[target] = TensorInfo{target, permuted(info(name)->shape, kToNhwc), DType::kFloat32};
    nhwc_[name] = target;
    node.outputs[0] = target;
  }

  // A constant operand of an NHWC elementwise node, broadcast the same way in NHWC: padded
  // to rank 4 with leading ones and permuted. Scalars stay. Empty when it cannot be.
  std::optional<std::string> nhwc_constant(const std::string& name) {
    const Constant& c = in_.constants.at(name);
    if (c.info.num_elements() == 1) return name;
    if (c.info.dtype != DType::kFloat32 || c.info.shape.size() > 4) return std::nullopt;
    auto it = permuted_constants_.find(name);
    if (it != permuted_constants_.end()) return it->second;
    Shape shape4(4 - c.info.shape.size(), 1);
    shape4.insert(shape4.end(), c.info.shape.begin(), c.info.shape.end());
    const std::string target = fresh(name + "__nhwc");
    Constant p = permute_constant(c, target, shape4, kToNhwc);
    out_.tensors[target] = p.info;
    out_.constants[target] = std::move(p);
    permuted_constants_[name] = target;
    return target;
  }

  Result<void> place(const Node& node) {
    const OpPattern pattern = op_pattern(node.op_type);
    const bool one_output = node.outputs.size() == 1 || (node.outputs.size() > 1 && node.outputs[1].empty());
    const std::string x = node.input(0);
    if (one_output && !x.empty() && rank4(x) && rank4(node.outputs[0])) {
      if (node.op_type == "Conv" && in_.is_constant(node.input(1)) && rank4(node.input(1)))
        return place_conv(node);
      if (node.op_type == "MaxPool" || node.op_type == "AveragePool" ||
          node.op_type == "GlobalAveragePool")
        return place_pool(node);
      if ((pattern == OpPattern::kElemwise || pattern == OpPattern::kBroadcast || node.op_type == "Concat") &&
          place_elementwise(node))
        return {};
    }
    place_nchw(node);
    return {};
  }

  void place_nchw(const Node& node) {
    Node copy = node;
    for (std::string& in : copy.inputs) {
      if (!in.empty()) in = as_nchw(in, node.index);
    }
    for (const std::string& o : copy.outputs) nchw_.insert(o);
    out_.nodes.push_back(std::move(copy));
  }

  Result<void> place_conv(const Node& node) {
    Node copy = node;
    copy.inputs[0] = as_nhwc(node.inputs[0], node.index);
    const std::string& w = node.inputs[1];
    auto it = permuted_constants_.find(w + "#hwio");
    if (it == permuted_constants_.end()) {
      const Constant& c = in_.constants.at(w);
      const std::string target = fresh(w + "__hwio");
      Constant p = permute_constant(c, target, c.info.shape, {2, 3, 1, 0});  // OIHW -> HWIO
      out_.tensors[target] = p.info;
      out_.constants[target] = std::move(p);
      it = permuted_constants_.emplace(w + "#hwio", target).first;
    }
    copy.inputs[1] = it->second;
    for (size_t i = 2; i < copy.inputs.size(); ++i) {
      if (!copy.inputs[i].empty()) copy.inputs[i] = as_nchw(copy.inputs[i], node.index);  // bias: 1-D
    }
    copy.attrs[kDataLayoutAttr] = std::string("NHWC");
    output_nhwc(copy);
    out_.nodes.push_back(std::move(copy));
    return {};
  }

  Result<void> place_pool(const Node& node) {
    Node copy = node;
    copy.inputs[0] = as_nhwc(node.inputs[0], node.index);
    copy.attrs[kDataLayoutAttr] = std::string("NHWC");
    output_nhwc(copy);
    out_.nodes.push_back(std::move(copy));
    return {};
  }

  // In NHWC when a data input already is and every data input is 4-D; false to leave it NCHW.
  // A Concat's axis moves with its dimension.
  bool place_elementwise(const Node& node) {
    bool any_nhwc = false;
    for (const std::string& in : node.inputs) {
      if (in.empty() || in_.is_constant(in)) continue;
      if (!rank4(in)) return false;
      any_nhwc |= is_nhwc(in);
    }
    if (!any_nhwc) return false;
    Node copy = node;
    for (std::string& in : copy.inputs) {
      if (in.empty()) continue;
      if (in_.is_constant(in)) {
        auto permuted_name = nhwc_constant(in);
        if (!permuted_name) return false;
        in = *permuted_name;
      }
    }
    for (std::string& in : copy.inputs) {
      if (!in.empty() && !out_.is_constant(in)) in = as_nhwc(in, node.index);
    }
    if (node.op_type == "Concat") {
      const int64_t axis = node.get_int("axis", 1);
      const int64_t nchw_axis = axis < 0 ? axis + 4 : axis;
      const int64_t nhwc_axis[4] = {0, 3, 1, 2};  // where each NCHW dimension sits in NHWC
      copy.attrs["axis"] = nhwc_axis[nchw_axis];
    }
    output_nhwc(copy);
    out_.nodes.push_back(std::move(copy));
    return true;
  }

  void drop_unread_constants() {
    std::set<std::string> read(out_.outputs.begin(), out_.outputs.end());
    for (const Node& n : out_.nodes) read.insert(n.inputs.begin(), n.inputs.end());
    for (auto it = out_.constants.begin(); it != out_.constants.end();) {
      if (read.count(it->first)) {
        ++it;
        continue;
      }
      out_.tensors.erase(it->first);
      it = out_.constants.erase(it);
    }
  }

  const Graph& in_;
  Graph out_;
  std::map<std::string, std::string> nhwc_;  // NCHW name -> its NHWC tensor
  std::set<std::string> nchw_;               // tensors defined in NCHW so far
  std::map<std::string, std::string> permuted_constants_;
};

}  // namespace

bool is_channels_last(const Node& node) { return node.get_string(kDataLayoutAttr, "") == "NHWC"; }

Result<Graph> to_channels_last(const Graph& graph) { return ChannelsLast(graph).run(); }

}  // namespace tessera::graph

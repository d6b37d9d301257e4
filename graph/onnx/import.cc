// ONNX import (see import.h): the only translation unit that includes ONNX headers. Checks
// first (operators, versions, inputs, dynamic dims), then ONNX shape inference, then the
// ModelProto's initializers, value infos, nodes and attributes are copied into a Graph.
#include "graph/onnx/import.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstring>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

namespace tessera::graph {
namespace {

const std::set<std::string>& supported() {
  static const std::set<std::string> ops{"Add",
                                         "AveragePool",
                                         "BatchNormalization",
                                         "Clip",
                                         "Concat",
                                         "Constant",
                                         "Conv",
                                         "Div",
                                         "Erf",
                                         "Flatten",
                                         "Gather",
                                         "Gemm",
                                         "GlobalAveragePool",
                                         "Identity",
                                         "LayerNormalization",
                                         "MatMul",
                                         "MaxPool",
                                         "Mul",
                                         "Pow",
                                         "ReduceMean",
                                         "Relu",
                                         "Reshape",
                                         "Shape",
                                         "Sigmoid",
                                         "Softmax",
                                         "Sqrt",
                                         "Sub",
                                         "Tanh",
                                         "Transpose",
                                         "Unsqueeze"};
  return ops;
}

std::string node_label(const onnx::NodeProto& node, int index) {
  return "node " + std::to_string(index) + " '" + node.name() + "' (" + node.op_type() + ")";
}

// Copies a TensorProto's float32 or int64 data (raw or typed fields).
Result<Constant> constant_from(const onnx::TensorProto& t, const std::string& source) {
  const std::string where = source + ": tensor '" + t.name() + "': ";
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return make_error(where + "external data is not supported");
  Constant c;
  c.info.name = t.name();
  for (int64_t d : t.dims()) c.info.shape.push_back(d);
  const int64_t n = c.info.num_elements();
  const std::string& raw = t.raw_data();
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      c.info.dtype = DType::kFloat32;
      if (!raw.empty()) {
        if (static_cast<int64_t>(raw.size()) != n * 4)
          return make_error(where + "raw data of the wrong size");
        c.f32.resize(n);
        std::memcpy(c.f32.data(), raw.data(), raw.size());
      } else {
        c.f32.assign(t.float_data().begin(), t.float_data().end());
      }
      if (static_cast<int64_t>(c.f32.size()) != n)
        return make_error(where + "data of the wrong size");
      return c;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
      c.info.dtype = DType::kInt64;
      if (!raw.empty()) {
        const bool is64 = t.data_type() == onnx::TensorProto::INT64;
        if (static_cast<int64_t>(raw.size()) != n * (is64 ? 8 : 4))
          return make_error(where + "raw data of the wrong size");
        for (int64_t i = 0; i < n; ++i) {
          if (is64) {
            int64_t v;
            std::memcpy(&v, raw.data() + 8 * i, 8);
            c.i64.push_back(v);
          } else {
            int32_t v;
            std::memcpy(&v, raw.data() + 4 * i, 4);
            c.i64.push_back(v);
          }
        }
      } else if (t.data_type() == onnx::TensorProto::INT64) {
        c.i64.assign(t.int64_data().begin(), t.int64_data().end());
      } else {
        c.i64.assign(t.int32_data().begin(), t.int32_data().end());
      }
      if (static_cast<int64_t>(c.i64.size()) != n)
        return make_error(where + "data of the wrong size");
      return c;
    default:
      return make_error(where + "element type " + std::to_string(t.data_type()) +
                        " is not supported (float32 and int64 are)");
  }
}

// A value's static shape and type, or an error naming the tensor.
Result<TensorInfo> info_from(const onnx::ValueInfoProto& v, const std::string& source) {
  const std::string where = source + ": tensor '" + v.name() + "': ";
  if (!v.type().has_tensor_type()) return make_error(where + "not a tensor");
  const auto& tt = v.type().tensor_type();
  TensorInfo info;
  info.name = v.name();
  if (tt.elem_type() == onnx::TensorProto::FLOAT)
    info.dtype = DType::kFloat32;
  else if (tt.elem_type() == onnx::TensorProto::INT64)
    info.dtype = DType::kInt64;
  else
    return make_error(where + "element type " + std::to_string(tt.elem_type()) +
                      " is not supported");
  if (!tt.has_shape()) return make_error(where + "no static shape after shape inference");
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() <= 0) {
      return make_error(where + "dimension " +
                        (d.has_dim_param() ? "'" + d.dim_param() + "'" : std::string("?")) +
                        " has no static value after shape inference");
    }
    info.shape.push_back(d.dim_value());
  }
  return info;
}

Result<AttrValue> attribute_from(const onnx::AttributeProto& a, const std::string& source) {
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      return AttrValue{static_cast<int64_t>(a.i())};
    case onnx::AttributeProto::FLOAT:
      return AttrValue{static_cast<double>(a.f())};
    case onnx::AttributeProto::STRING:
      return AttrValue{a.s()};
    case onnx::AttributeProto::INTS:
      return AttrValue{std::vector<int64_t>(a.ints().begin(), a.ints().end())};
    case onnx::AttributeProto::FLOATS:
      return AttrValue{std::vector<double>(a.floats().begin(), a.floats().end())};
    case onnx::AttributeProto::TENSOR: {
      auto c = constant_from(a.t(), source);
      if (!c) return c.error();
      return AttrValue{std::move(*c)};
    }
    default:
      return make_error("attribute '" + a.name() + "' has an unsupported kind");
  }
}

// Every check that needs no shape inference, in file order.
Result<int> check_model(onnx::ModelProto& model, const std::string& source,
                        const ImportOptions& options) {
  if (model.ir_version() <= 0 || !model.has_graph())
    return make_error(source + ": not an ONNX model (no IR version or no graph)");
  if (model.ir_version() > kMaxOnnxIrVersion) {
    return make_error(source + ": IR version " + std::to_string(model.ir_version()) +
                      " is newer than " + std::to_string(kMaxOnnxIrVersion) +
                      ", the newest supported");
  }
  int opset = -1;
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  }
  if (opset < 0) return make_error(source + ": no opset for the default ONNX domain");
  if (opset > kMaxOnnxOpset) {
    return make_error(source + ": opset " + std::to_string(opset) + " is newer than " +
                      std::to_string(kMaxOnnxOpset) + ", the newest supported");
  }
  const onnx::GraphProto& g = model.graph();
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& node = g.node(i);
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    if (!default_domain || !supported().count(node.op_type())) {
      return make_error(source + ": " + node_label(node, i) + ": unsupported operator");
    }
  }
  std::set<std::string> defined;
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& v : g.input()) defined.insert(v.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& node = g.node(i);
    for (const std::string& in : node.input()) {
      if (!in.empty() && !defined.count(in)) {
        return make_error(source + ": " + node_label(node, i) + ": input '" + in +
                          "' is not defined before it");
      }
    }
    for (const std::string& out : node.output()) defined.insert(out);
  }
  for (const auto& out : g.output()) {
    if (!defined.count(out.name()))
      return make_error(source + ": graph output '" + out.name() + "' is never computed");
  }
  std::set<std::string> initializer_names;
  for (const auto& t : g.initializer()) initializer_names.insert(t.name());
  for (const auto& v : g.input()) {
    if (initializer_names.count(v.name())) continue;
    if (!v.type().has_tensor_type())
      return make_error(source + ": input '" + v.name() + "' is not a tensor");
    const int type = v.type().tensor_type().elem_type();
    if (type != onnx::TensorProto::FLOAT) {
      const std::string name =
          onnx::TensorProto_DataType_IsValid(type)
              ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(type))
              : std::to_string(type);
      return make_error(source + ": input '" + v.name() + "' has element type " + name +
                        " (float32 only)");
    }
  }
  // Symbolic input dims take their values from the options, or are refused.
  for (auto& v : *model.mutable_graph()->mutable_input()) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
    for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (d.has_dim_value() && d.dim_value() > 0) continue;
      auto it =
          d.has_dim_param() ? options.dim_values.find(d.dim_param()) : options.dim_values.end();
      if (it == options.dim_values.end()) {
        return make_error(source + ": input '" + v.name() + "' has a dynamic dimension" +
                          (d.has_dim_param() ? " '" + d.dim_param() + "'" : std::string()) +
                          " without a value");
      }
      d.set_dim_value(it->second);
    }
  }
  return opset;
}

// Replaces the computed shape input of each Reshape by an initializer holding the value data
// propagation found for it; false when there was none to replace.
bool make_reshapes_static(onnx::ModelProto& model,
                          const std::unordered_map<std::string, onnx::TensorShapeProto>& data) {
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  bool changed = false;
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "Reshape" || node.input_size() < 2 || initializers.count(node.input(1)))
      continue;
    auto it = data.find(node.input(1));
    if (it == data.end()) continue;
    std::vector<int64_t> values;
    for (const auto& d : it->second.dim()) {
      if (!d.has_dim_value()) break;
      values.push_back(d.dim_value());
    }
    if (values.size() != static_cast<size_t>(it->second.dim_size())) continue;
    const std::string name = node.input(1) + "__static";
    if (!initializers.count(name)) {
      auto* t = model.mutable_graph()->add_initializer();
      t->set_name(name);
      t->add_dims(static_cast<int64_t>(values.size()));
      t->set_data_type(onnx::TensorProto::INT64);
      for (int64_t v : values) t->add_int64_data(v);
      initializers.insert(name);
    }
    node.set_input(1, name);
    changed = true;
  }
  return changed;
}

}  // namespace

std::vector<std::string> supported_onnx_ops() { return {supported().begin(), supported().end()}; }

Result<Graph> import_onnx_bytes(const std::string& bytes, const std::string& source,
                                const ImportOptions& options) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    return make_error(source + ": not an ONNX model (the protobuf does not parse)");
  auto opset = check_model(model, source, options);
  if (!opset) return opset.error();
  // Reshape targets computed by Shape/Gather/Unsqueeze/Concat chains are known to ONNX's data
  // propagation, but Reshape's own inference reads only initializers: each round turns the
  // propagated targets into initializers and infers again, until every Reshape is static.
  for (int round = 0; round < 256; ++round) {
    std::unordered_map<std::string, onnx::TensorShapeProto> data;
    try {
      onnx::shape_inference::InferShapes(
          model, onnx::OpSchemaRegistry::Instance(),
          onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1,
                                      /*data_prop=*/true),
          &data);
    } catch (const std::exception& e) {
      std::string what = e.what();
      for (char& ch : what)
        if (ch == '\n') ch = ' ';
      return make_error(source + ": shape inference failed: " + what);
    }
    if (!make_reshapes_static(model, data)) break;
  }
  const onnx::GraphProto& gp = model.graph();
  Graph g;
  g.source = source;
  g.opset = *opset;
  for (const auto& t : gp.initializer()) {
    auto c = constant_from(t, source);
    if (!c) return c.error();
    g.tensors[c->info.name] = c->info;
    g.constants[c->info.name] = std::move(*c);
  }
  auto add_info = [&](const onnx::ValueInfoProto& v) -> Result<void> {
    if (g.is_constant(v.name())) return {};
    auto info = info_from(v, source);
    if (!info) return info.error();
    g.tensors[v.name()] = *info;
    return {};
  };
  for (const auto& v : gp.input()) {
    if (g.is_constant(v.name())) continue;
    if (auto r = add_info(v); !r) return r.error();
    g.inputs.push_back(v.name());
  }
  for (const auto& v : gp.value_info()) {
    if (auto r = add_info(v); !r) return r.error();
  }
  for (const auto& v : gp.output()) {
    if (auto r = add_info(v); !r) return r.error();
    g.outputs.push_back(v.name());
  }
  for (int i = 0; i < gp.node_size(); ++i) {
    const auto& np = gp.node(i);
    Node node;
    node.name = np.name();
    node.op_type = np.op_type();
    node.index = i;
    node.inputs.assign(np.input().begin(), np.input().end());
    node.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& a : np.attribute()) {
      auto value = attribute_from(a, source);
      if (!value)
        return make_error(source + ": " + node_label(np, i) + ": " + value.error().message);
      node.attrs[a.name()] = std::move(*value);
    }
    if (node.op_type == "Constant" && !node.has("value")) {  // value_float, value_ints, ...
      Constant c;
      if (node.has("value_float"))
        c = make_constant("", {}, {static_cast<float>(node.get_float("value_float", 0))});
      else if (node.has("value_int"))
        c = make_int_constant("", {}, {node.get_int("value_int", 0)});
      else if (node.has("value_ints")) {
        auto v = node.get_ints("value_ints", {});
        c = make_int_constant("", {static_cast<int64_t>(v.size())}, v);
      } else {
        return make_error(source + ": " + node_label(np, i) +
                          ": Constant without a supported value");
      }
      node.attrs["value"] = std::move(c);
    }
    for (const std::string& out : node.outputs) {
      if (!out.empty() && !g.info(out)) {
        return make_error(source + ": " + node_label(np, i) + ": output '" + out +
                          "' has no static shape after shape inference");
      }
    }
    g.nodes.push_back(std::move(node));
  }
  if (auto r = g.validate(); !r) return r.error();
  return g;
}

Result<Graph> import_onnx(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open the file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return import_onnx_bytes(bytes.str(), path, options);
}

}  // namespace tessera::graph

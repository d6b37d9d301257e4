// Builds small ONNX models in code with ONNX's own protobuf classes, for the graph tests and
// the reject corpus: inputs, outputs, initializers, Constant nodes and operator nodes with
// attributes, serialized to the bytes a .onnx file holds.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tessera::graph::testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 13, int ir_version = 7) {
    model_.set_ir_version(ir_version);
    model_.set_producer_name("tessera-test");
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  void input(const std::string& name, const std::vector<int64_t>& shape) {
    value(graph().add_input(), name, shape, onnx::TensorProto::FLOAT);
  }
  void output(const std::string& name) {
    auto* v = graph().add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  // A float initializer with seeded values in [lo, hi).
  void weight(const std::string& name, const std::vector<int64_t>& shape, float lo = -1,
              float hi = 1) {
    std::vector<float> values(count(shape));
    std::uniform_real_distribution<float> dist(lo, hi);
    for (float& v : values) v = dist(rng_);
    floats(name, shape, values);
  }
  void floats(const std::string& name, const std::vector<int64_t>& shape,
              const std::vector<float>& values) {
    auto* t = graph().add_initializer();
    fill(t, name, shape, values);
  }
  void ints(const std::string& name, const std::vector<int64_t>& shape,
            const std::vector<int64_t>& values) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    for (int64_t d : shape) t->add_dims(d);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t v : values) t->add_int64_data(v);
  }
  // A Constant node holding a float tensor.
  void constant(const std::string& out, const std::vector<int64_t>& shape,
                const std::vector<float>& values) {
    auto* n = node("Constant", {}, {out});
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    fill(a->mutable_t(), out, shape, values);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out, const std::string& name = "") {
    auto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(graph().node_size() - 1) : name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  }
  static void attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  std::string bytes() const { return model_.SerializeAsString(); }

 private:
  static int64_t count(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  }
  static void value(onnx::ValueInfoProto* v, const std::string& name,
                    const std::vector<int64_t>& shape, int type) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* s = tt->mutable_shape();
    for (int64_t d : shape) s->add_dim()->set_dim_value(d);
  }
  static void fill(onnx::TensorProto* t, const std::string& name, const std::vector<int64_t>& shape,
                   const std::vector<float>& values) {
    t->set_name(name);
    for (int64_t d : shape) t->add_dims(d);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  }

  onnx::ModelProto model_;
  std::mt19937 rng_{1234};
};

}  // namespace tessera::graph::testing

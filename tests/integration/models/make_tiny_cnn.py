#!/usr/bin/python3
# Writes tiny_cnn.onnx, the model of the `tessera run` / `tessera inspect` CLI tests: a 3x3 conv
# with BatchNormalization and Relu, a residual 3x3 conv + Add + Relu, max pooling, global
# average pooling, Flatten and a Gemm (input [1,3,16,16], output [1,10]; seeded weights); and
# tiny_cnn_24.onnx, the same layers on a [1,3,24,24] input (other workloads of the same kinds:
# the network transfer-tuning test carries schedules from one to the other).
# Run with Debian's interpreter (python3-onnx): /usr/bin/python3 make_tiny_cnn.py
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(7)
def w(name, *shape, scale=0.3):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

inits = [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", 8, 8, 3, 3), w("b2", 8), w("fc", 10, 8), w("fcb", 10),
         numpy_helper.from_array(np.abs(rng.standard_normal(8)).astype(np.float32) + 0.5, "scale"),
         w("bias", 8), w("mean", 8),
         numpy_helper.from_array(np.abs(rng.standard_normal(8)).astype(np.float32) + 0.5, "var")]
nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
    helper.make_node("BatchNormalization", ["c1", "scale", "bias", "mean", "var"], ["bn1"], name="bn1"),
    helper.make_node("Relu", ["bn1"], ["r1"], name="relu1"),
    helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
    helper.make_node("Add", ["c2", "r1"], ["a2"], name="add2"),
    helper.make_node("Relu", ["a2"], ["r2"], name="relu2"),
    helper.make_node("MaxPool", ["r2"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
    helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1, name="fc"),
]
for side, name in ((16, "tiny_cnn"), (24, "tiny_cnn_24")):
    graph = helper.make_graph(nodes, name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, side, side])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="tessera-test")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, __file__.replace("make_tiny_cnn.py", name + ".onnx"))

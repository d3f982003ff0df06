#!/usr/bin/env python3
"""Regenerates the small ONNX fixtures of test/Import/Onnx/Inputs.

Needs python3-onnx and numpy (fixture generation only; the .onnx files are
committed). Usage: python3 scripts/make-onnx-fixtures.py [OUTDIR]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

OPSET = 17
rng = np.random.default_rng(0)


def init(name, *shape, dtype=np.float32):
    return nh.from_array((rng.standard_normal(shape) * 0.1).astype(dtype), name)


def ints(name, values):
    return nh.from_array(np.array(values, dtype=np.int64), name)


def save(outdir, name, nodes, inputs, outputs, inits=(), opset=OPSET,
         check=True):
    graph = h.make_graph(nodes, name, inputs, outputs, list(inits))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)],
                         producer_name="make-onnx-fixtures")
    model.ir_version = 8
    if check:  # (the checker looks for external data in the working dir)
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(outdir, name + ".onnx"))


def vi(name, elem, shape):
    return h.make_tensor_value_info(name, elem, shape)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "test", "Import", "Onnx", "Inputs")
    os.makedirs(outdir, exist_ok=True)

    # MLP with an MSE loss: Gemm, Relu, MatMul + Add, Sub, Mul, ReduceMean.
    save(outdir, "mlp_mse", [
        h.make_node("Gemm", ["x", "w0", "b0"], ["h0"], name="fc0", transB=1),
        h.make_node("Relu", ["h0"], ["a0"], name="relu0"),
        h.make_node("MatMul", ["a0", "w1"], ["m1"], name="fc1"),
        h.make_node("Add", ["m1", "b1"], ["out"], name="bias1"),
        h.make_node("Sub", ["out", "y"], ["d"], name="diff"),
        h.make_node("Mul", ["d", "d"], ["sq"], name="square"),
        h.make_node("ReduceMean", ["sq"], ["loss"], name="mse", keepdims=0),
    ], [vi("x", TP.FLOAT, [4, 8]), vi("y", TP.FLOAT, [4, 2])],
       [vi("loss", TP.FLOAT, [])],
       [init("w0", 16, 8), init("b0", 16), init("w1", 16, 2), init("b1", 2)])

    # A single-head attention block with a residual and LayerNorm; the head
    # reshape uses a Shape/Gather/Unsqueeze/Concat subgraph as exporters emit.
    B, S, D = 2, 4, 8
    save(outdir, "attention", [
        h.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        h.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        h.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
        h.make_node("Transpose", ["k"], ["kt"], name="k_t", perm=[0, 2, 1]),
        h.make_node("MatMul", ["q", "kt"], ["s"], name="scores"),
        h.make_node("Div", ["s", "scale"], ["ss"], name="scale_scores"),
        h.make_node("Softmax", ["ss"], ["p"], name="softmax", axis=-1),
        h.make_node("MatMul", ["p", "v"], ["ctx"], name="context"),
        h.make_node("Shape", ["ctx"], ["shp"], name="shape"),
        h.make_node("Gather", ["shp", "i0"], ["b"], name="gather_b", axis=0),
        h.make_node("Unsqueeze", ["b", "ax0"], ["bu"], name="unsq_b"),
        h.make_node("Concat", ["bu", "minus1"], ["flat_shape"], name="cat",
                    axis=0),
        h.make_node("Reshape", ["ctx", "flat_shape"], ["ctx2"], name="flatten"),
        h.make_node("Reshape", ["ctx2", "orig"], ["ctx3"], name="unflatten"),
        h.make_node("Add", ["x", "ctx3"], ["r"], name="residual"),
        h.make_node("LayerNormalization", ["r", "ln_g", "ln_b"], ["y"],
                    name="ln", axis=-1, epsilon=1e-5),
    ], [vi("x", TP.FLOAT, [B, S, D])], [vi("y", TP.FLOAT, [B, S, D])],
       [init("wq", D, D), init("wk", D, D), init("wv", D, D),
        nh.from_array(np.array(np.sqrt(D), dtype=np.float32), "scale"),
        ints("i0", 0), ints("ax0", [0]), ints("minus1", [-1]),
        ints("orig", [B, S, D]),
        nh.from_array(np.ones(D, dtype=np.float32), "ln_g"),
        nh.from_array(np.zeros(D, dtype=np.float32), "ln_b")])

    # Elementwise family.
    save(outdir, "elementwise", [
        h.make_node("Tanh", ["x"], ["t"], name="tanh"),
        h.make_node("Sigmoid", ["t"], ["sg"], name="sigmoid"),
        h.make_node("Exp", ["sg"], ["e"], name="exp"),
        h.make_node("Log", ["e"], ["l"], name="log"),
        h.make_node("Sqrt", ["e"], ["sq"], name="sqrt"),
        h.make_node("Pow", ["sq", "two"], ["p"], name="pow"),
        h.make_node("Neg", ["p"], ["n"], name="neg"),
        h.make_node("Reciprocal", ["e"], ["rc"], name="recip"),
        h.make_node("Erf", ["rc"], ["er"], name="erf"),
        h.make_node("Div", ["er", "l"], ["dv"], name="div"),
        h.make_node("Identity", ["dv"], ["id"], name="identity"),
        h.make_node("Dropout", ["id"], ["dr"], name="dropout"),
        h.make_node("Equal", ["x", "n"], ["eq"], name="equal"),
        h.make_node("Where", ["eq", "dr", "n"], ["y"], name="where"),
    ], [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.FLOAT, [2, 3])],
       [nh.from_array(np.array(2.0, dtype=np.float32), "two")])

    # Shape family.
    save(outdir, "shapes", [
        h.make_node("Flatten", ["x"], ["f"], name="flatten", axis=1),
        h.make_node("Unsqueeze", ["f", "ax0"], ["u"], name="unsqueeze"),
        h.make_node("Squeeze", ["u", "ax0"], ["s"], name="squeeze"),
        h.make_node("Concat", ["s", "s"], ["c"], name="concat", axis=1),
        h.make_node("Slice", ["c", "st", "en", "axs"], ["sl"], name="slice"),
        h.make_node("Split", ["sl"], ["a", "b"], name="split", axis=1),
        h.make_node("Expand", ["a", "eshape"], ["ex"], name="expand"),
        h.make_node("Cast", ["ex"], ["y"], name="cast", to=TP.FLOAT),
        h.make_node("Gather", ["emb", "ids"], ["z"], name="embed", axis=0),
    ], [vi("x", TP.FLOAT, [2, 3, 4]), vi("ids", TP.INT64, [2, 5])],
       [vi("y", TP.FLOAT, [3, 2, 6]), vi("z", TP.FLOAT, [2, 5, 4])],
       [ints("ax0", [0]), ints("st", [0]), ints("en", [12]), ints("axs", [1]),
        ints("eshape", [3, 2, 6]), init("emb", 10, 4)])

    # Classifier with softmax cross-entropy (reductions family).
    save(outdir, "classifier", [
        h.make_node("Gemm", ["x", "w", "b"], ["logits"], name="fc"),
        h.make_node("ReduceMax", ["logits"], ["mx"], name="max", axes=[1]),
        h.make_node("ReduceSum", ["logits", "ax1"], ["sm"], name="sum"),
        h.make_node("SoftmaxCrossEntropyLoss", ["logits", "labels"], ["loss"],
                    name="xent", reduction="mean"),
    ], [vi("x", TP.FLOAT, [4, 6]), vi("labels", TP.INT64, [4])],
       [vi("loss", TP.FLOAT, []), vi("mx", TP.FLOAT, [4, 1]),
        vi("sm", TP.FLOAT, [4, 1])],
       [init("w", 6, 3), init("b", 3), ints("ax1", [1])])

    # Conv / pools (NCHW).
    save(outdir, "conv", [
        h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                    pads=[1, 1, 1, 1], strides=[1, 1]),
        h.make_node("MaxPool", ["c"], ["m"], name="maxpool",
                    kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("AveragePool", ["m"], ["y"], name="avgpool",
                    kernel_shape=[2, 2], strides=[2, 2]),
    ], [vi("x", TP.FLOAT, [1, 3, 8, 8])], [vi("y", TP.FLOAT, [1, 4, 2, 2])],
       [init("w", 4, 3, 3, 3), init("b", 4)])

    # Error cases.
    save(outdir, "unsupported", [
        h.make_node("Celu", ["x"], ["y"], name="my_celu"),
    ], [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.FLOAT, [2, 3])])
    save(outdir, "dynamic", [
        h.make_node("Relu", ["x"], ["y"], name="relu"),
    ], [vi("x", TP.FLOAT, ["batch", 3])], [vi("y", TP.FLOAT, ["batch", 3])])
    save(outdir, "dynamic_inner", [
        h.make_node("Relu", ["x"], ["y"], name="relu"),
    ], [vi("x", TP.FLOAT, [2, "n"])], [vi("y", TP.FLOAT, [2, "n"])])

    # External data: the weights of `external_ok` live in external_ok.bin
    # next to the model; the other two point outside the model's folder.
    w = np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5
    with open(os.path.join(outdir, "external_ok.bin"), "wb") as f:
        f.write(w.tobytes())
    for name, location in [("external_ok", "external_ok.bin"),
                           ("external_parent", "../external_ok.bin"),
                           ("external_absolute", "/external_ok.bin")]:
        t = nh.from_array(w, "w")
        t.ClearField("raw_data")
        t.data_location = TP.EXTERNAL
        for key, value in [("location", location), ("offset", "0"),
                           ("length", str(w.nbytes))]:
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        save(outdir, name, [
            h.make_node("Add", ["x", "w"], ["y"], name="add"),
        ], [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.FLOAT, [2, 3])], [t],
           check=False)

    # Grouped convolutions and global pools (last, so the fixtures above keep
    # their random weights): a depthwise Conv (group = 4 channels, multiplier
    # 2), a Conv with 2 groups, GlobalAveragePool and GlobalMaxPool; and a
    # group count that does not divide the channels (an error).
    save(outdir, "conv_group", [
        h.make_node("Conv", ["x", "wd", "bd"], ["d"], name="depthwise",
                    group=4, pads=[1, 1, 1, 1]),
        h.make_node("Conv", ["d", "wg"], ["g"], name="grouped", group=2),
        h.make_node("GlobalAveragePool", ["g"], ["avg"], name="gap"),
        h.make_node("GlobalMaxPool", ["g"], ["max"], name="gmp"),
    ], [vi("x", TP.FLOAT, [1, 4, 5, 5])],
       [vi("avg", TP.FLOAT, [1, 6, 1, 1]), vi("max", TP.FLOAT, [1, 6, 1, 1])],
       [init("wd", 8, 1, 3, 3), init("bd", 8), init("wg", 6, 4, 1, 1)])
    save(outdir, "conv_bad_group", [
        h.make_node("Conv", ["x", "w"], ["y"], name="conv", group=2),
    ], [vi("x", TP.FLOAT, [1, 3, 4, 4])], [vi("y", TP.FLOAT, [1, 2, 4, 4])],
       [init("w", 2, 1, 1, 1)], check=False)
    # A Conv whose data input has no spatial dimensions under a 4-D weight
    # (found by the importer's fuzzer: libonnx's shape inference read past
    # the input's shape). Constant weights keep the fixtures above unchanged.
    save(outdir, "conv_rank_mismatch", [
        h.make_node("Conv", ["x", "w"], ["y"], name="conv"),
    ], [vi("x", TP.FLOAT, [1, 3])], [vi("y", TP.FLOAT, [1, 2, 4, 4])],
       [nh.from_array(np.ones((2, 3, 1, 1), np.float32), "w")], check=False)
    parameter_fixtures(outdir)
    batchnorm_fixtures(outdir)
    dropout_fixtures(outdir)
    recurrent_fixtures(outdir)


def recurrent_fixtures(outdir):
    """An LSTM and a GRU layer (X [5, 2, 3], hidden size 4), which the
    importer refuses with a hint. Zero weights, no draws from rng."""
    for op, gates in (("LSTM", 4), ("GRU", 3)):
        save(outdir, op.lower(), [
            h.make_node(op, ["x", "w", "r"], ["y"], name=op.lower(),
                        hidden_size=4),
        ], [vi("x", TP.FLOAT, [5, 2, 3])], [vi("y", TP.FLOAT, [5, 1, 2, 4])],
           [nh.from_array(np.zeros((1, gates * 4, 3), np.float32), "w"),
            nh.from_array(np.zeros((1, gates * 4, 4), np.float32), "r")])


def batchnorm_fixtures(outdir):
    """BatchNormalization in training mode (batch statistics, the running
    statistics as outputs, PyTorch's export form) and in eval mode (running
    statistics), each followed by a ReduceMean loss. Fixed values, no draws
    from rng (the fixtures above keep theirs)."""
    def stats():
        return [nh.from_array(np.array([1.0, 0.5, 2.0], np.float32), "g"),
                nh.from_array(np.array([0.0, 0.1, -0.2], np.float32), "b"),
                nh.from_array(np.array([0.1, 0.2, 0.3], np.float32), "rm"),
                nh.from_array(np.array([1.0, 1.5, 0.5], np.float32), "rv")]
    for name, training in (("batchnorm_train", 1), ("batchnorm_eval", 0)):
        outputs = ["y", "rm_out", "rv_out"] if training else ["y"]
        save(outdir, name, [
            h.make_node("BatchNormalization", ["x", "g", "b", "rm", "rv"],
                        outputs, name="bn", epsilon=1e-5, momentum=0.9,
                        training_mode=training),
            h.make_node("ReduceMean", ["y"], ["loss"], name="mean",
                        keepdims=0),
        ], [vi("x", TP.FLOAT, [4, 3, 2, 2])], [vi("loss", TP.FLOAT, [])],
           stats())


def dropout_fixtures(outdir):
    """Dropout: in training mode with a ratio input and the mask output, in
    training mode without either (ratio 0.5), with ratio 0 (the identity)
    and with a ratio that is a graph input (an error); and an MLP with two
    training-mode Dropouts and a mean-square loss, with ratio 0.3 and 0
    (the same model without dropout). Fixed weights (no draws from rng)."""
    true = nh.from_array(np.array(True), "train")

    def ratio(r, name="ratio"):
        return nh.from_array(np.array(r, np.float32), name)

    def loss(src):
        return [h.make_node("Mul", [src, src], ["sq"], name="square"),
                h.make_node("ReduceMean", ["sq"], ["loss"], name="mean",
                            keepdims=0)]
    for name, inputs, outputs, inits in (
            ("dropout_train", ["x", "ratio", "train"], ["y", "mask"],
             [ratio(0.25), true]),
            ("dropout_default", ["x", "", "train"], ["y"], [true]),
            ("dropout_zero", ["x", "ratio", "train"], ["y", "mask"],
             [ratio(0.0), true])):
        save(outdir, name,
             [h.make_node("Dropout", inputs, outputs, name="drop")] +
             loss("y"),
             [vi("x", TP.FLOAT, [4, 6])],
             [vi("loss", TP.FLOAT, [])] +
             ([vi("mask", TP.BOOL, [4, 6])] if "mask" in outputs else []),
             inits)
    save(outdir, "dropout_dynamic_ratio",
         [h.make_node("Dropout", ["x", "r", "train"], ["y"], name="drop")] +
         loss("y"),
         [vi("x", TP.FLOAT, [4, 6]), vi("r", TP.FLOAT, [])],
         [vi("loss", TP.FLOAT, [])], [true])

    def weight(name, rows, cols, phase):
        v = np.sin(np.arange(rows * cols, dtype=np.float64) * 0.7 + phase)
        return nh.from_array((v.reshape(rows, cols) * 0.5).astype(np.float32),
                             name)
    for name, r in (("dropout_mlp", 0.3), ("dropout_mlp_zero", 0.0)):
        save(outdir, name, [
            h.make_node("MatMul", ["x", "w0"], ["m0"], name="fc0"),
            h.make_node("Tanh", ["m0"], ["a0"], name="tanh0"),
            h.make_node("Dropout", ["a0", "ratio", "train"], ["d0"],
                        name="drop0"),
            h.make_node("MatMul", ["d0", "w1"], ["m1"], name="fc1"),
            h.make_node("Tanh", ["m1"], ["a1"], name="tanh1"),
            h.make_node("Dropout", ["a1", "ratio", "train"], ["d1"],
                        name="drop1"),
            h.make_node("MatMul", ["d1", "w2"], ["m2"], name="fc2"),
            h.make_node("Sub", ["m2", "t"], ["e"], name="err"),
        ] + loss("e"),
            [vi("x", TP.FLOAT, [8, 6]), vi("t", TP.FLOAT, [8, 3])],
            [vi("loss", TP.FLOAT, [])],
            [weight("w0", 6, 16, 0.0), weight("w1", 16, 16, 1.0),
             weight("w2", 16, 3, 2.0), ratio(r), true])


def parameter_fixtures(outdir):
    """Which initializers are parameters (docs/onnx.md, "Parameters and
    constants"): an exporter's Identity alias, a buffer that only reaches the
    loss through a comparison, and one weight used directly by two nodes."""
    prng = np.random.default_rng(7)

    def value(name, *shape):
        return nh.from_array(
            (prng.standard_normal(shape) * 0.1).astype(np.float32), name)

    def scalar_loss(src):
        return [h.make_node("ReduceSum", [src], ["loss"], name="sum",
                            keepdims=0)]

    # ln1.weight = Identity(ln0.weight), as torch.onnx.export de-duplicates
    # equal initializers.
    save(outdir, "identity_alias", [
        h.make_node("Identity", ["ln0.weight"], ["ln1.weight"],
                    name="alias"),
        h.make_node("Mul", ["x", "ln0.weight"], ["a"], name="scale0"),
        h.make_node("Mul", ["a", "ln1.weight"], ["b"], name="scale1"),
    ] + scalar_loss("b"), [vi("x", TP.FLOAT, [4, 8])],
       [vi("loss", TP.FLOAT, [])], [value("ln0.weight", 8)])

    # A causal-mask buffer (float, like PyTorch's registered tril) reaches
    # the loss only through Equal -> Where's condition, also through an
    # Identity alias; an integer table feeds Gather's indices.
    mask = nh.from_array(np.tril(np.ones((4, 4), np.float32)), "mask")
    save(outdir, "buffer_mask", [
        h.make_node("Identity", ["mask"], ["mask1"], name="alias"),
        h.make_node("Equal", ["mask1", "zero"], ["masked"], name="eq"),
        h.make_node("MatMul", ["x", "w"], ["s"], name="scores"),
        h.make_node("Where", ["masked", "ninf", "s"], ["m"], name="fill"),
        h.make_node("Gather", ["m", "order"], ["g"], name="rows", axis=0),
    ] + scalar_loss("g"), [vi("x", TP.FLOAT, [4, 8])],
       [vi("loss", TP.FLOAT, [])],
       [mask, value("w", 8, 4),
        nh.from_array(np.array(0.0, np.float32), "zero"),
        nh.from_array(np.array(-1e4, np.float32), "ninf"),
        ints("order", [3, 2, 1, 0])])

    # One weight used directly by two nodes (a tied embedding and head).
    save(outdir, "tied_direct", [
        h.make_node("MatMul", ["x", "w"], ["h0"], name="embed"),
        h.make_node("Tanh", ["h0"], ["h1"], name="act"),
        h.make_node("Tanh", ["h1"], ["h2"], name="act2"),
        h.make_node("Gemm", ["h2", "w"], ["out"], name="head", transB=1),
    ] + scalar_loss("out"), [vi("x", TP.FLOAT, [4, 8])],
       [vi("loss", TP.FLOAT, [])], [value("w", 8, 8)])


if __name__ == "__main__":
    main()

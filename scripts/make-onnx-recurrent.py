#!/usr/bin/env python3
"""make-onnx-recurrent.py [--out DIR]: ONNX LSTM, GRU and RNN fixtures for
the importer tests (test/Import/Onnx/recurrent*.test).

The test suite needs neither this script nor onnx.reference. The committed
files in test/Import/Onnx/Inputs/recurrent were produced with onnx 1.23.2
(onnx.reference needs onnx >= 1.13; Debian 12's python3-onnx is older):

    pip install numpy onnx
    python3 scripts/make-onnx-recurrent.py

It writes, to DIR (default test/Import/Onnx/Inputs/recurrent):

  reference.onnx     one graph (opset 14) of eight independent recurrent
                     nodes covering what the importer unrolls: LSTM with
                     peepholes and initial states, reverse, bidirectional,
                     layout 1; GRU with linear_before_reset 0 and 1,
                     bidirectional; RNN reverse. Random weights are
                     initializers, X and the initial states data inputs
                     (CASE-X.npy, CASE-initial_h.npy, ...);
  reference-want-OUTPUT.npy  what onnx.reference computes for every output
                     (CASE-Y, CASE-Y_h, CASE-Y_c);
  ERROR.onnx         one-node models (opset 17) the importer rejects: clip,
                     non-default activations, input_forget, sequence_lens
                     with varying lengths and as a data input.
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def vinfo(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inputs, self.outputs, self.inits = [], [], [], []
        self.data = {}

    def uniform(self, scale, shape):
        return self.rng.uniform(-scale, scale, shape).astype(np.float32)

    def add(self, name, op, seq, batch, inp, hidden, attrs, bias=True,
            h0=False, c0=False, peep=False, layout=0):
        """A recurrent node NAME with random weights; its data inputs and
        outputs are prefixed with NAME-."""
        dirs = 2 if attrs.get("direction") == "bidirectional" else 1
        g = GATES[op]
        xs = [batch, seq, inp] if layout else [seq, batch, inp]
        hs = [batch, dirs, hidden] if layout else [dirs, batch, hidden]

        def init(key, shape):
            self.inits.append(numpy_helper.from_array(
                self.uniform(0.5, shape), name + "-" + key))
            return name + "-" + key

        def data(key, shape):
            self.data[name + "-" + key] = self.uniform(1.0, shape)
            self.inputs.append(vinfo(name + "-" + key, shape))
            return name + "-" + key

        ins = [data("X", xs), init("W", [dirs, g * hidden, inp]),
               init("R", [dirs, g * hidden, hidden]),
               init("B", [dirs, 2 * g * hidden]) if bias else "", "",
               data("initial_h", hs) if h0 else ""]
        if op == "LSTM":
            ins += [data("initial_c", hs) if c0 else "",
                    init("P", [dirs, 3 * hidden]) if peep else ""]
        while ins[-1] == "":
            ins.pop()
        outs = [name + "-" + o for o in ("Y", "Y_h", "Y_c")[:g == 4 and 3 or 2]]
        self.nodes.append(helper.make_node(op, ins, outs, name=name,
                                           hidden_size=hidden, layout=layout,
                                           **attrs))
        self.outputs += [helper.make_tensor_value_info(o, TensorProto.FLOAT,
                                                       None) for o in outs]

    def model(self, name, opset):
        graph = helper.make_graph(self.nodes, name, self.inputs, self.outputs,
                                  self.inits)
        model = helper.make_model(graph, producer_name="make-onnx-recurrent",
                                  opset_imports=[helper.make_opsetid("",
                                                                     opset)])
        model.ir_version = 8
        return model


def reference(out):
    g = Graph(1)
    g.add("lstm_peep", "LSTM", 4, 4, 5, 3, {}, h0=True, c0=True, peep=True)
    g.add("lstm_rev", "LSTM", 4, 4, 5, 3, {"direction": "reverse"}, h0=True)
    g.add("lstm_bi", "LSTM", 4, 4, 5, 3, {"direction": "bidirectional"},
          c0=True)
    g.add("lstm_bf", "LSTM", 4, 4, 5, 3, {}, h0=True, c0=True, layout=1)
    g.add("gru_lbr0", "GRU", 4, 4, 5, 3, {}, h0=True)
    g.add("gru_lbr1", "GRU", 4, 4, 5, 3, {"linear_before_reset": 1},
          h0=True)
    g.add("gru_bi", "GRU", 4, 4, 5, 3,
          {"direction": "bidirectional", "linear_before_reset": 1},
          bias=False)
    g.add("rnn_rev", "RNN", 4, 4, 5, 3, {"direction": "reverse"}, h0=True)
    results = ReferenceEvaluator(g.model("reference", 14)).run(None, g.data)
    g.outputs = [vinfo(o.name, list(r.shape))
                 for o, r in zip(g.outputs, results)]
    model = g.model("reference", 14)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out, "reference.onnx"))
    for key, value in g.data.items():
        np.save(os.path.join(out, key + ".npy"), value)
    for info, value in zip(g.outputs, results):
        np.save(os.path.join(out, "reference-want-%s.npy" % info.name),
                value.astype(np.float32))


def errors(out):
    def one(name, attrs, seq_lens=None, seq_lens_data=False):
        g = Graph(2)
        g.add("lstm", "LSTM", 5, 2, 3, 4, attrs)
        node = g.nodes[0]
        if seq_lens is not None:
            while len(node.input) < 4:
                node.input.append("")
            node.input.insert(4, "lens")
            if seq_lens_data:
                g.inputs.append(vinfo("lens", [2], TensorProto.INT32))
            else:
                g.inits.append(numpy_helper.from_array(
                    np.array(seq_lens, dtype=np.int32), "lens"))
        g.outputs = [vinfo("lstm-Y", [5, 1, 2, 4]), vinfo("lstm-Y_h", [1, 2, 4]),
                     vinfo("lstm-Y_c", [1, 2, 4])]
        model = g.model(name, 17)
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, os.path.join(out, name + ".onnx"))

    one("lstm-clip", {"clip": 3.0})
    one("lstm-activations", {"activations": ["Sigmoid", "Relu", "Tanh"]})
    one("lstm-input-forget", {"input_forget": 1})
    one("lstm-seq-lens", {}, seq_lens=[5, 3])
    one("lstm-seq-lens-data", {}, seq_lens=[5, 5], seq_lens_data=True)
    one("lstm-seq-lens-full", {}, seq_lens=[5, 5])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(
        ROOT, "test", "Import", "Onnx", "Inputs", "recurrent"))
    opts = ap.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    reference(opts.out)
    errors(opts.out)


if __name__ == "__main__":
    main()

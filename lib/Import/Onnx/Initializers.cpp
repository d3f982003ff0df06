//===- Initializers.cpp - Which ONNX initializers are parameters ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Initializers.h"

#include <map>
#include <vector>

using namespace pipewave::onnximport;

namespace {

/// Ops none of whose results has a gradient.
bool hasNoGradient(const onnx::NodeProto &node) {
  static const std::set<std::string> ops = {"Equal",
                                            "Greater",
                                            "GreaterOrEqual",
                                            "Less",
                                            "LessOrEqual",
                                            "Not",
                                            "And",
                                            "Or",
                                            "Xor",
                                            "Shape",
                                            "Size",
                                            "ArgMax",
                                            "ArgMin",
                                            "IsNaN",
                                            "IsInf",
                                            "NonZero",
                                            "ConstantOfShape",
                                            "Range",
                                            "OneHot",
                                            "EyeLike"};
  if (ops.count(node.op_type()))
    return true;
  if (node.op_type() != "Cast")
    return false;
  for (const auto &attr : node.attribute())
    if (attr.name() == "to")
      return attr.i() != onnx::TensorProto::FLOAT &&
             attr.i() != onnx::TensorProto::DOUBLE &&
             attr.i() != onnx::TensorProto::FLOAT16 &&
             attr.i() != onnx::TensorProto::BFLOAT16;
  return false;
}

/// Whether input `index` of `node` is a shape, index, label or condition
/// operand, through which no gradient flows.
bool isNonDifferentiableInput(const onnx::NodeProto &node, int index) {
  static const std::map<std::string, std::vector<int>> inputs = {
      {"Where", {0}},
      {"Gather", {1}},
      {"GatherElements", {1}},
      {"GatherND", {1}},
      {"Reshape", {1}},
      {"Expand", {1}},
      {"Tile", {1}},
      {"Slice", {1, 2, 3, 4}},
      {"Unsqueeze", {1}},
      {"Squeeze", {1}},
      {"Split", {1}},
      {"ReduceSum", {1}},
      {"ReduceMean", {1}},
      {"ReduceMax", {1}},
      {"ReduceMin", {1}},
      {"ReduceProd", {1}},
      {"Pad", {1, 3}},
      {"Dropout", {1, 2}},
      {"BatchNormalization", {3, 4}},
      {"SoftmaxCrossEntropyLoss", {1}},
      {"NegativeLogLikelihoodLoss", {1}},
      {"TopK", {1}},
      {"Trilu", {1}},
      {"CumSum", {1}},
      {"ScatterElements", {1}},
      {"ScatterND", {1}},
      {"Resize", {1, 2, 3}},
  };
  auto it = inputs.find(node.op_type());
  if (it == inputs.end())
    return false;
  for (int k : it->second)
    if (k == index)
      return true;
  return false;
}

} // namespace

void pipewave::onnximport::untieIdentityAliases(onnx::GraphProto &graph) {
  std::map<std::string, int> initializer;
  for (int i = 0; i < graph.initializer_size(); ++i)
    initializer[graph.initializer(i).name()] = i;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (const onnx::NodeProto &node : graph.node()) {
    auto it = node.op_type() == "Identity" && node.input_size() == 1 &&
                      node.output_size() == 1 && node.domain().empty()
                  ? initializer.find(node.input(0))
                  : initializer.end();
    if (it == initializer.end() || initializer.count(node.output(0))) {
      *kept.Add() = node;
      continue;
    }
    onnx::TensorProto copy = graph.initializer(it->second);
    copy.set_name(node.output(0));
    initializer[copy.name()] = graph.initializer_size();
    *graph.add_initializer() = std::move(copy);
  }
  graph.mutable_node()->Swap(&kept);
}

std::set<std::string>
pipewave::onnximport::differentiableValues(const onnx::GraphProto &graph) {
  std::set<std::string> marked;
  for (const auto &out : graph.output())
    marked.insert(out.name());
  // Graph order is topological: one reverse walk reaches every ancestor.
  for (int n = graph.node_size() - 1; n >= 0; --n) {
    const onnx::NodeProto &node = graph.node(n);
    if (hasNoGradient(node))
      continue;
    bool needed = false;
    for (const std::string &out : node.output())
      needed |= marked.count(out) > 0;
    if (!needed)
      continue;
    for (int k = 0; k < node.input_size(); ++k)
      if (!node.input(k).empty() && !isNonDifferentiableInput(node, k))
        marked.insert(node.input(k));
  }
  return marked;
}

std::set<std::string>
pipewave::onnximport::usedValues(const onnx::GraphProto &graph) {
  std::set<std::string> used;
  for (const auto &node : graph.node())
    for (const std::string &in : node.input())
      used.insert(in);
  for (const auto &out : graph.output())
    used.insert(out.name());
  return used;
}

std::set<std::string>
pipewave::onnximport::runningStatistics(const onnx::GraphProto &graph) {
  std::set<std::string> state;
  for (const auto &node : graph.node()) {
    if (node.op_type() != "BatchNormalization" || node.input_size() < 5)
      continue;
    bool training = false;
    for (const auto &attr : node.attribute())
      if (attr.name() == "training_mode")
        training = attr.i() != 0;
    if (training) {
      state.insert(node.input(3));
      state.insert(node.input(4));
    }
  }
  return state;
}

//===- Initializers.h - Which ONNX initializers are parameters --*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Exporters de-duplicate initializers and keep buffers as initializers;
// these rules decide, before the nodes are imported, which initializers
// become trained parameters and which compile-time constants (docs/onnx.md,
// "Parameters and constants").
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_IMPORT_ONNX_INITIALIZERS_H
#define PIPEWAVE_LIB_IMPORT_ONNX_INITIALIZERS_H

#include <onnx/onnx_pb.h> // defines ONNX_API, includes onnx-ml.pb.h

#include <set>
#include <string>

namespace pipewave::onnximport {

/// Replaces every `Identity` node whose input is an initializer by a new
/// initializer named after its output, holding a copy of the input's value:
/// each alias becomes a tensor of its own (PyTorch's exporter aliases
/// parameters with equal values through Identity).
void untieIdentityAliases(onnx::GraphProto &graph);

/// The names of the values a graph output depends on differentiably:
/// walking back from the outputs through every node input except the
/// non-differentiable ones (comparison and logic results, casts to integer
/// or bool, shape, index and label operands).
std::set<std::string> differentiableValues(const onnx::GraphProto &graph);

/// The names of the values some node reads.
std::set<std::string> usedValues(const onnx::GraphProto &graph);

/// The running mean and variance inputs of the BatchNormalization nodes in
/// training mode: runtime-owned state that the forward updates.
std::set<std::string> runningStatistics(const onnx::GraphProto &graph);

} // namespace pipewave::onnximport

#endif // PIPEWAVE_LIB_IMPORT_ONNX_INITIALIZERS_H

//===- ShapeInference.h - libonnx shape inference, guarded ------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_IMPORT_ONNX_SHAPEINFERENCE_H
#define PIPEWAVE_LIB_IMPORT_ONNX_SHAPEINFERENCE_H

namespace onnx {
class ModelProto;
} // namespace onnx

namespace pipewave::onnximport {

/// Runs libonnx's shape inference on `model` in place, with the input checks
/// its convolution and pooling inference lacks: libonnx indexes the spatial
/// dimensions of the data input by the weight's (or the attributes') rank
/// without checking them, and reads out of bounds on a malformed model. A
/// data input of rank below 3, or a weight whose rank differs from the
/// input's, throws `onnx::InferenceError` like libonnx's own checks.
void inferShapes(onnx::ModelProto &model);

} // namespace pipewave::onnximport

#endif // PIPEWAVE_LIB_IMPORT_ONNX_SHAPEINFERENCE_H

//===- ShapeInference.cpp - libonnx shape inference, guarded --------------===//
//
// Part of the pipewave project.
//
// libonnx's shape inference for Conv and the pools (convPoolShapeInference)
// takes the kernel's spatial rank from the weight or the attributes and reads
// that many spatial dimensions of the data input without checking the input
// has them: a model whose Conv input is of rank 2 with a 4-D weight makes it
// read through a null pointer. The registry below hands shape inference
// copies of those schemas whose inference function checks the ranks first.
//
//===----------------------------------------------------------------------===//

#include "ShapeInference.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/shape_inference/implementation.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>

using namespace pipewave::onnximport;

namespace {

/// How a guarded op's inputs are laid out: its name, and the index of its
/// weight input (or -1 for the pools).
struct GuardedOp {
  const char *name;
  int weightIndex;
};

constexpr GuardedOp guardedOps[] = {
    {"Conv", 1},          {"ConvTranspose", 1},      {"ConvInteger", 1},
    {"QLinearConv", 3},   {"MaxPool", -1},           {"AveragePool", -1},
    {"LpPool", -1},       {"GlobalAveragePool", -1}, {"GlobalMaxPool", -1},
    {"GlobalLpPool", -1}, {"MaxUnpool", -1},
};

const GuardedOp *findGuarded(const std::string &name,
                             const std::string &domain) {
  if (!domain.empty() && domain != "ai.onnx")
    return nullptr;
  for (const GuardedOp &op : guardedOps)
    if (name == op.name)
      return &op;
  return nullptr;
}

/// The rank of input `i` where its shape is known, else -1.
int inputRank(onnx::InferenceContext &ctx, int i) {
  if (i < 0 || static_cast<size_t>(i) >= ctx.getNumInputs())
    return -1;
  const onnx::TypeProto *type = ctx.getInputType(i);
  if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape())
    return -1;
  return type->tensor_type().shape().dim_size();
}

void checkRanks(onnx::InferenceContext &ctx, const GuardedOp &op) {
  int rank = inputRank(ctx, 0);
  if (rank >= 0 && rank < 3)
    fail_shape_inference(op.name,
                         " needs a data input of rank 3 or more (batch, "
                         "channels, spatial dimensions), got rank ",
                         rank);
  if (op.weightIndex < 0)
    return;
  // Shape inference reads the weight's type unconditionally.
  if (static_cast<size_t>(op.weightIndex) < ctx.getNumInputs() &&
      !ctx.getInputType(op.weightIndex))
    fail_shape_inference(op.name, " has a weight input of unknown type");
  int weightRank = inputRank(ctx, op.weightIndex);
  if (rank >= 0 && weightRank >= 0 && weightRank != rank)
    fail_shape_inference(op.name, " needs a weight of the data input's rank ",
                         rank, ", got rank ", weightRank);
}

/// The default registry, except that guarded ops come with the checks above
/// ahead of libonnx's inference.
class GuardedRegistry final : public onnx::ISchemaRegistry {
public:
  const onnx::OpSchema *GetSchema(const std::string &key,
                                  const int maxInclusiveVersion,
                                  const std::string &domain) const override {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(key, maxInclusiveVersion, domain);
    const GuardedOp *op = schema ? findGuarded(key, domain) : nullptr;
    if (!op)
      return schema;
    std::unique_ptr<onnx::OpSchema> &copy = copies[schema];
    if (!copy) {
      copy = std::make_unique<onnx::OpSchema>(*schema);
      onnx::InferenceFunction infer =
          schema->GetTypeAndShapeInferenceFunction();
      copy->TypeAndShapeInferenceFunction(
          [infer, op](onnx::InferenceContext &ctx) {
            checkRanks(ctx, *op);
            infer(ctx);
          });
    }
    return copy.get();
  }

private:
  mutable std::map<const onnx::OpSchema *, std::unique_ptr<onnx::OpSchema>>
      copies;
};

} // namespace

void pipewave::onnximport::inferShapes(onnx::ModelProto &model) {
  GuardedRegistry registry;
  onnx::shape_inference::InferShapes(model, &registry);
}

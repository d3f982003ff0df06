//===- Dropout.cpp - ONNX Dropout to TOSA and pipe.dropout ----------------===//
//
// Part of the pipewave project.
//
// Inference Dropout (no training_mode, or training_mode false, or ratio 0)
// is the identity with an all-true mask. Training-mode Dropout (what
// torch.onnx.export writes with TrainingMode.TRAINING) becomes
// pipe.dropout: a mask from a counter-based generator keyed by the step
// counter input (`dropout.counter`, marked pipe.counter, added to the entry
// once), the node's position among the model's Dropouts (its stream) and
// the element's index in the step. The node's `seed` attribute is not used:
// masks follow pipewave-run's --seed.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "pipewave/Dialect/Pipe/IR/Pipe.h"

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

/// The identity with an all-true mask (output 1).
LogicalResult importInferenceDropout(Importer &im, const Node &n) {
  if (auto c = im.constInput(n, 0)) {
    im.setConstOutput(n, 0, *c);
    if (n.output_size() > 1)
      im.setConstOutput(
          n, 1,
          DenseElementsAttr::get(
              im.tensor(c->getType().getShape(), im.b.getI1Type()), true));
    return success();
  }
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  im.setOutput(n, 0, a);
  if (n.output_size() > 1 && !n.output(1).empty())
    im.setConstOutput(
        n, 1,
        DenseElementsAttr::get(im.tensor(Importer::shape(a), im.b.getI1Type()),
                               true));
  return success();
}

LogicalResult importDropout(Importer &im, const Node &n) {
  // training_mode (input 2): absent means inference.
  if (!im.hasInput(n, 2))
    return importInferenceDropout(im, n);
  auto training = im.constInts(n, 2);
  if (!training || training->size() != 1)
    return im.error("training_mode must be a constant scalar (whether "
                    "dropout is on is decided at import)");
  if (!(*training)[0])
    return importInferenceDropout(im, n);

  // ratio (input 1): 0.5 when absent.
  double ratio = 0.5;
  if (im.hasInput(n, 1)) {
    auto r = im.constInput(n, 1);
    if (!r || !isa<FloatType>(r->getElementType()) || r->getNumElements() != 1)
      return im.error("ratio must be a constant float scalar");
    ratio = (*r->getValues<APFloat>().begin()).convertToDouble();
  }
  if (!(ratio >= 0.0 && ratio < 1.0))
    return im.error("ratio " + std::to_string(ratio) + " is not in [0, 1)");
  if (ratio == 0.0)
    return importInferenceDropout(im, n);

  Value x = im.input(n, 0);
  if (!x)
    return failure();
  if (!isa<FloatType>(Importer::elem(x)))
    return im.error("only floating-point inputs are supported");
  Value counter = im.stepCounter();
  if (!counter)
    return failure();
  Value y = pipewave::pipe::DropoutOp::create(
      im.b, im.loc, x.getType(), x, counter, im.b.getF64FloatAttr(ratio),
      im.b.getI64IntegerAttr(im.dropouts++));
  im.setOutput(n, 0, y);
  if (n.output_size() > 1 && !n.output(1).empty()) {
    // The mask: where the same dropout of ones is non-zero.
    Value ones = im.splat(1.0, Importer::elem(x), Importer::shape(x));
    Value kept = pipewave::pipe::DropoutOp::create(
        im.b, im.loc, ones.getType(), ones, counter,
        im.b.getF64FloatAttr(ratio), im.b.getI64IntegerAttr(im.dropouts - 1));
    Value zero =
        im.scalarLike(0.0, Importer::elem(x), Importer::type(x).getRank());
    im.setOutput(n, 1,
                 im.binary<tosa::GreaterOp>(kept, zero, im.b.getI1Type()));
  }
  return success();
}

} // namespace

Value Importer::stepCounter() {
  if (counter)
    return counter;
  if (batchRows <= 0) {
    (void)error("training-mode Dropout needs a data input (the batch on "
                "dimension 0) to key its masks by sample; the model has "
                "none");
    return {};
  }
  unsigned index = entry.getNumArguments();
  if (failed(entry.insertArgument(index, tensor({batchRows, 3}, b.getI64Type()),
                                  {}, entry.getLoc())))
    return {};
  pipewave::pipe::setNameArgAttr(entry, index,
                                 b.getStringAttr("dropout.counter"));
  pipewave::pipe::setCounterArgAttr(entry, index);
  counter = entry.getArgument(index);
  return counter;
}

void pipewave::onnximport::populateDropoutOps(OpTable &t) {
  t["Dropout"] = importDropout;
}

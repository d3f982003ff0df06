//===- Importer.cpp - ONNX model to TOSA importer -------------------------===//
//
// Part of the pipewave project.
//
// Loads and checks the model with libonnx, maps initializers to `pipe.param`
// arguments (their values go to a safetensors file), graph inputs to data
// arguments and dispatches every node to its op-family importer.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Import/OnnxImporter.h"

#include "Initializers.h"
#include "OnnxOps.h"
#include "ShapeInference.h"
#include "TensorData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <exception>
#include <fstream>
#include <set>

using namespace mlir;
using namespace pipewave;
using namespace pipewave::onnximport;

//===----------------------------------------------------------------------===//
// Model import
//===----------------------------------------------------------------------===//

namespace {
int64_t defaultOpset(const onnx::ModelProto &m) {
  for (const auto &imp : m.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      return imp.version();
  return 0;
}

OpTable &opTable() {
  static OpTable table = [] {
    OpTable t;
    populateElementwiseOps(t);
    populateMatMulOps(t);
    populateReductionOps(t);
    populateShapeOps(t);
    populateNNOps(t);
    populateBatchNormOps(t);
    populateRecurrentOps(t);
    populateDropoutOps(t);
    return t;
  }();
  return table;
}
} // namespace

std::vector<std::string> pipewave::supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto &entry : opTable())
    ops.push_back(entry.getKey().str());
  llvm::sort(ops);
  return ops;
}

OwningOpRef<ModuleOp>
pipewave::importOnnxModel(const std::string &path, MLIRContext &context,
                          const OnnxImportOptions &options,
                          std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path + "': " + buffer.getError().message();
    return {};
  }
  return importOnnxModelFromBuffer((*buffer)->getBufferStart(),
                                   (*buffer)->getBufferSize(), path, context,
                                   options, error);
}

/// Erases the ops whose results nothing uses. Exporters compute shapes with
/// ops whose values only feed `Shape` (PyTorch's broadcast_tensors in
/// F.mse_loss adds a ConstantOfShape to both operands); `Shape` folds to a
/// constant, which leaves those ops dead, and a dead op that mixes a
/// batch-sized constant with data would still stop pipe-microbatch.
static void eraseDeadOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

OwningOpRef<ModuleOp> pipewave::importOnnxModelFromBuffer(
    const char *data, size_t size, const std::string &path,
    MLIRContext &context, const OnnxImportOptions &options,
    std::string &error) {
  auto fail = [&](const Twine &msg) -> OwningOpRef<ModuleOp> {
    error = msg.str();
    return {};
  };
  onnx::ModelProto model;
  if (size > (size_t)INT32_MAX || !model.ParseFromArray(data, (int)size) ||
      !model.has_graph() || model.opset_import_size() == 0)
    return fail("'" + path +
                "' is not a valid ONNX model (truncated or corrupt file)");
  std::string modelDir = llvm::sys::path::parent_path(path).str();
  if (modelDir.empty())
    modelDir = ".";
  std::string fileName = llvm::sys::path::filename(path).str();

  // External data must stay inside the model's folder. The checker looks
  // external files up relative to the working directory: it checks a copy
  // whose locations are the resolved paths.
  onnx::ModelProto withPaths;
  bool external = false;
  for (const auto &t : model.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    std::string resolved, err;
    if (!externalDataPath(t, modelDir, resolved, err))
      return fail(err);
    external = true;
  }
  if (external) {
    withPaths = model;
    for (auto &t : *withPaths.mutable_graph()->mutable_initializer())
      if (t.data_location() == onnx::TensorProto::EXTERNAL) {
        std::string resolved, err;
        (void)externalDataPath(t, modelDir, resolved, err);
        for (auto &kv : *t.mutable_external_data())
          if (kv.key() == "location")
            kv.set_value(resolved);
      }
  }

  // Check, convert old opsets to 13 and infer shapes. libonnx reports errors
  // with exceptions.
  auto firstLine = [](const char *what) {
    return StringRef(what).split('\n').first.str();
  };
  try {
    onnx::checker::check_model(external ? withPaths : model);
  } catch (const std::exception &e) {
    return fail("'" + path +
                "' fails the ONNX checker: " + firstLine(e.what()));
  } catch (...) {
    return fail("'" + path + "' fails the ONNX checker");
  }
  // Before libonnx's converter and shape inference see the graph (they
  // trust it): every op must be one the importer maps and every graph output
  // must be defined.
  {
    const onnx::GraphProto &g = model.graph();
    std::set<std::string> defined;
    for (const auto &in : g.input())
      defined.insert(in.name());
    for (const auto &t : g.initializer())
      defined.insert(t.name());
    for (auto [idx, node] : llvm::enumerate(g.node())) {
      std::string nodeName = node.name().empty()
                                 ? node.op_type() + "_" + std::to_string(idx)
                                 : node.name();
      bool otherDomain = !node.domain().empty() && node.domain() != "ai.onnx";
      if (otherDomain || !opTable().count(node.op_type()))
        return fail("unsupported op '" +
                    (otherDomain ? node.domain() + "." : std::string()) +
                    node.op_type() + "' (node '" + nodeName + "', opset " +
                    Twine(defaultOpset(model)) + ")");
      for (const std::string &out : node.output())
        defined.insert(out);
    }
    for (const auto &out : g.output())
      if (!defined.count(out.name()))
        return fail("graph output '" + out.name() +
                    "' is not produced by any node");
  }
  if (defaultOpset(model) < 13) {
    try {
      onnx::ModelProto converted =
          onnx::version_conversion::ConvertVersion(model, 13);
      model = std::move(converted);
    } catch (...) {
      // Keep the original opset; the node importers handle both forms.
    }
  }
  try {
    inferShapes(model);
  } catch (const std::exception &e) {
    return fail("ONNX shape inference failed: " + firstLine(e.what()));
  } catch (...) {
    return fail("ONNX shape inference failed");
  }

  // Aliases of de-duplicated initializers become tensors of their own (an
  // initializer only its aliases read still counts as read).
  std::set<std::string> used = usedValues(model.graph());
  if (!options.keepIdentityTies)
    untieIdentityAliases(*model.mutable_graph());

  context
      .loadDialect<func::FuncDialect, tosa::TosaDialect, pipe::PipeDialect>();
  OpBuilder b(&context);
  Location fileLoc = FileLineColLoc::get(&context, fileName, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  Importer im(&context, b);
  im.opset = defaultOpset(model);
  const onnx::GraphProto &g = model.graph();

  // Initializers: float tensors of rank >= 1 that an output depends on
  // differentiably (or that nothing reads) are parameters, the rest are
  // compile-time constants.
  std::map<std::string, const onnx::TensorProto *> inits;
  for (const auto &t : g.initializer())
    inits[t.name()] = &t;
  std::set<std::string> differentiable = differentiableValues(g);
  std::set<std::string> state = runningStatistics(g);
  std::vector<Param> params;
  for (const auto &t : g.initializer()) {
    std::string bytes, err;
    if (!tensorBytes(t, modelDir, bytes, err))
      return fail(err);
    if (!convertElementType(&context, t.data_type()))
      return fail("initializer '" + t.name() + "' has an unsupported type");
    bool isFloat =
        llvm::isa<FloatType>(convertElementType(&context, t.data_type()));
    bool isState = state.count(t.name()) > 0;
    bool trainable = differentiable.count(t.name()) || !used.count(t.name());
    if (isFloat && t.dims_size() > 0 && (trainable || isState)) {
      params.push_back(
          Param{t.name(), t.data_type(),
                SmallVector<int64_t>(t.dims().begin(), t.dims().end()),
                std::move(bytes), isState});
    } else {
      im.constants[t.name()] = toAttr(&context, t, bytes);
    }
  }

  // Data inputs (graph inputs that are not initializers).
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<bool> argIsParam, argIsState;
  for (const auto &in : g.input()) {
    if (inits.count(in.name()))
      continue;
    if (!in.type().has_tensor_type())
      return fail("input '" + in.name() + "' is not a tensor");
    const auto &tt = in.type().tensor_type();
    Type e = convertElementType(&context, tt.elem_type());
    if (!e)
      return fail("input '" + in.name() + "' has an unsupported element type");
    SmallVector<int64_t> dims;
    for (auto [i, d] : llvm::enumerate(tt.shape().dim())) {
      if (d.has_dim_value() && d.dim_value() == 0) {
        return fail("input '" + in.name() + "' is empty (dimension " +
                    Twine(i) + " is 0); empty tensors are not supported");
      } else if (d.has_dim_value() && d.dim_value() > 0) {
        dims.push_back(d.dim_value());
      } else if (i == 0 && options.batchSize > 0) {
        dims.push_back(options.batchSize);
      } else {
        std::string sym = d.has_dim_param() ? " ('" + d.dim_param() + "')" : "";
        if (i == 0)
          return fail("input '" + in.name() + "' has a dynamic dimension 0" +
                      sym + "; pass --batch-size N to fix it");
        return fail("input '" + in.name() + "' has a dynamic dimension " +
                    Twine(i) + sym +
                    " that cannot be resolved (only the batch dimension 0 "
                    "can be fixed with --batch-size N)");
      }
    }
    argTypes.push_back(RankedTensorType::get(dims, e));
    argNames.push_back(in.name());
    argIsParam.push_back(false);
    argIsState.push_back(false);
  }
  for (const Param &p : params) {
    argTypes.push_back(
        RankedTensorType::get(p.dims, convertElementType(&context, p.dtype)));
    argNames.push_back(p.name);
    argIsParam.push_back(true);
    argIsState.push_back(p.state);
  }

  b.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    pipe::setNameArgAttr(func, i, b.getStringAttr(name));
    if (argIsParam[i])
      pipe::setParamArgAttr(func, i);
    if (argIsState[i])
      pipe::setFrozenArgAttr(func, i);
    im.values[name] = entry->getArgument(i);
    auto type = llvm::cast<RankedTensorType>(argTypes[i]);
    if (!argIsParam[i] && im.batchRows == 0 && type.getRank() > 0)
      im.batchRows = type.getDimSize(0);
  }
  im.entry = func;
  b.setInsertionPointToEnd(entry);

  // Nodes, in (topological) graph order.
  OpTable &table = opTable();
  for (auto [idx, node] : llvm::enumerate(g.node())) {
    std::string nodeName = node.name().empty()
                               ? node.op_type() + "_" + std::to_string(idx)
                               : node.name();
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return fail("unsupported op '" + node.domain() + "." + node.op_type() +
                  "' (node '" + nodeName + "', opset " + Twine(im.opset) + ")");
    auto it = table.find(node.op_type());
    if (it == table.end())
      return fail("unsupported op '" + node.op_type() + "' (node '" + nodeName +
                  "', opset " + Twine(im.opset) + ")");
    im.loc = NameLoc::get(b.getStringAttr(nodeName + ":" + node.op_type()),
                          FileLineColLoc::get(&context, fileName, idx + 1, 0));
    if (failed(it->second(im, node)) || !im.errorText.empty())
      return fail(
          fileName + ": node '" + nodeName + "' (" + node.op_type() +
          ", opset " + Twine(im.opset) + "): " +
          (im.errorText.empty() ? std::string("cannot import") : im.errorText));
    for (const std::string &out : node.output()) {
      if (!out.empty() && !im.values.count(out) && !im.constants.count(out))
        return fail(fileName + ": node '" + nodeName + "' (" + node.op_type() +
                    "): output '" + out + "' not produced");
      auto v = im.values.find(out);
      if (v != im.values.end() &&
          Importer::type(v->second).getNumElements() == 0)
        return fail(fileName + ": node '" + nodeName + "' (" + node.op_type() +
                    ", opset " + Twine(im.opset) +
                    "): empty tensors are not supported (output '" + out +
                    "' has a zero-size dimension)");
    }
  }

  // Results; a single scalar float output (the loss) goes first.
  im.loc = fileLoc;
  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  for (const auto &out : g.output()) {
    Node fake;
    fake.add_input(out.name());
    Value v = im.input(fake, 0);
    if (!v)
      return fail(
          "graph output '" + out.name() + "': " +
          (im.errorText.empty() ? std::string("not defined") : im.errorText));
    // An output that is an input or a constant gets an operation of its own
    // (a graph of only those still compiles to something that runs).
    if (llvm::isa<BlockArgument>(v) || v.getDefiningOp<tosa::ConstOp>())
      v = tosa::IdentityOp::create(b, fileLoc, v.getType(), v);
    results.push_back(v);
    resultNames.push_back(out.name());
  }
  auto isLoss = [](Value v) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    return t.getRank() == 0 && llvm::isa<FloatType>(t.getElementType());
  };
  if (llvm::count_if(results, isLoss) == 1) {
    auto it = llvm::find_if(results, isLoss);
    size_t at = it - results.begin();
    std::rotate(results.begin(), it, it + 1);
    std::rotate(resultNames.begin(), resultNames.begin() + at,
                resultNames.begin() + at + 1);
  }
  func::ReturnOp::create(b, fileLoc, results);
  // (A training-mode Dropout may have added the step counter argument.)
  func.setType(b.getFunctionType(func.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  // Results are named after the graph outputs (the runtime's --out files).
  for (auto [i, name] : llvm::enumerate(resultNames))
    pipe::setNameResultAttr(func, i, b.getStringAttr(name));

  eraseDeadOps(func);

  if (failed(verify(*module)))
    return fail("the imported module does not verify (importer bug)");

  if (!options.weightsPath.empty()) {
    std::string err;
    if (!writeSafetensors(options.weightsPath, params, err))
      return fail(err);
  }
  return module;
}

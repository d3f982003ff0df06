//===- Importer.cpp - JAX StableHLO module to pipewave TOSA ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Parses the module with pipewave's stablehlo/chlo dialects, inlines JAX's
// private helpers, converts to TOSA (`stablehlo-to-tosa`) and marks the
// entry function for pipewave: argument names (from --arg-names, else JAX's
// `loc("params['w']")` locations), parameters (`pipe.param`), result names,
// the scalar loss first. JAX's own attributes (`mhlo.*`, `jax.*`) are
// dropped; sharding annotations are refused.
//
//===----------------------------------------------------------------------===//

#include "Params.h"

#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"
#include "pipewave/Import/StableHLOImporter.h"
#include "pipewave/Support/NestingDepth.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace pipewave;

namespace {

/// Marks argument `i` of `func` for pipewave: its name and whether it is a
/// trainable parameter.
void markArgument(func::FuncOp func, unsigned i, StringRef name, bool isParam) {
  pipe::setNameArgAttr(func, i, StringAttr::get(func.getContext(), name));
  if (isParam)
    pipe::setParamArgAttr(func, i);
}

/// The name of a result of the entry function.
void markResult(func::FuncOp func, unsigned i, StringRef name) {
  pipe::setNameResultAttr(func, i, StringAttr::get(func.getContext(), name));
}

/// JAX's key path `params['blocks'][0]['wq']` as `params.blocks.0.wq`.
std::string normalizeName(StringRef jaxName) {
  std::string out;
  for (char c : jaxName) {
    if (c == '[')
      out += '.';
    else if (c != ']' && c != '\'' && c != '"')
      out += c;
  }
  return out;
}

/// The name JAX gave argument `arg` (its NameLoc), or "".
std::string locationName(BlockArgument arg) {
  Location loc = arg.getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (isa<NameLoc>(l)) {
        loc = l;
        break;
      }
  if (auto name = dyn_cast<NameLoc>(loc))
    return normalizeName(name.getName().getValue());
  return "";
}

/// The first line of `text` that mentions a sharding annotation, or 0.
std::pair<unsigned, StringRef> findSharding(StringRef text) {
  unsigned line = 1;
  for (StringRef rest = text; !rest.empty(); ++line) {
    auto [l, tail] = rest.split('\n');
    for (StringRef marker : {"sdy.sharding", "sdy.mesh", "mhlo.sharding"})
      if (l.contains(marker))
        return {line, marker};
    rest = tail;
  }
  return {0, ""};
}

/// Drops JAX's own attributes (`mhlo.*`, `jax.*`) from `op`.
void dropJaxAttrs(Operation *op) {
  SmallVector<StringAttr> names;
  for (NamedAttribute a : op->getDiscardableAttrs())
    if (a.getName().strref().starts_with("mhlo.") ||
        a.getName().strref().starts_with("jax."))
      names.push_back(a.getName());
  for (StringAttr n : names)
    op->removeDiscardableAttr(n);
}

/// The entry function: @main, else the only public function.
func::FuncOp findEntry(ModuleOp module) {
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic()) {
      if (entry)
        return {};
      entry = f;
    }
  return entry;
}

} // namespace

bool pipewave::isStableHLOSource(StringRef text) {
  StringRef head = text.take_front(1 << 16);
  return !head.contains('\0') && head.contains("stablehlo.");
}

void pipewave::registerStableHLOImportDialects(DialectRegistry &registry) {
  registry
      .insert<func::FuncDialect, stablehlo::StableHLODialect, chlo::ChloDialect,
              tosa::TosaDialect, arith::ArithDialect, tensor::TensorDialect>();
  func::registerInlinerExtension(registry);
}

std::vector<std::string> pipewave::supportedStableHLOOps() {
  DialectRegistry registry;
  registerStableHLOImportDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::vector<std::string> ops;
  for (RegisteredOperationName op : context.getRegisteredOperations()) {
    StringRef d = op.getDialectNamespace();
    if (d == "stablehlo" || d == "chlo")
      ops.push_back(op.getStringRef().str());
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

OwningOpRef<ModuleOp>
pipewave::importStableHLOModule(const std::string &path, MLIRContext &context,
                                const StableHLOImportOptions &options,
                                std::string &error) {
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!file) {
    error = "cannot read '" + path + "': " + file.getError().message();
    return OwningOpRef<ModuleOp>();
  }
  return importStableHLOBuffer(std::move(*file), path, context, options, error);
}

OwningOpRef<ModuleOp>
pipewave::importStableHLOBuffer(std::unique_ptr<llvm::MemoryBuffer> file,
                                const std::string &path, MLIRContext &context,
                                const StableHLOImportOptions &options,
                                std::string &error) {
  auto fail = [&](const Twine &message) {
    error = message.str();
    return OwningOpRef<ModuleOp>();
  };
  if (auto [line, marker] = findSharding(file->getBuffer()); line)
    return fail(path + ":" + Twine(line) + ": sharding annotations (" + marker +
                ") are not supported: pipewave partitions the model itself; "
                "lower the loss without shardings");
  if (std::string deep = deepNestingError(file->getBuffer(), path);
      !deep.empty())
    return fail(deep);

  DialectRegistry registry;
  registerStableHLOImportDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();

  // Diagnostics become the error: the first one, with its location.
  std::string firstError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && firstError.empty()) {
      llvm::raw_string_ostream os(firstError);
      if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
        os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
           << loc.getColumn() << ": ";
      else if (!isa<UnknownLoc>(diag.getLocation()))
        os << diag.getLocation() << ": ";
      os << diag.str();
    }
    return success();
  });

  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return fail(firstError.empty() ? "cannot parse '" + path + "'"
                                   : firstError);

  func::FuncOp entry = findEntry(*module);
  if (!entry)
    return fail(path + ": no entry function (@main or a single public one)");
  if (entry.getName() != "main")
    entry.setName("main");
  entry->removeAttr(SymbolTable::getVisibilityAttrName());

  // Names and parameters, read before inlining (which keeps the arguments).
  unsigned numArgs = entry.getNumArguments();
  if (!options.argNames.empty() && options.argNames.size() != numArgs)
    return fail(path + ": --arg-names gives " + Twine(options.argNames.size()) +
                " names for " + Twine(numArgs) + " arguments");
  SmallVector<std::string> names;
  bool fromLocations = true;
  for (unsigned i = 0; i < numArgs; ++i) {
    std::string name = options.argNames.empty()
                           ? locationName(entry.getArgument(i))
                           : options.argNames[i];
    if (name.empty()) {
      fromLocations = false;
      name = "arg" + std::to_string(i);
    }
    names.push_back(name);
  }
  int64_t numParams = options.numParams;
  if (numParams < 0) {
    if (options.argNames.empty() && !fromLocations)
      return fail(path + ": the arguments have no names (lower with "
                         "debug_info=True, or pass --arg-names FILE) and "
                         "--num-params N is not given");
    StringRef root = StringRef(names[0]).split('.').first;
    numParams = 0;
    while (numParams < (int64_t)numArgs &&
           StringRef(names[numParams]).split('.').first == root &&
           StringRef(names[numParams]).contains('.'))
      ++numParams;
  }
  if (numParams > (int64_t)numArgs)
    return fail(path + ": --num-params " + Twine(numParams) +
                " but @main has " + Twine(numArgs) + " arguments");

  // Inline the helpers, convert, drop what is left of them.
  PassManager pm(&context);
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createStablehloToTosa());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*module)))
    return fail(firstError.empty() ? path + ": cannot convert to TOSA"
                                   : firstError);
  for (auto f : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (f != entry)
      f.erase();

  // Attributes: JAX's out, pipewave's in.
  dropJaxAttrs(*module);
  for (unsigned i = 0; i < numArgs; ++i)
    entry.setArgAttrs(i, DictionaryAttr::get(&context));
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    entry.setResultAttrs(i, DictionaryAttr::get(&context));
  for (unsigned i = 0; i < numArgs; ++i)
    markArgument(entry, i, names[i], (int64_t)i < numParams);

  // The scalar float result (the loss) first.
  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  SmallVector<Value> results(ret.getOperands());
  auto isLoss = [](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return t.getRank() == 0 && isa<FloatType>(t.getElementType());
  };
  auto loss = llvm::find_if(results, isLoss);
  if (loss == results.end())
    return fail(path + ": @main returns no scalar floating-point loss");
  std::rotate(results.begin(), loss, loss + 1);
  // A result that is an argument or a constant gets an operation of its own.
  OpBuilder b(ret);
  for (Value &v : results)
    if (isa<BlockArgument>(v) || v.getDefiningOp<tosa::ConstOp>())
      v = tosa::IdentityOp::create(b, ret.getLoc(), v.getType(), v);
  ret->setOperands(results);
  entry.setType(FunctionType::get(&context, entry.getArgumentTypes(),
                                  ValueRange(results).getTypes()));
  for (unsigned i = 0; i < results.size(); ++i)
    markResult(entry, i, i == 0 ? "loss" : "result" + std::to_string(i));

  if (failed(verify(*module)))
    return fail(path + ": the imported module does not verify (importer bug)" +
                (firstError.empty() ? "" : ": " + firstError));

  // Parameter values.
  if (options.paramsPath.empty())
    return module;
  std::map<std::string, shloimport::Tensor> values;
  if (!shloimport::loadParams(options.paramsPath, values, error))
    return OwningOpRef<ModuleOp>();
  std::vector<std::pair<std::string, shloimport::Tensor>> ordered;
  for (int64_t i = 0; i < numParams; ++i) {
    auto it = values.find(names[i]);
    if (it == values.end())
      return fail("'" + options.paramsPath + "' has no tensor named '" +
                  names[i] + "'");
    auto type = cast<RankedTensorType>(entry.getArgument(i).getType());
    if (ArrayRef<int64_t>(it->second.shape) != type.getShape() ||
        !type.getElementType().isF32())
      return fail("'" + options.paramsPath + "': tensor '" + names[i] +
                  "' does not match the argument type (f32 of the same "
                  "shape expected)");
    ordered.emplace_back(names[i], it->second);
  }
  if (!options.weightsPath.empty() &&
      !shloimport::writeSafetensors(options.weightsPath, ordered, error))
    return OwningOpRef<ModuleOp>();
  return module;
}

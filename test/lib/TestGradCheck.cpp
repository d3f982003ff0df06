//===- TestGradCheck.cpp - Finite-difference check of pipe-autodiff -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// `test-pipe-gradcheck` turns a module differentiated by `pipe-autodiff` into
// a program that checks every backward against central finite differences.
// For each stage function @S (with `pipe.fwd` / `pipe.bwd`) it fixes
// pseudo-random inputs x (every argument) and cotangents c (every float
// result) and checks the gradient of
//
//     L(x) = sum over float results r of <@S_fwd(x)_r, c_r>
//
// which is what @S_bwd(x, stash, c) computes for the arguments in
// `pipe.grad_args` (with `split=true`: @S_bwd_input then @S_bwd_weight).
// For each checked element j of each such argument:
//
//     fd  = (L(x + h e_j) - L(x - h e_j)) / (2h)
//     err = |g_j - fd| / max(|g_j|, |fd|, floor)
//
// The generated `@main` prints the largest err per argument, then `PASS` if
// the largest over everything is below `tolerance` (and not NaN), else
// `FAIL`. Arithmetic is in f64 (elements of narrower float types are
// extended; a perturbed element is rounded to its type and the quotient uses
// the rounded step). Float inputs are uniform in [lo, hi), integer inputs in
// [0, int-hi); `samples` limits the checked elements per argument (evenly
// spread) and `only` the checked stages. An existing `@main` (the stage
// composition) is erased, and so are the stage functions once read: the
// program only calls the generated functions.
//
// `test-pipe-gradcheck-lower` lowers such a program to the LLVM dialect for
// mlir-runner: the CPU lowering of TOSA plus buffer deallocation, which keeps
// the memory of the many forward evaluations bounded.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdint>

using namespace mlir;
using namespace pipewave::pipe;

namespace {

/// A small deterministic generator (splitmix64), so the inputs are the same
/// on every platform.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }

private:
  uint64_t state;
};

struct Builder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f64(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value toF64(Value v) {
    if (v.getType().isF64())
      return v;
    return arith::ExtFOp::create(b, loc, b.getF64Type(), v);
  }
  Value fromF64(Value v, Type type) {
    if (type.isF64())
      return v;
    return arith::TruncFOp::create(b, loc, type, v);
  }
  /// Indices of element `k` (row-major) of a tensor of `shape`.
  SmallVector<Value> delinearize(Value k, ArrayRef<int64_t> shape) {
    SmallVector<Value> indices;
    int64_t stride = 1;
    SmallVector<int64_t> strides(shape.size());
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= shape[d];
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      Value q = arith::DivUIOp::create(b, loc, k, index(strides[d]));
      indices.push_back(arith::RemUIOp::create(b, loc, q, index(shape[d])));
    }
    return indices;
  }
  /// sum_j t[j] * c[j] in f64.
  Value dot(Value t, Value c) {
    auto type = cast<RankedTensorType>(t.getType());
    auto loop = scf::ForOp::create(
        b, loc, index(0), index(type.getNumElements()), index(1),
        ValueRange{f64(0.0)},
        [&](OpBuilder &nb, Location l, Value k, ValueRange acc) {
          Builder inner{nb, l};
          SmallVector<Value> idx = inner.delinearize(k, type.getShape());
          Value x = inner.toF64(tensor::ExtractOp::create(nb, l, t, idx));
          Value y = inner.toF64(tensor::ExtractOp::create(nb, l, c, idx));
          Value sum = arith::AddFOp::create(nb, l, acc[0],
                                            arith::MulFOp::create(nb, l, x, y));
          scf::YieldOp::create(nb, l, sum);
        });
    return loop.getResult(0);
  }
  void print(StringRef text) { vector::PrintOp::create(b, loc, text); }
  void print(Value v) { vector::PrintOp::create(b, loc, v); }
};

struct TestGradCheckPass
    : public PassWrapper<TestGradCheckPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGradCheckPass)

  TestGradCheckPass() = default;
  TestGradCheckPass(const TestGradCheckPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-pipe-gradcheck"; }
  StringRef getDescription() const final {
    return "Builds @main checking every pipe-autodiff backward against "
           "central finite differences";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect, math::MathDialect,
                    scf::SCFDialect, tensor::TensorDialect,
                    vector::VectorDialect>();
  }

  Option<double> step{*this, "step", llvm::cl::desc("Finite-difference step"),
                      llvm::cl::init(1e-6)};
  Option<double> tolerance{*this, "tolerance",
                           llvm::cl::desc("Largest accepted error"),
                           llvm::cl::init(1e-6)};
  Option<double> floor{*this, "floor",
                       llvm::cl::desc("Smallest denominator of the relative "
                                      "error"),
                       llvm::cl::init(1e-3)};
  Option<double> lo{*this, "lo",
                    llvm::cl::desc("Float inputs are uniform in [lo, hi)"),
                    llvm::cl::init(-1.0)};
  Option<double> hi{*this, "hi", llvm::cl::desc("See lo"), llvm::cl::init(1.0)};
  Option<int64_t> intHi{*this, "int-hi",
                        llvm::cl::desc("Integer inputs are uniform in "
                                       "[0, int-hi)"),
                        llvm::cl::init(2)};
  Option<uint64_t> seed{*this, "seed", llvm::cl::desc("Random seed"),
                        llvm::cl::init(1)};
  Option<int64_t> samples{*this, "samples",
                          llvm::cl::desc("Elements checked per argument, "
                                         "evenly spread (0: every element)"),
                          llvm::cl::init(0)};
  ListOption<std::string> only{
      *this, "only",
      llvm::cl::desc("Check only these stage functions (default: all)")};
  Option<bool> split{*this, "split",
                     llvm::cl::desc("Check bwd_input + bwd_weight instead of "
                                    "bwd"),
                     llvm::cl::init(false)};

  DenseElementsAttr randomTensor(RankedTensorType type, Random &rng, double low,
                                 double high) {
    Type element = type.getElementType();
    if (auto floatType = dyn_cast<FloatType>(element)) {
      SmallVector<APFloat> values;
      for (int64_t i = 0; i < type.getNumElements(); ++i) {
        APFloat v(rng.uniform(low, high));
        bool lost;
        v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &lost);
        values.push_back(v);
      }
      return DenseElementsAttr::get(type, values);
    }
    SmallVector<APInt> values;
    unsigned width = element.getIntOrFloatBitWidth();
    uint64_t range = std::max<int64_t>(intHi, 1);
    if (width < 64)
      range = std::min<uint64_t>(range, uint64_t(1) << width);
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      values.push_back(APInt(width, rng.next() % range));
    return DenseElementsAttr::get(type, values);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> stages;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(PipeDialect::StageAttrHelper::getNameStr()) &&
          fn->hasAttr(PipeDialect::FwdAttrHelper::getNameStr()) &&
          (only.empty() || llvm::is_contained(only, fn.getSymName())))
        stages.push_back(fn);
    if (stages.empty()) {
      module.emitError() << "test-pipe-gradcheck: no differentiated stage "
                            "function; run pipe-autodiff first";
      return signalPassFailure();
    }
    if (auto existing = symbols.lookup<func::FuncOp>("main"))
      if (!existing->hasAttr(PipeDialect::StageAttrHelper::getNameStr()))
        symbols.erase(existing);

    OpBuilder builder(module.getContext());
    Location loc = module.getLoc();
    builder.setInsertionPointToEnd(module.getBody());
    auto mainFn = func::FuncOp::create(builder, loc, "main",
                                       builder.getFunctionType({}, {}));
    symbols.insert(mainFn);
    Block *mainBlock = mainFn.addEntryBlock();
    OpBuilder mb = OpBuilder::atBlockEnd(mainBlock);
    Builder m{mb, loc};
    Random rng(seed);
    Value worst = m.f64(0.0);

    for (func::FuncOp stage : stages) {
      FailureOr<Value> err = checkStage(stage, symbols, m, rng);
      if (failed(err))
        return signalPassFailure();
      worst = arith::MaximumFOp::create(mb, loc, worst, *err);
    }
    m.print("max error: ");
    m.print(worst);
    Value ok = arith::CmpFOp::create(mb, loc, arith::CmpFPredicate::OLT, worst,
                                     m.f64(tolerance));
    auto ifOp = scf::IfOp::create(mb, loc, ok, /*withElseRegion=*/true);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      vector::PrintOp::create(tb, loc, "PASS\n");
      OpBuilder eb = ifOp.getElseBodyBuilder();
      vector::PrintOp::create(eb, loc, "FAIL\n");
    }
    func::ReturnOp::create(mb, loc);

    for (func::FuncOp stage : stages)
      symbols.erase(stage);
  }

  /// Adds the check of `stage` to @main; returns its largest error.
  FailureOr<Value> checkStage(func::FuncOp stage, SymbolTable &symbols,
                              Builder &m, Random &rng) {
    auto lookup = [&](StringRef attr) -> func::FuncOp {
      auto ref = stage->getAttrOfType<FlatSymbolRefAttr>(attr);
      return ref ? symbols.lookup<func::FuncOp>(ref.getValue()) : nullptr;
    };
    func::FuncOp fwd = lookup(PipeDialect::FwdAttrHelper::getNameStr());
    func::FuncOp bwd = lookup(PipeDialect::BwdAttrHelper::getNameStr());
    func::FuncOp bwdInput =
        lookup(PipeDialect::BwdInputAttrHelper::getNameStr());
    func::FuncOp bwdWeight =
        lookup(PipeDialect::BwdWeightAttrHelper::getNameStr());
    DenseI64ArrayAttr gradArgsAttr =
        PipeDialect::GradArgsAttrHelper(stage.getContext()).getAttr(stage);
    if (!fwd || !bwd || !gradArgsAttr || (split && (!bwdInput || !bwdWeight)))
      return stage.emitError() << "test-pipe-gradcheck: missing pipe-autodiff "
                                  "attributes";
    ArrayRef<int64_t> gradArgs = gradArgsAttr.asArrayRef();
    OpBuilder &b = m.b;
    Location loc = m.loc;
    unsigned numResults = stage.getNumResults();

    // Inputs and cotangents.
    SmallVector<Value> inputs;
    for (Type type : stage.getArgumentTypes()) {
      auto tensor = cast<RankedTensorType>(type);
      inputs.push_back(
          arith::ConstantOp::create(b, loc, randomTensor(tensor, rng, lo, hi)));
    }
    SmallVector<DenseElementsAttr> cotangents;
    SmallVector<unsigned> floatResults;
    for (auto [i, type] : llvm::enumerate(stage.getResultTypes())) {
      auto tensor = cast<RankedTensorType>(type);
      if (!isa<FloatType>(tensor.getElementType()))
        continue;
      floatResults.push_back(i);
      cotangents.push_back(randomTensor(tensor, rng, -1.0, 1.0));
    }

    // @<stage>_gradcheck_loss(args) -> f64: sum_r <fwd(args)_r, c_r>.
    OpBuilder mod(stage.getContext());
    mod.setInsertionPoint(m.b.getInsertionBlock()->getParentOp());
    auto lossFn = func::FuncOp::create(
        mod, loc, (stage.getSymName() + "_gradcheck_loss").str(),
        mod.getFunctionType(stage.getArgumentTypes(), {mod.getF64Type()}));
    lossFn.setPrivate();
    symbols.insert(lossFn);
    {
      OpBuilder lb = OpBuilder::atBlockEnd(lossFn.addEntryBlock());
      Builder l{lb, loc};
      auto call = func::CallOp::create(lb, loc, fwd, lossFn.getArguments());
      Value total = l.f64(0.0);
      for (auto [k, r] : llvm::enumerate(floatResults)) {
        Value c = arith::ConstantOp::create(lb, loc, cotangents[k]);
        total =
            arith::AddFOp::create(lb, loc, total, l.dot(call.getResult(r), c));
      }
      func::ReturnOp::create(lb, loc, total);
    }

    // Analytic gradients.
    auto fwdCall = func::CallOp::create(b, loc, fwd, inputs);
    SmallVector<Value> bwdArgs(inputs);
    llvm::append_range(bwdArgs, fwdCall.getResults().drop_front(numResults));
    for (DenseElementsAttr c : cotangents)
      bwdArgs.push_back(arith::ConstantOp::create(b, loc, c));
    SmallVector<Value> grads;
    if (!split) {
      grads = func::CallOp::create(b, loc, bwd, bwdArgs).getResults();
    } else {
      auto input = func::CallOp::create(b, loc, bwdInput, bwdArgs);
      unsigned numInputGrads = 0;
      for (int64_t arg : gradArgs)
        if (!getParamArgAttr(stage, arg))
          ++numInputGrads;
      // Each weight stash value is an argument of bwd_input passed through
      // (pipe.wstash_args) or the next value it returns after the input
      // gradients.
      SmallVector<Value> weightArgs;
      unsigned nextStash = numInputGrads;
      for (int64_t source : getWStashArgs(stage, bwdWeight.getNumArguments()))
        weightArgs.push_back(source >= 0 ? bwdArgs[source]
                                         : input.getResult(nextStash++));
      auto weight = func::CallOp::create(b, loc, bwdWeight, weightArgs);
      unsigned nextInput = 0, nextWeight = 0;
      for (int64_t arg : gradArgs)
        grads.push_back(getParamArgAttr(stage, arg)
                            ? weight.getResult(nextWeight++)
                            : input.getResult(nextInput++));
    }

    Value worst = m.f64(0.0);
    for (auto [k, arg] : llvm::enumerate(gradArgs)) {
      auto type = cast<RankedTensorType>(inputs[arg].getType());
      int64_t numel = type.getNumElements();
      int64_t stride = samples > 0 ? std::max<int64_t>(1, numel / samples) : 1;
      Value grad = grads[k];
      auto loop = scf::ForOp::create(
          b, loc, m.index(0), m.index(numel), m.index(stride),
          ValueRange{m.f64(0.0)},
          [&](OpBuilder &nb, Location l, Value j, ValueRange acc) {
            Builder in{nb, l};
            SmallVector<Value> idx = in.delinearize(j, type.getShape());
            Type element = type.getElementType();
            Value x =
                in.toF64(tensor::ExtractOp::create(nb, l, inputs[arg], idx));
            Value h = in.f64(step);
            Value xp = in.fromF64(arith::AddFOp::create(nb, l, x, h), element);
            Value xm = in.fromF64(arith::SubFOp::create(nb, l, x, h), element);
            auto loss = [&](Value xv) {
              SmallVector<Value> args(inputs);
              args[arg] = tensor::InsertOp::create(nb, l, xv, inputs[arg], idx);
              return func::CallOp::create(nb, l, lossFn, args).getResult(0);
            };
            Value lp = loss(xp), lm = loss(xm);
            Value fd = arith::DivFOp::create(
                nb, l, arith::SubFOp::create(nb, l, lp, lm),
                arith::SubFOp::create(nb, l, in.toF64(xp), in.toF64(xm)));
            Value g = in.toF64(tensor::ExtractOp::create(nb, l, grad, idx));
            Value diff = math::AbsFOp::create(
                nb, l, arith::SubFOp::create(nb, l, g, fd));
            Value scale = arith::MaximumFOp::create(
                nb, l,
                arith::MaximumFOp::create(nb, l, math::AbsFOp::create(nb, l, g),
                                          math::AbsFOp::create(nb, l, fd)),
                in.f64(floor));
            Value err = arith::DivFOp::create(nb, l, diff, scale);
            scf::YieldOp::create(
                nb, l,
                arith::MaximumFOp::create(nb, l, acc[0], err).getResult());
          });
      m.print((stage.getSymName() + " arg " + Twine(arg) + " (" +
               Twine((numel + stride - 1) / stride) + " of " + Twine(numel) +
               " elements) max error: ")
                  .str());
      m.print(loop.getResult(0));
      worst = arith::MaximumFOp::create(b, loc, worst, loop.getResult(0));
    }
    return worst;
  }
};

} // namespace

namespace pipewave::test {

/// Registers the test passes of the pipewave test suite (pipewave-opt only).
void registerTestPasses() {
  PassRegistration<TestGradCheckPass>();
  PassPipelineRegistration<>(
      "test-pipe-gradcheck-lower",
      "Lowers a test-pipe-gradcheck program (TOSA, tensors, scf, vector.print) "
      "to the LLVM dialect for mlir-runner",
      [](OpPassManager &pm) {
        // The CPU lowering of TOSA; buffer deallocation keeps the memory of
        // the many forward evaluations bounded.
        (void)parsePassPipeline(
            "func.func(pipe-lower-dropout,tosa-to-linalg-named,tosa-to-linalg,"
            "tosa-to-arith,"
            "tosa-to-tensor),canonicalize,"
            "one-shot-bufferize{bufferize-function-boundaries},"
            "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
            "func.func(convert-linalg-to-loops),convert-math-to-llvm,"
            "convert-math-to-libm,convert-scf-to-cf,expand-strided-metadata,"
            "lower-affine,finalize-memref-to-llvm,convert-vector-to-llvm,"
            "convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
            "reconcile-unrealized-casts",
            pm);
      });
}

} // namespace pipewave::test

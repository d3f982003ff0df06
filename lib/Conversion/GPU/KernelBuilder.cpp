//===- KernelBuilder.cpp - pipewave's kernels for linalg ops --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace pipewave;

namespace {

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Row-major indices of `linear` in a space of `sizes` (last fastest).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> sizes) {
  SmallVector<Value> ivs(sizes.size());
  Value rest = linear;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      ivs[0] = rest;
      break;
    }
    Value size = indexConst(b, loc, sizes[d]);
    ivs[d] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return ivs;
}

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

/// The kernel of one op: its arguments and the values the kernel rebuilds.
struct Kernel {
  gpu::GPUFuncOp func;
  SmallVector<Value> hostOperands; // launch operands, in argument order
  IRMapping map;                   // host value -> kernel value
};

bool isConstantLike(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         matchPattern(v, m_Constant());
}

/// Creates the empty kernel `name` for `op`: one argument per memref or
/// scalar operand and per value the body captures (index values travel as
/// i64); constants are cloned instead.
FailureOr<Kernel> createKernel(linalg::GenericOp op, gpu::GPUModuleOp module,
                               StringRef name, Value init) {
  llvm::SetVector<Value> args, constants;
  auto add = [&](Value v) { (isConstantLike(v) ? constants : args).insert(v); };
  for (Value v : op->getOperands())
    add(v);
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value v : captured)
    add(v);
  if (init)
    add(init);

  SmallVector<Type> argTypes;
  for (Value v : args) {
    Type type = v.getType();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (!memref.hasStaticShape() || !memref.isStrided() ||
          ShapedType::isDynamic(memref.getStridesAndOffset().second) ||
          llvm::any_of(memref.getStridesAndOffset().first,
                       ShapedType::isDynamic))
        return op.emitError() << "pipe-gpu-map-kernels: kernel operand " << type
                              << " needs a static shape, strides and offset";
    } else if (isa<IndexType>(type)) {
      type = IntegerType::get(op.getContext(), 64);
    } else if (!type.isIntOrFloat()) {
      return op.emitError() << "pipe-gpu-map-kernels: cannot pass a value of "
                               "type "
                            << type << " to a kernel";
    }
    argTypes.push_back(type);
  }

  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = op.getLoc();
  Kernel kernel;
  kernel.func =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  kernel.func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                       b.getUnitAttr());
  Block &entry = kernel.func.getBody().front();
  b.setInsertionPointToStart(&entry);
  OpBuilder host(op);
  for (auto [i, v] : llvm::enumerate(args)) {
    Value arg = entry.getArgument(i);
    if (isa<IndexType>(v.getType())) {
      arg = arith::IndexCastOp::create(b, loc, v.getType(), arg);
      kernel.hostOperands.push_back(
          arith::IndexCastOp::create(host, loc, host.getI64Type(), v));
    } else {
      kernel.hostOperands.push_back(v);
    }
    kernel.map.map(v, arg);
  }
  for (Value v : constants)
    kernel.map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
  return kernel;
}

/// Emits the loads of `op`'s operands at loop indices `ivs` and its body;
/// output block arguments take `outValues` when given (else their elements
/// are loaded). `skip` (the combiner of a reduction) is not cloned. Returns
/// the yielded values (null for skipped ones).
SmallVector<Value> emitBody(OpBuilder &b, Location loc, linalg::GenericOp op,
                            IRMapping &map, ValueRange ivs,
                            ArrayRef<Value> outValues, Operation *skip) {
  Block &body = op.getRegion().front();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    bool isOut = op.isDpsInit(&operand);
    // A reduction's output is only read by its combiner.
    if (isOut && skip)
      continue;
    if (isOut && !outValues.empty()) {
      map.map(arg,
              outValues[operand.getOperandNumber() - op.getNumDpsInputs()]);
      continue;
    }
    Value v = map.lookup(operand.get());
    if (!isa<MemRefType>(v.getType())) {
      map.map(arg, v);
      continue;
    }
    auto indices = affine::expandAffineMap(
        b, loc, op.getMatchingIndexingMap(&operand), ivs);
    map.map(arg, memref::LoadOp::create(b, loc, v, *indices));
  }
  for (Operation &inner : body.without_terminator()) {
    if (&inner == skip)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(map.lookupOrNull(v));
  return yielded;
}

/// Stores `values` into the outputs of `op` at `ivs`.
void storeOutputs(OpBuilder &b, Location loc, linalg::GenericOp op,
                  IRMapping &map, ValueRange ivs, ValueRange values) {
  for (auto [k, operand] : llvm::enumerate(op.getDpsInitsMutable())) {
    auto indices = affine::expandAffineMap(
        b, loc, op.getMatchingIndexingMap(&operand), ivs);
    memref::StoreOp::create(b, loc, values[k], map.lookup(operand.get()),
                            *indices);
  }
}

/// Loads the outputs of `op` at `ivs`.
SmallVector<Value> loadOutputs(OpBuilder &b, Location loc, linalg::GenericOp op,
                               IRMapping &map, ValueRange ivs) {
  SmallVector<Value> values;
  for (OpOperand &operand : op.getDpsInitsMutable()) {
    auto indices = affine::expandAffineMap(
        b, loc, op.getMatchingIndexingMap(&operand), ivs);
    values.push_back(
        memref::LoadOp::create(b, loc, map.lookup(operand.get()), *indices));
  }
  return values;
}

/// The combiner of a reduction: the op computing the single yielded value
/// from the output block argument (its only use) and one other value.
struct Combiner {
  Operation *op = nullptr;
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

std::optional<Combiner> findCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  Block &body = op.getRegion().front();
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *def = yielded.getDefiningOp();
  BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!def || def->getBlock() != &body || def->getNumOperands() != 2 ||
      !out.hasOneUse() || !yielded.hasOneUse() ||
      (def->getOperand(0) != out && def->getOperand(1) != out))
    return std::nullopt;
  auto type = dyn_cast<FloatType>(yielded.getType());
  if (!type)
    return std::nullopt;
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  Combiner c;
  c.op = def;
  auto value = [&](APFloat v) { return FloatAttr::get(type, v); };
  if (isa<arith::AddFOp>(def)) {
    c.kind = gpu::AllReduceOperation::ADD;
    c.identity = value(APFloat::getZero(sem));
  } else if (isa<arith::MulFOp>(def)) {
    c.kind = gpu::AllReduceOperation::MUL;
    c.identity = value(APFloat::getOne(sem));
  } else if (isa<arith::MaximumFOp>(def)) {
    c.kind = gpu::AllReduceOperation::MAXIMUMF;
    c.identity = value(APFloat::getInf(sem, /*Negative=*/true));
  } else if (isa<arith::MaxNumFOp>(def)) {
    c.kind = gpu::AllReduceOperation::MAXNUMF;
    c.identity = value(APFloat::getInf(sem, /*Negative=*/true));
  } else if (isa<arith::MinimumFOp>(def)) {
    c.kind = gpu::AllReduceOperation::MINIMUMF;
    c.identity = value(APFloat::getInf(sem));
  } else if (isa<arith::MinNumFOp>(def)) {
    c.kind = gpu::AllReduceOperation::MINNUMF;
    c.identity = value(APFloat::getInf(sem));
  } else {
    return std::nullopt;
  }
  return c;
}

/// Loop indices from the indices of the parallel and the reduction loops.
SmallVector<Value> merge(linalg::GenericOp op, ValueRange par, ValueRange red) {
  SmallVector<Value> ivs;
  unsigned p = 0, r = 0;
  for (utils::IteratorType it : op.getIteratorTypesArray())
    ivs.push_back(it == utils::IteratorType::parallel ? par[p++] : red[r++]);
  return ivs;
}

struct Launch {
  int64_t grid;
  int64_t block;
};

/// One thread per point of the iteration space, grid-stride.
Launch buildParallel(OpBuilder &b, Location loc, linalg::GenericOp op,
                     IRMapping &map, ArrayRef<int64_t> ranges) {
  int64_t total = product(ranges);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value bdim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
  Value step = arith::MulIOp::create(b, loc, bdim, gdim);
  auto loop =
      scf::ForOp::create(b, loc, start, indexConst(b, loc, total), step);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs = delinearize(b, loc, loop.getInductionVar(), ranges);
  SmallVector<Value> values = emitBody(b, loc, op, map, ivs, {}, nullptr);
  storeOutputs(b, loc, op, map, ivs, values);
  int64_t block = std::min<int64_t>(kGpuBlockSize, llvm::alignTo(total, 32));
  int64_t grid =
      std::min<int64_t>(kGpuMaxGridSize, llvm::divideCeil(total, block));
  return {grid, block};
}

/// One block per output element; the threads stride over the reduced
/// elements and combine their partial results with gpu.all_reduce.
Launch buildBlockReduction(OpBuilder &b, Location loc, linalg::GenericOp op,
                           IRMapping &map, ArrayRef<int64_t> parSizes,
                           ArrayRef<int64_t> redSizes, const Combiner &comb,
                           Value fusedInit) {
  int64_t numRed = product(redSizes);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value bdim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  SmallVector<Value> par = delinearize(b, loc, row, parSizes);
  Value identity = arith::ConstantOp::create(b, loc, comb.identity);
  BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  Value other = comb.op->getOperand(0) == out ? comb.op->getOperand(1)
                                              : comb.op->getOperand(0);
  auto loop = scf::ForOp::create(b, loc, tid, indexConst(b, loc, numRed), bdim,
                                 ValueRange{identity});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> red =
        delinearize(b, loc, loop.getInductionVar(), redSizes);
    emitBody(b, loc, op, map, merge(op, par, red), {}, comb.op);
    // Fold the element into the thread's partial result.
    IRMapping step;
    step.map(out, loop.getRegionIterArg(0));
    step.map(other, map.lookup(other));
    Value next = b.clone(*comb.op, step)->getResult(0);
    scf::YieldOp::create(b, loc, next);
  }
  Value total = gpu::AllReduceOp::create(
      b, loc, loop.getResult(0),
      gpu::AllReduceOperationAttr::get(b.getContext(), comb.kind),
      b.getUnitAttr());
  // Thread 0 combines the block's result with the output's initial value.
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        indexConst(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  SmallVector<Value> zeros(redSizes.size(), indexConst(b, loc, 0));
  SmallVector<Value> ivs = merge(op, par, zeros);
  Value init =
      fusedInit ? map.lookup(fusedInit) : loadOutputs(b, loc, op, map, ivs)[0];
  IRMapping last;
  last.map(out, init);
  last.map(other, total);
  Value result = b.clone(*comb.op, last)->getResult(0);
  storeOutputs(b, loc, op, map, ivs, result);
  int64_t block = std::min<int64_t>(kGpuBlockSize, llvm::alignTo(numRed, 32));
  return {product(parSizes), block};
}

/// One thread per output element, looping over the reduced elements.
Launch buildSequentialReduction(OpBuilder &b, Location loc,
                                linalg::GenericOp op, IRMapping &map,
                                ArrayRef<int64_t> parSizes,
                                ArrayRef<int64_t> redSizes, Value fusedInit) {
  int64_t numOut = product(parSizes);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value bdim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
  Value step = arith::MulIOp::create(b, loc, bdim, gdim);
  auto rows =
      scf::ForOp::create(b, loc, start, indexConst(b, loc, numOut), step);
  b.setInsertionPointToStart(rows.getBody());
  SmallVector<Value> par =
      delinearize(b, loc, rows.getInductionVar(), parSizes);
  SmallVector<Value> zeros(redSizes.size(), indexConst(b, loc, 0));
  SmallVector<Value> outIvs = merge(op, par, zeros);
  SmallVector<Value> inits = fusedInit
                                 ? SmallVector<Value>{map.lookup(fusedInit)}
                                 : loadOutputs(b, loc, op, map, outIvs);
  auto loop = scf::ForOp::create(b, loc, indexConst(b, loc, 0),
                                 indexConst(b, loc, product(redSizes)),
                                 indexConst(b, loc, 1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> red =
        delinearize(b, loc, loop.getInductionVar(), redSizes);
    SmallVector<Value> iterArgs(loop.getRegionIterArgs());
    SmallVector<Value> values =
        emitBody(b, loc, op, map, merge(op, par, red), iterArgs, nullptr);
    scf::YieldOp::create(b, loc, values);
  }
  storeOutputs(b, loc, op, map, outIvs, loop.getResults());
  int64_t block = std::min<int64_t>(kGpuBlockSize, llvm::alignTo(numOut, 32));
  int64_t grid =
      std::min<int64_t>(kGpuMaxGridSize, llvm::divideCeil(numOut, block));
  return {grid, block};
}

} // namespace

LogicalResult pipewave::mapGenericToKernel(linalg::GenericOp op,
                                           gpu::GPUModuleOp module,
                                           StringRef name, Value init) {
  if (!op.hasPureBufferSemantics())
    return op.emitError("pipe-gpu-map-kernels: expected a linalg op on "
                        "buffers (run after bufferization)");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op.emitError("pipe-gpu-map-kernels: dynamic loop ranges are not "
                        "supported (stage shapes are static)");
  if (init && (op.getNumDpsInits() != 1 ||
               llvm::all_of(op.getIteratorTypesArray(), [](auto it) {
                 return it == utils::IteratorType::parallel;
               })))
    return op.emitError("pipe-gpu-map-kernels: an initial value is only "
                        "folded into a reduction with one output");
  FailureOr<Kernel> kernel = createKernel(op, module, name, init);
  if (failed(kernel))
    return failure();

  Location loc = op.getLoc();
  Block &entry = kernel->func.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(&entry);
  SmallVector<int64_t> parSizes, redSizes;
  for (auto [it, size] : llvm::zip(op.getIteratorTypesArray(), ranges))
    (it == utils::IteratorType::parallel ? parSizes : redSizes).push_back(size);

  Launch launch;
  if (redSizes.empty()) {
    launch = buildParallel(b, loc, op, kernel->map, ranges);
  } else if (std::optional<Combiner> comb = findCombiner(op)) {
    launch = buildBlockReduction(b, loc, op, kernel->map, parSizes, redSizes,
                                 *comb, init);
  } else {
    launch = buildSequentialReduction(b, loc, op, kernel->map, parSizes,
                                      redSizes, init);
  }
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
  kernel->func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(launch.block), 1, 1}));

  OpBuilder host(op);
  Value one = indexConst(host, loc, 1);
  gpu::LaunchFuncOp::create(
      host, loc, kernel->func,
      gpu::KernelDim3{indexConst(host, loc, launch.grid), one, one},
      gpu::KernelDim3{indexConst(host, loc, launch.block), one, one},
      /*dynamicSharedMemorySize=*/Value(), kernel->hostOperands);
  op->erase();
  return success();
}

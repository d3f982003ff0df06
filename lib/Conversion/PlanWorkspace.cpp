//===- PlanWorkspace.cpp - pipe-plan-workspace: temporaries in one buffer -===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Replaces the statically shaped, non-escaping allocations of every stage
// function by views into one workspace buffer, a new last argument that the
// runtime allocates once: a stage call then allocates nothing. Offsets come
// from liveness-based interval packing over the entry block.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEPLANWORKSPACE
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// The argument attribute of the workspace (its size in bytes is the
/// function attribute kWorkspaceBytesAttr, Passes.h).
constexpr StringLiteral kWorkspaceArgAttr = "pipewave.workspace";

/// What becomes of one allocation.
enum class Verdict { Placed, Stacked, Escaping, Dynamic, Nested };

/// The values that alias an allocation (itself, views of it, views of
/// those) and the deallocations of any of them.
struct Aliases {
  SmallVector<Value> values;
  SmallVector<Operation *> deallocs;
  bool escapes = false;
};

/// Whether `user` hands the memref operand on to a place this function does
/// not see: a return, a branch or a region terminator forwarding it, a
/// store of the memref itself, or an operation that is not a view and makes
/// a new memref from it.
bool handsOn(Operation *user, Value value) {
  if (user->hasTrait<OpTrait::ReturnLike>() || isa<BranchOpInterface>(user) ||
      isa<RegionBranchTerminatorOpInterface>(user))
    return true;
  if (auto store = dyn_cast<memref::StoreOp>(user))
    return store.getValueToStore() == value;
  return llvm::any_of(user->getResultTypes(), llvm::IsaPred<BaseMemRefType>);
}

/// Follows the uses of `root` through views.
Aliases collectAliases(Value root) {
  Aliases aliases;
  aliases.values.push_back(root);
  for (size_t i = 0; i < aliases.values.size(); ++i) {
    Value value = aliases.values[i];
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user)) {
        aliases.deallocs.push_back(user);
        continue;
      }
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      bool isView = view && view.getViewSource() == value;
      if (isView || isa<memref::ExtractStridedMetadataOp>(user)) {
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            aliases.values.push_back(result);
        continue;
      }
      if (handsOn(user, value))
        aliases.escapes = true;
    }
  }
  return aliases;
}

/// Bytes of a statically shaped memref with a plain element type, or
/// nothing (dynamic sizes, a layout, a memory space, another element type).
std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  uint64_t bits = type.getElementType().getIntOrFloatBitWidth();
  uint64_t elementBytes = llvm::PowerOf2Ceil(llvm::divideCeil(bits, 8));
  return type.getNumElements() * static_cast<int64_t>(elementBytes);
}

/// One allocation to place: live over [begin, end] (positions in the entry
/// block), `bytes` at `offset`, a multiple of `align`.
struct Interval {
  memref::AllocOp alloc;
  int64_t bytes = 0;
  int64_t align = 1;
  unsigned begin = 0, end = 0;
  int64_t offset = 0;
};

/// Places the intervals, largest first (then earliest), each at the lowest
/// aligned offset that overlaps no placed interval live at the same time.
/// Returns the workspace size, rounded up to `alignment`.
int64_t pack(MutableArrayRef<Interval> intervals, int64_t alignment) {
  SmallVector<unsigned> order =
      llvm::to_vector(llvm::seq<unsigned>(0, intervals.size()));
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    if (intervals[a].bytes != intervals[b].bytes)
      return intervals[a].bytes > intervals[b].bytes;
    return intervals[a].begin < intervals[b].begin;
  });
  SmallVector<unsigned> placed;
  int64_t size = 0;
  for (unsigned i : order) {
    Interval &interval = intervals[i];
    SmallVector<const Interval *> conflicts;
    for (unsigned j : placed)
      if (intervals[j].begin <= interval.end &&
          interval.begin <= intervals[j].end && intervals[j].bytes > 0)
        conflicts.push_back(&intervals[j]);
    llvm::sort(conflicts, [](const Interval *a, const Interval *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (const Interval *other : conflicts) {
      if (offset + interval.bytes <= other->offset)
        break;
      offset =
          std::max(offset, static_cast<int64_t>(llvm::alignTo(
                               other->offset + other->bytes, interval.align)));
    }
    interval.offset = offset;
    placed.push_back(i);
    size = std::max(size, offset + interval.bytes);
  }
  return static_cast<int64_t>(llvm::alignTo(size, alignment));
}

/// Counts of one function, for the remark and the statistics.
struct Counts {
  int64_t placed = 0, placedBytes = 0, stacked = 0, escaping = 0, dynamic = 0,
          nested = 0;
  int64_t workspace = 0;
};

struct PipePlanWorkspacePass
    : public pipewave::impl::PipePlanWorkspaceBase<PipePlanWorkspacePass> {
  using PipePlanWorkspaceBase::PipePlanWorkspaceBase;

  void runOnOperation() override {
    if (alignment < 1 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError()
          << "pipe-plan-workspace: alignment must be a power of two, got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    // Functions called in the module keep their signature (attributes such
    // as pipe.fwd may name a function: that is no call).
    llvm::DenseSet<StringAttr> called;
    module.walk([&](CallOpInterface call) {
      if (auto ref = dyn_cast_if_present<SymbolRefAttr>(
              call.getCallableForCallee().dyn_cast<SymbolRefAttr>()))
        called.insert(ref.getLeafReference());
    });
    SmallVector<func::FuncOp> functions;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !called.contains(fn.getSymNameAttr()))
        functions.push_back(fn);
    for (func::FuncOp fn : functions) {
      if (fn->hasAttr(kWorkspaceBytesAttr)) {
        fn.emitError() << "pipe-plan-workspace: '@" << fn.getSymName()
                       << "' already has a workspace";
        return signalPassFailure();
      }
      Counts counts = planFunction(fn);
      numPlaced += counts.placed;
      numStacked += counts.stacked;
      numEscaping += counts.escaping;
      numDynamic += counts.dynamic;
      numNested += counts.nested;
      workspaceBytes += counts.workspace;
      if (report)
        fn.emitRemark() << "workspace of " << counts.workspace << " bytes for "
                        << counts.placed << " allocations of "
                        << counts.placedBytes << " bytes; kept "
                        << counts.escaping << " escaping, " << counts.dynamic
                        << " dynamic, " << counts.nested << " nested"
                        << (stackScalars
                                ? "; " + std::to_string(counts.stacked) +
                                      " on the stack"
                                : std::string());
    }
  }

  Verdict classify(memref::AllocOp alloc, Block &entry) {
    if (alloc->getBlock() != &entry)
      return Verdict::Nested;
    if (!staticBytes(alloc.getType()))
      return Verdict::Dynamic;
    if (collectAliases(alloc).escapes)
      return Verdict::Escaping;
    return stackScalars && alloc.getType().getRank() == 0 ? Verdict::Stacked
                                                          : Verdict::Placed;
  }

  Counts planFunction(func::FuncOp fn) {
    Counts counts;
    SmallVector<memref::AllocOp> allocs;
    fn.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    if (allocs.empty())
      return counts;
    if (!fn.getBody().hasOneBlock()) {
      counts.nested = allocs.size();
      return counts;
    }
    Block &entry = fn.getBody().front();

    // Which allocations move; their deallocations (and the views only
    // deallocations used) go.
    SmallVector<Interval> intervals;
    for (memref::AllocOp alloc : allocs) {
      switch (classify(alloc, entry)) {
      case Verdict::Stacked: {
        // A one-value buffer on the stack, where LLVM sees it apart from
        // the workspace (and from the arguments).
        for (Operation *dealloc : collectAliases(alloc).deallocs)
          dealloc->erase();
        OpBuilder b(alloc);
        auto stacked = memref::AllocaOp::create(
            b, alloc.getLoc(), alloc.getType(), alloc.getAlignmentAttr());
        alloc.replaceAllUsesWith(stacked.getResult());
        alloc.erase();
        ++counts.stacked;
        continue;
      }
      case Verdict::Nested:
        ++counts.nested;
        continue;
      case Verdict::Dynamic:
        ++counts.dynamic;
        continue;
      case Verdict::Escaping:
        ++counts.escaping;
        continue;
      case Verdict::Placed:
        break;
      }
      Aliases aliases = collectAliases(alloc);
      for (Operation *dealloc : aliases.deallocs)
        dealloc->erase();
      llvm::SmallPtrSet<Operation *, 8> erased;
      for (Value value : llvm::reverse(ArrayRef(aliases.values).drop_front()))
        if (Operation *def = value.getDefiningOp();
            !erased.contains(def) && isOpTriviallyDead(def)) {
          erased.insert(def);
          def->erase();
        }
      Interval interval;
      interval.alloc = alloc;
      interval.bytes = *staticBytes(alloc.getType());
      interval.align = std::max<int64_t>(
          alignment, static_cast<int64_t>(alloc.getAlignment().value_or(1)));
      intervals.push_back(interval);
    }
    if (intervals.empty())
      return counts;

    // Live ranges over the entry block.
    DenseMap<Operation *, unsigned> position;
    for (auto [i, op] : llvm::enumerate(entry))
      position[&op] = i;
    for (Interval &interval : intervals) {
      interval.begin = interval.end = position.lookup(interval.alloc);
      for (Value value : collectAliases(interval.alloc).values)
        for (Operation *user : value.getUsers())
          if (Operation *top = entry.findAncestorOpInBlock(*user))
            interval.end = std::max(interval.end, position.lookup(top));
    }
    int64_t size = pack(intervals, alignment);

    // The workspace argument and the views into it.
    MLIRContext *ctx = fn.getContext();
    auto workspaceType = MemRefType::get({size}, IntegerType::get(ctx, 8));
    NamedAttrList argAttrs;
    argAttrs.append(kWorkspaceArgAttr, UnitAttr::get(ctx));
    unsigned argNo = fn.getNumArguments();
    if (failed(fn.insertArgument(argNo, workspaceType,
                                 argAttrs.getDictionary(ctx), fn.getLoc())))
      return counts;
    Value workspace = fn.getArgument(argNo);
    fn->setAttr(kWorkspaceBytesAttr,
                IntegerAttr::get(IntegerType::get(ctx, 64), size));
    for (Interval &interval : intervals) {
      OpBuilder b(interval.alloc);
      Location loc = interval.alloc.getLoc();
      Value offset =
          arith::ConstantIndexOp::create(b, loc, interval.offset).getResult();
      Value view = memref::ViewOp::create(b, loc, interval.alloc.getType(),
                                          workspace, offset, ValueRange{});
      interval.alloc.replaceAllUsesWith(view);
      interval.alloc.erase();
      ++counts.placed;
      counts.placedBytes += interval.bytes;
    }
    counts.workspace = size;
    return counts;
  }
};

} // namespace

//===- HostToCalls.cpp - pipe-gpu-host-to-calls ---------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The host side of a stage after gpu-module-to-binary, lowered to calls of
// the launch layer (runtime/cuda/include/pipewave-cuda/launch.h):
//
//   gpu.binary @M            -> @__pw_image_M (bytes + NUL), @__pw_library_M
//   gpu.launch_func @M::@K   -> pw_cuda_launch(@__pw_library_M,
//                                 @__pw_kernel_M_K, @__pw_image_M, "K",
//                                 grid, block, 0, args, stream)
//   memref.alloc / dealloc   -> pw_cuda_alloc / pw_cuda_free (stream ordered)
//   memref.get_global @G     -> pw_cuda_global(@__pw_library_M, image, "G")
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "../MemRefDescriptor.h"

#include "GpuUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/TypeSwitch.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEGPUHOSTTOCALLS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

struct PipeGpuHostToCallsPass
    : public pipewave::impl::PipeGpuHostToCallsBase<PipeGpuHostToCallsPass> {
  using PipeGpuHostToCallsBase::PipeGpuHostToCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto binary :
         llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>()))
      if (failed(lowerBinary(binary)))
        return signalPassFailure();

    SmallVector<Operation *> work;
    module.walk([&](Operation *op) {
      if (isa<gpu::LaunchFuncOp, memref::AllocOp, memref::DeallocOp,
              memref::GetGlobalOp>(op))
        work.push_back(op);
    });
    for (Operation *op : work) {
      if (!getStream(op)) {
        op->emitError("pipe-gpu-host-to-calls: no stream argument in the "
                      "enclosing function (run pipe-gpu-stream-args)");
        return signalPassFailure();
      }
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](gpu::LaunchFuncOp launch) { return lower(launch); })
              .Case([&](memref::AllocOp alloc) { return lower(alloc); })
              .Case([&](memref::DeallocOp dealloc) { return lower(dealloc); })
              .Case([&](memref::GetGlobalOp get) { return lower(get); });
      if (failed(result))
        return signalPassFailure();
    }

    // The host copies of the globals now live in the kernel images.
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    for (auto fn : module.getOps<func::FuncOp>())
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
        fn.removeArgAttr(i, kStreamAttr);
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }

  Type ptrType() { return LLVM::LLVMPointerType::get(&getContext()); }

  /// A private global `name` in the module: a NUL-terminated string
  /// constant when `text` is given, else a pointer initialized to null.
  LLVM::GlobalOp getOrCreateGlobal(StringRef name,
                                   std::optional<StringRef> text) {
    ModuleOp module = getOperation();
    if (auto existing = module.lookupSymbol<LLVM::GlobalOp>(name))
      return existing;
    auto b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    if (text) {
      std::string data = text->str();
      data.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(b.getI8Type(), data.size());
      auto global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                           LLVM::Linkage::Internal, name,
                                           b.getStringAttr(data));
      global.setAlignment(16);
      return global;
    }
    auto global = LLVM::GlobalOp::create(
        b, loc, ptrType(),
        /*isConstant=*/false, LLVM::Linkage::Internal, name, Attribute());
    Block *init = b.createBlock(&global.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value zero = LLVM::ZeroOp::create(b, loc, ptrType());
    LLVM::ReturnOp::create(b, loc, zero);
    return global;
  }

  LogicalResult lowerBinary(gpu::BinaryOp binary) {
    ArrayAttr objects = binary.getObjects();
    if (objects.size() != 1)
      return binary.emitError("pipe-gpu-host-to-calls: expected one object "
                              "(one target) in gpu.binary");
    auto object = cast<gpu::ObjectAttr>(objects[0]);
    StringRef name = binary.getSymName();
    getOrCreateGlobal(("__pw_image_" + name).str(),
                      object.getObject().getValue());
    getOrCreateGlobal(("__pw_library_" + name).str(), std::nullopt);
    binary.erase();
    return success();
  }

  Value address(OpBuilder &b, Location loc, LLVM::GlobalOp global) {
    return LLVM::AddressOfOp::create(b, loc, global);
  }

  /// The library slot and image of kernel module `module`.
  FailureOr<std::pair<LLVM::GlobalOp, LLVM::GlobalOp>>
  images(Operation *user, StringRef module) {
    ModuleOp top = getOperation();
    auto image =
        top.lookupSymbol<LLVM::GlobalOp>(("__pw_image_" + module).str());
    auto library =
        top.lookupSymbol<LLVM::GlobalOp>(("__pw_library_" + module).str());
    if (!image || !library)
      return user->emitError("pipe-gpu-host-to-calls: no gpu.binary @")
             << module << " (run gpu-module-to-binary first)";
    return std::make_pair(library, image);
  }

  LogicalResult lower(gpu::LaunchFuncOp launch) {
    ModuleOp module = getOperation();
    StringRef modName = launch.getKernelModuleName().getValue();
    StringRef kernelName = launch.getKernelName().getValue();
    auto slots = images(launch, modName);
    if (failed(slots))
      return failure();
    std::string id = (modName + "_" + kernelName).str();
    LLVM::GlobalOp kernelSlot =
        getOrCreateGlobal("__pw_kernel_" + id, std::nullopt);
    LLVM::GlobalOp nameStr = getOrCreateGlobal("__pw_name_" + id, kernelName);

    Location loc = launch.getLoc();
    auto fn = launch->getParentOfType<func::FuncOp>();
    OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
    OpBuilder b(launch);
    auto i32 = b.getI32Type(), i64 = b.getI64Type();
    Value one = LLVM::ConstantOp::create(entry, loc, i64, 1);
    unsigned n = launch.getNumKernelOperands();
    Value array = LLVM::AllocaOp::create(
        entry, loc, ptrType(), ptrType(),
        LLVM::ConstantOp::create(entry, loc, i64, std::max(n, 1u)));
    for (auto [i, v] : llvm::enumerate(launch.getKernelOperands())) {
      Value value = v;
      if (isa<MemRefType>(v.getType()))
        value = memrefPointer(b, loc, v, /*withOffset=*/false);
      else if (isa<IndexType>(v.getType()))
        value = arith::IndexCastOp::create(b, loc, i64, v);
      Value slot =
          LLVM::AllocaOp::create(entry, loc, ptrType(), value.getType(), one);
      LLVM::StoreOp::create(b, loc, value, slot);
      Value addr =
          LLVM::GEPOp::create(b, loc, ptrType(), ptrType(), array,
                              ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, loc, slot, addr);
    }
    auto toI32 = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, loc, i32, v);
    };
    auto type = b.getFunctionType({ptrType(), ptrType(), ptrType(), ptrType(),
                                   i32, i32, i32, ptrType(), ptrType()},
                                  {});
    func::FuncOp decl = getOrCreateDecl(module, "pw_cuda_launch", type);
    SmallVector<Value> args = {address(b, loc, slots->first),
                               address(b, loc, kernelSlot),
                               address(b, loc, slots->second),
                               address(b, loc, nameStr),
                               toI32(launch.getGridSizeX()),
                               toI32(launch.getBlockSizeX()),
                               arith::ConstantIntOp::create(b, loc, i32, 0),
                               array,
                               getStream(launch)};
    func::CallOp::create(b, loc, decl, args);
    launch.erase();
    return success();
  }

  LogicalResult lower(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return alloc.emitError("pipe-gpu-host-to-calls: only static, identity "
                             "layout allocations are supported, got ")
             << type;
    OpBuilder b(alloc);
    Location loc = alloc.getLoc();
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    auto decl = getOrCreateDecl(
        getOperation(), "pw_cuda_alloc",
        b.getFunctionType({b.getI64Type(), ptrType()}, {ptrType()}));
    Value size = arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes);
    Value ptr =
        func::CallOp::create(b, loc, decl, ValueRange{size, getStream(alloc)})
            .getResult(0);
    alloc.replaceAllUsesWith(buildContiguousMemRef(b, loc, ptr, type));
    alloc.erase();
    return success();
  }

  LogicalResult lower(memref::DeallocOp dealloc) {
    OpBuilder b(dealloc);
    Location loc = dealloc.getLoc();
    auto decl = getOrCreateDecl(getOperation(), "pw_cuda_free",
                                b.getFunctionType({ptrType(), ptrType()}, {}));
    Value ptr = memrefPointer(b, loc, dealloc.getMemref(), false);
    func::CallOp::create(b, loc, decl, ValueRange{ptr, getStream(dealloc)});
    dealloc.erase();
    return success();
  }

  LogicalResult lower(memref::GetGlobalOp get) {
    auto modRef = get->getAttrOfType<FlatSymbolRefAttr>("pipewave.gpu_module");
    if (!modRef)
      return get.emitError("pipe-gpu-host-to-calls: host read of global ")
             << get.getNameAttr()
             << " not placed on the device (run pipe-gpu-map-kernels)";
    auto slots = images(get, modRef.getValue());
    if (failed(slots))
      return failure();
    MemRefType type = get.getType();
    if (!type.getLayout().isIdentity())
      return get.emitError("pipe-gpu-host-to-calls: global with a layout");
    LLVM::GlobalOp nameStr = getOrCreateGlobal(
        ("__pw_gname_" + modRef.getValue() + "_" + get.getName()).str(),
        get.getName());
    OpBuilder b(get);
    Location loc = get.getLoc();
    auto decl = getOrCreateDecl(
        getOperation(), "pw_cuda_global",
        b.getFunctionType({ptrType(), ptrType(), ptrType()}, {ptrType()}));
    Value ptr = func::CallOp::create(b, loc, decl,
                                     ValueRange{address(b, loc, slots->first),
                                                address(b, loc, slots->second),
                                                address(b, loc, nameStr)})
                    .getResult(0);
    get.replaceAllUsesWith(buildContiguousMemRef(b, loc, ptr, type));
    get.erase();
    return success();
  }
};

} // namespace

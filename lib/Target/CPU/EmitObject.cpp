//===- EmitObject.cpp - Host object code from LLVM IR ---------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Target/CPU.h"

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <memory>

using namespace llvm;

namespace {

std::unique_ptr<TargetMachine> hostMachine(unsigned optLevel,
                                           std::string &error) {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  Triple triple(sys::getProcessTriple());
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  SubtargetFeatures features;
  for (const auto &feature : sys::getHostCPUFeatures())
    features.AddFeature(feature.getKey(), feature.getValue());
  CodeGenOptLevel level = optLevel == 0   ? CodeGenOptLevel::None
                          : optLevel == 1 ? CodeGenOptLevel::Less
                          : optLevel == 2 ? CodeGenOptLevel::Default
                                          : CodeGenOptLevel::Aggressive;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, sys::getHostCPUName(), features.getString(), TargetOptions(),
      Reloc::PIC_, std::nullopt, level));
  if (!tm)
    error = "cannot create a target machine for " + triple.str();
  return tm;
}

} // namespace

bool pipewave::target::setHostTarget(Module &module, std::string &error) {
  std::unique_ptr<TargetMachine> tm = hostMachine(2, error);
  if (!tm)
    return false;
  module.setTargetTriple(tm->getTargetTriple());
  module.setDataLayout(tm->createDataLayout());
  return true;
}

bool pipewave::target::optimizeAndEmitObject(Module &module, unsigned optLevel,
                                             raw_pwrite_stream *os,
                                             std::string &error) {
  std::unique_ptr<TargetMachine> tm = hostMachine(optLevel, error);
  if (!tm)
    return false;
  module.setTargetTriple(tm->getTargetTriple());
  module.setDataLayout(tm->createDataLayout());

  auto optimize =
      mlir::makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, tm.get());
  if (Error err = optimize(&module)) {
    error = toString(std::move(err));
    return false;
  }
  if (!os)
    return true;
  legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, *os, nullptr, CodeGenFileType::ObjectFile)) {
    error = "the target machine cannot emit object files";
    return false;
  }
  pm.run(module);
  return true;
}

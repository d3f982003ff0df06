//===- StableHLOFuzzer.cpp - libFuzzer target for the StableHLO importer --===//
//
// Part of the pipewave project.
//
// Every input is the text of a StableHLO module, as JAX's `as_text()` or the
// generic form prints it: it goes through the whole importer (the stablehlo
// and chlo dialects' parsers and verifiers, the inliner, stablehlo-to-tosa,
// the canonicalizer, the entry-function marking and the final
// verification). The importer must return a module or an error message;
// anything else (a crash, a sanitizer report, an assertion) is a bug.
//
// As in SchedFuzzer.cpp, one MLIR context serves kInputsPerContext inputs
// before it is rebuilt (building it and loading the dialects took most of
// an input's time); a reproducer run alone gets a fresh context.
//
//===----------------------------------------------------------------------===//

#include "ImporterContract.h"

#include "pipewave/Import/StableHLOImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {
constexpr int kInputsPerContext = 1000;

struct Session {
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  int inputs = 0;

  Session() {
    // The error string is enough; don't print the diagnostics.
    context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<Session> session;
  if (!session || session->inputs >= kInputsPerContext)
    session = std::make_unique<Session>();
  ++session->inputs;
  pipewave::StableHLOImportOptions options; // no parameter values
  // Files without argument names still reach the conversion.
  options.numParams = 0;
  std::string error;
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.stablehlo.mlir");
  auto module =
      pipewave::importStableHLOBuffer(std::move(buffer), "fuzz.stablehlo.mlir",
                                      session->context, options, error);
  pipewave::fuzz::checkImporterResult(static_cast<bool>(module), error);
  return 0;
}

//===- ImporterContract.h - What importer fuzz targets check ----*- C++ -*-===//
//-*-===//
//
// Part of the pipewave project.
//
// An importer either returns a module and no error, or no module and an
// error message; anything else is a bug the fuzzer reports (abort).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_FUZZ_IMPORTERCONTRACT_H
#define PIPEWAVE_FUZZ_IMPORTERCONTRACT_H

#include <cstdio>
#include <cstdlib>
#include <string>

namespace pipewave::fuzz {

/// Aborts unless exactly one of a module and an error message came back.
inline void checkImporterResult(bool gotModule, const std::string &error) {
  if (!gotModule && error.empty()) {
    std::fprintf(stderr, "importer failed without an error message\n");
    std::abort();
  }
  if (gotModule && !error.empty()) {
    std::fprintf(stderr, "importer returned a module and an error: %s\n",
                 error.c_str());
    std::abort();
  }
}

} // namespace pipewave::fuzz

#endif // PIPEWAVE_FUZZ_IMPORTERCONTRACT_H

//===- ModelCheck.h - Validation of a compiled pw_model ---------*- C++ -*-===//
//
// Part of the pipewave project.
//
// validateModel() checks everything the executor relies on, once, before any
// communication: ABI version, array pointers, stage argument sources and
// shapes (microbatch shapes consistent with the global inputs and with the
// previous stage's results), output combination, and every rank's action
// list (kinds, held stages, microbatch, peer and tag ranges, forward-only
// models holding only F/send/recv of activations).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_MODELCHECK_H
#define PIPEWAVE_RUNTIME_MODELCHECK_H

#include "pipewave-runtime/model.h"

#include <string>

namespace pipewave::runtime {

/// Throws Error (ExitBadModel) describing the first problem found.
void validateModel(const pw_model &model);

/// Name of model input `index`, or "input<index>" when it has none.
std::string inputName(const pw_model &model, int index);

/// Name of model output `index`, or "output<index>" when it has none.
std::string outputName(const pw_model &model, int index);

/// The first rank holding the last stage (prints step times and outputs).
int outputRank(const pw_model &model);

/// True when `rank` holds `stage`.
bool rankHoldsStage(const pw_model &model, int rank, int stage);

/// "F", "B", "I", "W", "send", "recv", "allreduce", "optimizer".
const char *actionKindName(int kind);

/// "act" or "grad".
const char *payloadName(int payload);

/// "F stage 1 mb 3", "send act stage 0 mb 3 to rank 1",
/// "recv grad stage 0 mb 2 from rank 1", "allreduce stage 0",
/// "optimizer stage 0".
std::string describeAction(const pw_action &action);

/// Short trace name: "F s1 mb3", "send act s0 mb3", "allreduce s0".
std::string traceName(const pw_action &action);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_MODELCHECK_H

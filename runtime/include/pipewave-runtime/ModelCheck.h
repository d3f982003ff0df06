//===- ModelCheck.h - Validation of a compiled pw_model ---------*- C++ -*-===//
//
// Part of the pipewave project.
//
// validateModel() checks everything the executor relies on, once, before any
// communication: ABI version, array pointers, stage argument sources and
// shapes (microbatch shapes consistent with the global inputs and with the
// previous stage's results), output combination, every rank's action list
// (kinds, held stages, microbatch, peer and tag ranges, forward-only models
// holding only F/send/recv of activations), the data-parallel layout
// (replicas) and, for training models, the backward functions and their
// tensors, the loss output and the trained parameters.
//
// Data-parallel replicas: when several ranks hold a stage, they are its
// replicas. Every stage must have the same number R of them, and a rank's
// stages must all belong to the same replica: replica k of stage s is the
// k-th rank (ascending) among those holding s. Each step's global batch
// (dimension 0 of the data inputs, `pw_model.inputs`) is split into R
// contiguous parts, replica k taking part k, and each part into the
// microbatches, so a stage's data arguments have dimension 0 equal to the
// global batch / (R * num_microbatches).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_MODELCHECK_H
#define PIPEWAVE_RUNTIME_MODELCHECK_H

#include "pipewave-runtime/model.h"

#include <string>
#include <vector>

namespace pipewave::runtime {

/// Throws Error (ExitBadModel) describing the first problem found.
void validateModel(const pw_model &model);

/// Name of model input `index`, or "input<index>" when it has none.
std::string inputName(const pw_model &model, int index);

/// Name of model output `index`, or "output<index>" when it has none.
std::string outputName(const pw_model &model, int index);

/// The first rank holding the last stage (prints step times and outputs).
int outputRank(const pw_model &model);

/// The ranks holding `stage`, ascending (its data-parallel replicas).
std::vector<int> stageHolders(const pw_model &model, int stage);

/// Number of data-parallel replicas (ranks holding stage 0).
int numReplicas(const pw_model &model);

/// The replica a rank belongs to: its position among the holders of its
/// first stage.
int replicaOf(const pw_model &model, int rank);

/// True for the data input the runtime fills with the step counter
/// (pw_model::input_is_counter).
bool isCounterInput(const pw_model &model, int input);

/// True for a data input read from the user's data (neither a parameter
/// nor the step counter): each step reads one global batch of it.
bool isBatchInput(const pw_model &model, int input);

/// True for a training model whose trained parameter `input` (a model
/// input that is a parameter) gets a gradient from some stage.
bool isTrainedParameter(const pw_model &model, int input);

/// The stages that take model input `input` as a parameter argument,
/// ascending. A trained parameter with several is tied: see model.h.
std::vector<int> parameterUsers(const pw_model &model, int input);

/// The ranks holding a stage that takes parameter `input`, ascending. A
/// checkpoint stores the parameter (and its optimizer state) once, in the
/// file of the first of them, unless it is stage state.
std::vector<int> parameterHolders(const pw_model &model, int input);

/// True when parameter `input` is the state of a stage (a state argument:
/// BatchNorm's running statistics), which each holder keeps its own of.
bool isStageState(const pw_model &model, int input);

/// The tied all-reduces of a training model: one on every rank holding a
/// user stage of a tied trained parameter, with the lowest user stage the
/// rank holds, a group of one holder of each user stage, after the
/// backwards of the user stages on the rank and the all-reduce of its
/// stage, before that stage's optimizer step. Throws Error (ExitBadModel).
void checkTiedParameters(const pw_model &model);

/// An argument of a stage's backward (args..., stash..., d_res...): which
/// list it is in and its index there (for a result gradient, the result's
/// index among the stage's results).
struct BackwardArg {
  enum Kind { Argument, Stash, ResultGradient } kind = Argument;
  int index = 0;
};

/// Backward argument `index` of `stage`; kind Argument with index -1 when
/// it is out of range.
BackwardArg backwardArg(const pw_stage &stage, int index);

/// The backward argument weight stash value `k` of `stage` is (passed
/// through backward_input to backward_weight), or -1 when backward_input
/// computes it (model.h, wstash_source).
int wstashSource(const pw_stage &stage, int k);

/// The weight stash values backward_input computes (the rest it passes
/// through).
int numComputedWStash(const pw_stage &stage);

/// True when `rank` holds `stage`.
bool rankHoldsStage(const pw_model &model, int rank, int stage);

/// "F", "B", "I", "W", "send", "recv", "allreduce", "optimizer", "tied".
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

//===- Tied.h - All-reduces of parameters shared by stages ------*- C++ -*-===//
//
// A trained parameter that several stages use (a tied parameter: a token
// embedding the output head also reads) has a copy on every rank holding
// one of those stages. addTiedAllReduces() gives every such rank a
// TiedAllReduce of the parameter among one holder of each user stage of its
// data-parallel replica (the k-th rank holding a stage, in ascending order,
// is replica k), so that the copies' gradients are summed before each copy
// applies the same optimizer update.
//
// On a rank that holds a user stage, the all-reduces and optimizer steps
// move behind its other actions, in the order: AllReduce (replicas, in their
// original order), TiedAllReduce (in the order of `tied`), OptimizerStep (in
// their original order). Every rank thus enters the tied all-reduces in the
// same order once its backward work is done, which cannot deadlock.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_TIED_H
#define PIPEWAVE_SCHEDULE_TIED_H

#include "pipewave/Schedule/Generate.h"

#include <string>
#include <vector>

namespace pipewave::schedule {

/// A parameter and the stages that use it (two or more, sorted).
struct TiedParameter {
  std::string name;
  std::vector<int> users;
};

/// `program` (a training program, replicas included) with the tied
/// all-reduces of `tied`; fails when the user stages have different replica
/// counts.
BuildResult addTiedAllReduces(const Program &program,
                              const std::vector<TiedParameter> &tied);

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_TIED_H

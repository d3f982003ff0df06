//===- DeviceArena.cpp - One device block per rank, carved by offsets -----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/DeviceArena.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Tensor.h"

#include <algorithm>
#include <set>
#include <vector>

namespace pipewave::runtime {

size_t DeviceArena::allocate(size_t bytes) {
  if (bytes > total)
    return npos;
  size_t size = alignUp(bytes);
  if (size > total || top > total - size)
    return npos;
  size_t offset = top;
  if (size == 0)
    return offset;
  pieces.push_back({offset, size, true});
  top += size;
  highest = std::max(highest, top);
  return offset;
}

void DeviceArena::release(size_t offset) {
  for (Piece &piece : pieces)
    if (piece.live && piece.offset == offset) {
      piece.live = false;
      break;
    }
  while (!pieces.empty() && !pieces.back().live) {
    top = pieces.back().offset;
    pieces.pop_back();
  }
}

void DeviceArena::reset() {
  pieces.clear();
  top = 0;
}

size_t stageWorkspaceBytes(const pw_model &model,
                           const pw_rank_program &program) {
  int64_t most = 0;
  for (int k = 0; k < program.num_stages; ++k) {
    const pw_stage &stage = model.stages[program.stages[k]];
    most = std::max(
        {most, stage.forward_workspace, stage.backward_workspace,
         stage.backward_input_workspace, stage.backward_weight_workspace,
         stage.backward_acc_workspace, stage.backward_weight_acc_workspace});
  }
  return static_cast<size_t>(most);
}

size_t deviceMemoryBound(const pw_model &model, const ExecPlan &plan,
                         const OptimizerConfig &optimizer,
                         const std::vector<void *> &inputs) {
  const pw_rank_program &program = model.ranks[plan.rank];
  size_t total = alignUp(stageWorkspaceBytes(model, program));
  // Device copies of the inputs given; two of each batch input, one of them
  // filled ahead by Executor::prefetchInput().
  for (size_t i = 0; i < inputs.size() && i < size_t(model.num_inputs); ++i)
    if (inputs[i])
      total += alignUp(tensorBytes(model.inputs[i])) *
               (isBatchInput(model, static_cast<int>(i)) ? 2 : 1);
  for (const ExecPool &pool : plan.pools)
    total += alignUp(pool.bytes * static_cast<size_t>(pool.slots));
  // Outputs, on the rank that collects them.
  for (const ExecAction &action : plan.actions)
    if (action.collectOutputs) {
      for (int o = 0; o < model.num_outputs; ++o)
        total += alignUp(tensorBytes(model.outputs[o]));
      break;
    }
  if (model.forward_only)
    return total;
  size_t states = optimizerStateNames(optimizer).size();
  for (int k = 0; k < program.num_stages; ++k) {
    int s = program.stages[k];
    const pw_stage &stage = model.stages[s];
    // Flat gradients (at most every parameter argument once), their
    // optimizer state, and the scratch for every gradient argument.
    std::set<int> params;
    size_t flat = 0, scratch = 0;
    for (int g = 0; g < stage.num_grad_args; ++g) {
      int a = stage.grad_args[g];
      size_t bytes = tensorBytes(stage.args[a]);
      scratch += alignUp(bytes);
      if (stage.arg_source[a] == PW_FROM_PARAM &&
          params.insert(stage.arg_index[a]).second) {
        size_t paramBytes = tensorBytes(model.inputs[stage.arg_index[a]]);
        flat += paramBytes;
        total += states * alignUp(paramBytes);
      }
    }
    total += alignUp(flat) + alignUp(scratch);
    // The last stage's seed, packed like its results.
    if (s == model.num_stages - 1)
      for (int r = 0; r < stage.num_results; ++r)
        total += alignUp(tensorBytes(stage.results[r]));
  }
  return total;
}

} // namespace pipewave::runtime

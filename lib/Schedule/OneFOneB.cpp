//===- OneFOneB.cpp - 1F1B schedule generator -----------------------------===//
//
// Non-interleaved 1F1B with early backward (DAPPLE; Megatron-LM's
// forward_backward_pipelining_without_interleaving). Stage s runs
//   w = min(S-s-1, M) warm-up forwards,
//   M-w steady iterations of (F(w+i), B(i)),
//   w cool-down backwards,
// then its optimizer step.
//
// Message order and rendezvous sends
// ----------------------------------
// Placing every Recv right before its consumer and every Send right after its
// producer deadlocks under rendezvous: in the steady state stage s would do
//   F(w+i), send act(w+i), recv grad(i), B(i)
// while stage s+1 (which has one warm-up forward less) does
//   F(w-1+i), B(i), send grad(i), recv act(w+i)
// so both sides sit in a Send to each other. Like Megatron's combined
// send_forward_recv_backward, stage s instead receives grad(i) *before*
// sending act(w+i):
//   F(w+i), recv grad(i), send act(w+i), B(i), send grad(i)
// This keeps every Recv before its consumer and every Send after its
// producer, and now both neighbours order the messages across their boundary
// identically: act(0..w-1), then the pairs (grad(i), act(w+i)), then the
// remaining gradients. (When w = M on both sides there is no steady state and
// the order is simply all activations, then all gradients.)
//
// With a common per-boundary order the program cannot deadlock: a rank can
// only wait on a neighbour, two neighbours waiting on each other would both
// be at the head of their (identical) message sequence across that boundary
// and so at the same message, and a chain of ranks each waiting on the next
// in one direction ends at the first or last stage, which has no neighbour
// in that direction. Hence some rank can always proceed.
//
// The timing is unchanged: sends are asynchronous for the simulator and the
// gradient is needed by B(i) anyway.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include "RankBuilder.h"

#include <algorithm>

namespace pipewave::schedule {

BuildResult build1F1B(int numStages, int numMicrobatches) {
  if (auto error = detail::checkShape(numStages, numMicrobatches))
    return BuildResult::failure("1f1b: " + *error);

  Program program =
      detail::makeLinearProgram(numStages, numMicrobatches, "1f1b");
  for (int stage = 0; stage < numStages; ++stage) {
    detail::RankBuilder builder(program, /*rank=*/stage);
    int warmup = std::min(numStages - stage - 1, numMicrobatches);

    for (int m = 0; m < warmup; ++m)
      builder.forward(stage, m);

    for (int i = 0; i < numMicrobatches - warmup; ++i) {
      int m = warmup + i;
      builder.recvActivation(stage, m);
      builder.compute(ActionKind::Forward, stage, m);
      // Receive the gradient before sending the activation; see above.
      builder.recvGradient(stage, i);
      builder.sendActivation(stage, m);
      builder.compute(ActionKind::Backward, stage, i);
      builder.sendGradient(stage, i);
    }

    for (int m = numMicrobatches - warmup; m < numMicrobatches; ++m)
      builder.backward(stage, m);

    builder.optimizerStep(stage);
  }
  return BuildResult::success(std::move(program));
}

ScheduleFamily oneFOneBFamily() {
  ScheduleFamily family;
  family.name = "1f1b";
  family.summary = "1F1B with DAPPLE's early backward";
  // A forward-only 1F1B is GPipe's forward half.
  family.build = [](const FamilyBuildArgs &args) {
    return args.forwardOnly
               ? buildGPipe(args.numStages, args.numMicrobatches, true)
               : build1F1B(args.numStages, args.numMicrobatches);
  };
  family.bubble = [](int ranks, int, int microbatches) {
    double p = ranks, m = microbatches;
    return (p - 1) / (m + p - 1);
  };
  return family;
}

} // namespace pipewave::schedule

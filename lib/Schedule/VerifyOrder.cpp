//===- VerifyOrder.cpp - Verifier: local dependency order -----------------===//

#include "VerifyChecks.h"

namespace pipewave::schedule::detail {

namespace {

/// Checks the dependencies of one rank's actions for one microbatch.
class MicrobatchOrder {
public:
  MicrobatchOrder(const Program &program, int rank, const ActionTable &table,
                  Diagnostics &diagnostics)
      : program(program), rank(rank), rankProgram(program.ranks[rank]),
        table(table), diagnostics(diagnostics) {}

  void check(int stage, int microbatch) {
    int forward = table.first(ActionKind::Forward, stage, microbatch);
    int last = program.numStages - 1;

    // Input of F(s, m): F(s-1, m) when local, else Recv(act, s, m).
    if (stage > 0)
      requireInput(forward, stage, microbatch, stage - 1, Payload::Activation);
    // Output of F(s, m) to a remote stage s+1: Send(act, s, m).
    if (stage < last)
      requireOutput(forward, stage, microbatch, stage + 1, Payload::Activation);
    if (program.forwardOnly)
      return;

    int backward = table.backward(stage, microbatch);
    after(backward, forward);
    // Output gradient of B/I(s, m): B/I(s+1, m) when local, else
    // Recv(grad, s, m).
    if (stage < last)
      requireInput(backward, stage, microbatch, stage + 1, Payload::Gradient);
    // Input gradient to a remote stage s-1: Send(grad, s, m).
    if (stage > 0)
      requireOutput(backward, stage, microbatch, stage - 1, Payload::Gradient);
    int weight = table.first(ActionKind::BackwardWeight, stage, microbatch);
    if (weight >= 0)
      after(weight, backward);
  }

private:
  /// The action producing `payload` data of (stage, microbatch) locally.
  int producer(int stage, int microbatch, Payload payload) const {
    return payload == Payload::Activation
               ? table.first(ActionKind::Forward, stage, microbatch)
               : table.backward(stage, microbatch);
  }

  /// `consumer` needs data from `fromStage`: the local producer when that
  /// stage is local, else a Recv.
  void requireInput(int consumer, int stage, int microbatch, int fromStage,
                    Payload payload) {
    if (holdsStage(rankProgram, fromStage)) {
      after(consumer, producer(fromStage, microbatch, payload));
      return;
    }
    int recv = table.first(ActionKind::Recv, stage, microbatch, payload);
    if (recv < 0) {
      report(diagnostics, rank, consumer,
             quote(program, rank, consumer) + " has no recv " +
                 stringify(payload) + " stage " + std::to_string(stage) +
                 " mb " + std::to_string(microbatch) + " (stage " +
                 std::to_string(fromStage) + " is on another rank)");
      return;
    }
    after(consumer, recv);
  }

  /// Data of `producerIndex` goes to `toStage`: a Send after it when that
  /// stage is remote.
  void requireOutput(int producerIndex, int stage, int microbatch, int toStage,
                     Payload payload) {
    if (holdsStage(rankProgram, toStage))
      return;
    int send = table.first(ActionKind::Send, stage, microbatch, payload);
    if (send < 0) {
      report(diagnostics, rank, producerIndex,
             quote(program, rank, producerIndex) + " has no send " +
                 stringify(payload) + " stage " + std::to_string(stage) +
                 " mb " + std::to_string(microbatch) + " (stage " +
                 std::to_string(toStage) + " is on another rank)");
      return;
    }
    after(send, producerIndex);
  }

  /// Reports `consumer` if it comes before `dependency`.
  void after(int consumer, int dependency) {
    if (consumer < 0 || dependency < 0 || consumer > dependency)
      return;
    report(diagnostics, rank, consumer,
           quote(program, rank, consumer) + " comes before " +
               quote(program, rank, dependency) + ", which it depends on");
  }

  const Program &program;
  int rank;
  const RankProgram &rankProgram;
  const ActionTable &table;
  Diagnostics &diagnostics;
};

} // namespace

void checkOrder(const Program &program, const std::vector<ActionTable> &tables,
                Diagnostics &diagnostics) {
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    MicrobatchOrder order(program, static_cast<int>(r), tables[r], diagnostics);
    for (int stage : program.ranks[r].stages)
      for (int m = 0; m < program.numMicrobatches; ++m)
        order.check(stage, m);
  }
}

} // namespace pipewave::schedule::detail

//===- ExecPlanTest.cpp - Tests of buffer slots and early receives --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/ModelCheck.h"

#include "TestModel.h"
#include "TestUtil.h"
#include "pipewave/Schedule/Verify.h"

#include <algorithm>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

const ExecPool *findPool(const ExecPlan &plan, int payload, int stage,
                         bool received) {
  for (const ExecPool &pool : plan.pools)
    if (pool.payload == payload && pool.stage == stage &&
        pool.received == received)
      return &pool;
  return nullptr;
}

/// Index of the action before which receive `recv` is posted, or -1.
int postedBefore(const ExecPlan &plan, int recv) {
  for (size_t i = 0; i < plan.actions.size(); ++i) {
    const auto &posts = plan.actions[i].postBefore;
    if (std::find(posts.begin(), posts.end(), recv) != posts.end())
      return static_cast<int>(i);
  }
  return -1;
}

/// Every receive is posted exactly once, no later than its own position.
void expectReceivesPostedInTime(const pw_model &model, const ExecPlan &plan) {
  const pw_rank_program &program = model.ranks[plan.rank];
  int posted = 0;
  for (const ExecAction &action : plan.actions)
    posted += static_cast<int>(action.postBefore.size());
  int receives = 0;
  for (int i = 0; i < program.num_actions; ++i) {
    if (program.actions[i].kind != PW_ACT_RECV)
      continue;
    ++receives;
    int at = postedBefore(plan, i);
    EXPECT_GE(at, 0) << "rank " << plan.rank << " recv #" << i;
    EXPECT_LE(at, i) << "rank " << plan.rank << " recv #" << i;
  }
  EXPECT_EQ(posted, receives);
}

ModelConfig config(int stages, int microbatches, const std::string &schedule) {
  ModelConfig c;
  c.stages = c.ranks = stages;
  c.microbatches = microbatches;
  c.batch = 2 * microbatches;
  c.schedule = schedule;
  return c;
}

TrainConfig trainConfig(int stages, int microbatches,
                        const std::string &schedule) {
  TrainConfig c;
  c.stages = c.layers = stages;
  c.microbatches = microbatches;
  c.batch = 2 * microbatches;
  c.features = 8;
  c.schedule = schedule;
  return c;
}

} // namespace

TEST(ExecPlanTest, GPipeForwardUsesDoubleBufferedMessages) {
  ArithmeticModel model(config(4, 8, "gpipe"));
  ASSERT_NO_THROW(validateModel(*model.get()));
  for (int rank = 0; rank < 4; ++rank) {
    ExecPlan plan = planExecution(*model.get(), rank);
    expectReceivesPostedInTime(*model.get(), plan);
    const ExecPool *local = findPool(plan, PW_ACTIVATION, rank, false);
    ASSERT_NE(local, nullptr);
    EXPECT_EQ(local->buffers, 8);
    EXPECT_EQ(local->peak, 1);
    // Sent buffers get a spare slot; the last stage's results do not.
    EXPECT_EQ(local->slots, rank < 3 ? 2 : 1);
    // y [2, 8] f32 at 0, c [2] i32 at 64 (+ total at 128 on the last stage).
    EXPECT_EQ(local->offsets[1], 64u);
    EXPECT_EQ(local->bytes, rank < 3 ? 128u : 192u);
    const ExecPool *received = findPool(plan, PW_ACTIVATION, rank - 1, true);
    if (rank == 0) {
      EXPECT_EQ(received, nullptr);
      continue;
    }
    ASSERT_NE(received, nullptr);
    EXPECT_EQ(received->peak, 1);
    EXPECT_EQ(received->slots, 2);
    // Two receive slots: microbatches 0 and 1 are posted at step start.
    EXPECT_EQ(plan.actions[0].postBefore.size(), 2u);
  }
  // Consecutive forwards of rank 0 alternate slots, so F(m+1) never waits
  // for send(m).
  ExecPlan plan = planExecution(*model.get(), 0);
  std::vector<int> slots;
  for (const ExecAction &action : plan.actions)
    if (action.name.rfind("F ", 0) == 0)
      slots.push_back(action.output.slot);
  EXPECT_EQ(slots, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
}

TEST(ExecPlanTest, SpareSlotsPostEveryReceiveAtStepStart) {
  ArithmeticModel model(config(3, 6, "gpipe"));
  ExecPlanOptions options;
  options.spareSlots = 100;
  ExecPlan plan = planExecution(*model.get(), 2, options);
  EXPECT_EQ(findPool(plan, PW_ACTIVATION, 1, true)->slots, 6);
  EXPECT_EQ(plan.actions[0].postBefore.size(), 6u);

  options.spareSlots = 0;
  plan = planExecution(*model.get(), 2, options);
  EXPECT_EQ(findPool(plan, PW_ACTIVATION, 1, true)->slots, 1);
  expectReceivesPostedInTime(*model.get(), plan);
  // One slot: the receive of mb 1 is posted right after F(mb 0) frees it.
  const pw_rank_program &program = model.get()->ranks[2];
  for (int i = 0; i < program.num_actions; ++i)
    if (program.actions[i].kind == PW_ACT_RECV &&
        program.actions[i].microbatch == 1) {
      EXPECT_EQ(program.actions[postedBefore(plan, i) - 1].kind,
                PW_ACT_FORWARD);
    }
}

TEST(ExecPlanTest,
     OneFOneBInFlightActivationsAreMinOfStagesLeftAndMicrobatches) {
  for (int S : {2, 3, 4, 5}) {
    for (int M : {1, 2, 3, 4, 8}) {
      TrainModel model(trainConfig(S, M, "1f1b"));
      ASSERT_TRUE(pipewave::schedule::verify(model.program()).empty());
      ExecPlanOptions minimal;
      minimal.spareSlots = 0;
      for (int s = 0; s < S; ++s) {
        SCOPED_TRACE("S=" + std::to_string(S) + " M=" + std::to_string(M) +
                     " s=" + std::to_string(s));
        ExecPlan plan = planExecution(*model.get(), s, minimal);
        expectReceivesPostedInTime(*model.get(), plan);
        if (s > 0) {
          // Stage inputs are stashed from their receive to B.
          const ExecPool *acts = findPool(plan, PW_ACTIVATION, s - 1, true);
          ASSERT_NE(acts, nullptr);
          EXPECT_EQ(acts->buffers, M);
          EXPECT_EQ(acts->peak, std::min(S - s, M));
          EXPECT_EQ(acts->slots, std::min(S - s, M));
          // Input gradients are produced by B and sent at once.
          const ExecPool *grads = findPool(plan, PW_GRADIENT, s - 1, false);
          ASSERT_NE(grads, nullptr);
          EXPECT_EQ(grads->peak, 1);
        }
        if (s < S - 1) {
          const ExecPool *grads = findPool(plan, PW_GRADIENT, s, true);
          ASSERT_NE(grads, nullptr);
          EXPECT_EQ(grads->peak, 1);
          const ExecPool *out = findPool(plan, PW_ACTIVATION, s, false);
          ASSERT_NE(out, nullptr);
          EXPECT_TRUE(out->sent);
          EXPECT_EQ(out->peak, 1);
        }
      }
    }
  }
}

TEST(ExecPlanTest, OneFOneBWithSpareSlotsStillPostsInTime) {
  TrainModel model(trainConfig(4, 8, "1f1b"));
  for (int s = 0; s < 4; ++s) {
    ExecPlan plan = planExecution(*model.get(), s);
    expectReceivesPostedInTime(*model.get(), plan);
    if (s > 0) {
      EXPECT_EQ(findPool(plan, PW_ACTIVATION, s - 1, true)->slots,
                std::min(4 - s + 1, 8));
    }
  }
}

TEST(ExecPlanTest, LocalStageHandoffNeedsNoMessage) {
  ModelConfig c;
  c.stages = 4;
  c.ranks = 2;
  c.microbatches = 4;
  c.placement = Placement::Contiguous;
  ArithmeticModel model(c);
  ASSERT_NO_THROW(validateModel(*model.get()));
  ASSERT_TRUE(pipewave::schedule::verify(model.program()).empty());
  ExecPlan plan = planExecution(*model.get(), 0);
  const ExecPool *handoff = findPool(plan, PW_ACTIVATION, 0, false);
  ASSERT_NE(handoff, nullptr);
  EXPECT_FALSE(handoff->sent);
  EXPECT_EQ(handoff->slots, 1);
  EXPECT_TRUE(findPool(plan, PW_ACTIVATION, 1, false)->sent);
  // F(1, m) reads the slot F(0, m) wrote.
  EXPECT_EQ(plan.actions[1].input.pool, plan.actions[0].output.pool);
  EXPECT_EQ(plan.actions[1].input.slot, plan.actions[0].output.slot);
  EXPECT_NE(
      describeExecPlan(plan).find("rank 0: pool act s0: 4 buffers, peak 1, "
                                  "1 slots of 192 B"),
      std::string::npos)
      << describeExecPlan(plan);
}

TEST(ExecPlanTest, SendsLeaveRightAfterTheActionThatComputesThem) {
  // Interleaved 1F1B on 2 ranks places some sends one or more compute
  // actions after their producer (ComputeOrder.h); the plan issues every
  // send right after the F, B or I that computes its buffer instead.
  TrainModel model(trainConfig(4, 4, "interleaved"));
  ASSERT_NO_THROW(validateModel(*model.get()));
  int later = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const pw_rank_program &program = model.get()->ranks[rank];
    ExecPlan plan = planExecution(*model.get(), rank);
    expectReceivesPostedInTime(*model.get(), plan);
    std::vector<int> issuedAfter(program.num_actions, -1);
    for (int i = 0; i < program.num_actions; ++i)
      for (int send : plan.actions[i].sendAfter) {
        EXPECT_EQ(issuedAfter[send], -1) << "send #" << send << " twice";
        issuedAfter[send] = i;
      }
    for (int i = 0; i < program.num_actions; ++i) {
      const pw_action &action = program.actions[i];
      if (action.kind != PW_ACT_SEND) {
        EXPECT_FALSE(plan.actions[i].sentEarly);
        continue;
      }
      EXPECT_TRUE(plan.actions[i].sentEarly) << "send #" << i;
      int producer = issuedAfter[i];
      ASSERT_GE(producer, 0) << "send #" << i;
      ASSERT_LT(producer, i);
      const pw_action &made = program.actions[producer];
      EXPECT_EQ(made.kind, action.payload == PW_ACTIVATION ? PW_ACT_FORWARD
                                                           : PW_ACT_BACKWARD);
      EXPECT_EQ(made.stage, action.stage);
      EXPECT_EQ(made.microbatch, action.microbatch);
      // The send reads the slot its producer wrote.
      EXPECT_EQ(plan.actions[i].input.pool, plan.actions[producer].output.pool);
      EXPECT_EQ(plan.actions[i].input.slot, plan.actions[producer].output.slot);
      later += producer < i - 1;
    }
  }
  EXPECT_GT(later, 0) << "no send of this schedule is placed late";

  // Off: every send is issued at its place.
  ExecPlanOptions options;
  options.earlySends = false;
  for (int rank = 0; rank < 2; ++rank) {
    ExecPlan plan = planExecution(*model.get(), rank, options);
    for (const ExecAction &action : plan.actions) {
      EXPECT_TRUE(action.sendAfter.empty());
      EXPECT_FALSE(action.sentEarly);
    }
  }
}

TEST(ExecPlanTest, RejectsUseBeforeDefinition) {
  ArithmeticModel model(config(2, 2, "gpipe"));
  // Rank 1: recv(0), F(0), recv(1), F(1) -> swap the first two.
  auto *actions = const_cast<pw_action *>(model.get()->ranks[1].actions);
  ASSERT_EQ(actions[0].kind, PW_ACT_RECV);
  std::swap(actions[0], actions[1]);
  std::string error = PW_ERROR_OF(planExecution(*model.get(), 1));
  EXPECT_NE(error.find("rank 1 action 0 ('F stage 1 mb 0') needs the results "
                       "of stage 0 mb 0, which no earlier action of the rank "
                       "computes or receives"),
            std::string::npos)
      << error;
}

TEST(ExecPlanTest, WeightStashPassedThroughLivesUntilW) {
  // ZB-H1 on 2 stages, 2 layers each: W takes h0 (the stage input: x on
  // stage 0, the received activation on stage 1) and h1 (a stash value)
  // where I read them; only the dz's are in the wstash slots.
  TrainConfig passed = trainConfig(2, 4, "zb-h1");
  passed.layers = 4;
  TrainConfig copied = passed;
  copied.copyWStash = true;
  TrainModel withPassing(passed), withCopies(copied);
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    ExecPlan plan = planExecution(*withPassing.get(), rank);
    ExecPlan copies = planExecution(*withCopies.get(), rank);
    expectReceivesPostedInTime(*withPassing.get(), plan);
    const ExecPool *wstash = findPool(plan, kWStashBuffer, rank, false);
    const ExecPool *wcopies = findPool(copies, kWStashBuffer, rank, false);
    ASSERT_NE(wstash, nullptr);
    ASSERT_NE(wcopies, nullptr);
    EXPECT_EQ(wstash->offsets.size(), 2u);  // dz0, dz1
    EXPECT_EQ(wcopies->offsets.size(), 4u); // dz0, h0, dz1, h1
    for (size_t i = 0; i < plan.actions.size(); ++i) {
      const pw_action &action = withPassing.get()->ranks[rank].actions[i];
      const ExecAction &step = plan.actions[i];
      if (action.kind != PW_ACT_BACKWARD_WEIGHT)
        continue;
      EXPECT_TRUE(step.wstash.valid());
      EXPECT_TRUE(step.stash.valid()) << step.name;
      // Stage 1's h0 is the received activation; stage 0's is data.
      EXPECT_EQ(step.input.valid(), rank == 1) << step.name;
      EXPECT_FALSE(step.gradient.valid()) << step.name;
      // The stash is released at W, not at I.
      bool releasesStash = false;
      for (const SlotRef &ref : step.release)
        releasesStash |= plan.pools[ref.pool].payload == kStashBuffer;
      EXPECT_TRUE(releasesStash) << step.name;
      EXPECT_FALSE(copies.actions[i].stash.valid()) << step.name;
    }
  }
}

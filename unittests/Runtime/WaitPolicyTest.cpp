//===- WaitPolicyTest.cpp - How a rank waits for a message ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/WaitPolicy.h"

#include <gtest/gtest.h>

using namespace pipewave::runtime;

TEST(WaitPolicyTest, RanksWithCoresOfTheirOwnSpin) {
  WaitPolicy p = chooseWaitPolicy(WaitMode::Auto, 2, 2, 1, nullptr);
  EXPECT_EQ(p.description, "spin (2 local ranks on 2 CPUs)");
  EXPECT_EQ(p.spinSeconds, 2e-3);
  EXPECT_EQ(p.yieldSeconds, 50e-3);
  EXPECT_EQ(chooseWaitPolicy(WaitMode::Auto, 16, 4, 4, "0").description,
            "spin (4 local ranks x 4 GEMM threads on 16 CPUs)");
  // No launcher: one rank, whatever the thread count says.
  EXPECT_EQ(chooseWaitPolicy(WaitMode::Auto, 1, 0, 0, nullptr).description,
            "spin (1 local ranks on 1 CPUs)");
}

TEST(WaitPolicyTest, RanksThatShareCoresYield) {
  WaitPolicy p = chooseWaitPolicy(WaitMode::Auto, 2, 4, 1, nullptr);
  EXPECT_EQ(p.description, "yield (4 local ranks on 2 CPUs)");
  EXPECT_EQ(p.spinSeconds, 5e-6);
  EXPECT_EQ(p.yieldSeconds, 1e-3);
  // The ranks fit, their GEMM threads do not.
  EXPECT_EQ(chooseWaitPolicy(WaitMode::Auto, 16, 4, 5, nullptr).description,
            "yield (4 local ranks x 5 GEMM threads on 16 CPUs)");
  // Open MPI knows the slots (a cpuset, a hostfile) better than the count
  // of online CPUs.
  EXPECT_EQ(chooseWaitPolicy(WaitMode::Auto, 64, 2, 1, "1").description,
            "yield (the launcher oversubscribes this host)");
}

TEST(WaitPolicyTest, TheOptionDecidesFirst) {
  EXPECT_EQ(chooseWaitPolicy(WaitMode::Spin, 1, 8, 1, "1").description,
            "spin (--wait spin)");
  EXPECT_EQ(chooseWaitPolicy(WaitMode::Yield, 64, 1, 1, nullptr).description,
            "yield (--wait yield)");
}

TEST(WaitPolicyTest, AWaitSpinsThenYieldsThenSleeps) {
  WaitPolicy spin = spinningPolicy("test");
  EXPECT_EQ(waitPhase(spin, 0), WaitPhase::Spin);
  EXPECT_EQ(waitPhase(spin, 1.9e-3), WaitPhase::Spin);
  EXPECT_EQ(waitPhase(spin, 2e-3), WaitPhase::Yield);
  EXPECT_EQ(waitPhase(spin, 49e-3), WaitPhase::Yield);
  EXPECT_EQ(waitPhase(spin, 50e-3), WaitPhase::Sleep);
  WaitPolicy yield = yieldingPolicy("test");
  EXPECT_EQ(waitPhase(yield, 4e-6), WaitPhase::Spin);
  EXPECT_EQ(waitPhase(yield, 5e-6), WaitPhase::Yield);
  EXPECT_EQ(waitPhase(yield, 1e-3), WaitPhase::Sleep);
  // The default of a backend nobody configured shares its core.
  EXPECT_EQ(WaitPolicy().spinSeconds, 5e-6);
  EXPECT_EQ(createLocalBackend()->waitingPolicy().description, "yield");
}

TEST(WaitPolicyTest, TheWatchdogFiresWhileSpinning) {
  // A spin phase longer than the timeout: the clock is still read.
  auto backend = createLocalBackend();
  backend->setWaitPolicy({10.0, 20.0, "spin (test)"});
  backend->setTimeout(0.05);
  float in = 0;
  RequestId recv = backend->irecv(&in, 4, 0, 3);
  std::string error = PW_ERROR_OF(backend->wait(recv, "recv act mb 0"));
  EXPECT_NE(error.find("timed out after 0.05 s waiting for 'recv act mb 0'"),
            std::string::npos)
      << error;
}

TEST(WaitPolicyTest, OnlineCpusAreCounted) { EXPECT_GE(onlineCpus(), 1); }

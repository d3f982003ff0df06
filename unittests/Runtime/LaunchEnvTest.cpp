//===- LaunchEnvTest.cpp - Rank and world size from the launcher ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/LaunchEnv.h"

#include "TestUtil.h"

using namespace pipewave::runtime;

namespace {

using Env = std::map<std::string, std::string>;

std::string errorOf(const Env &env) { return PW_ERROR_OF(parseLaunchEnv(env)); }

} // namespace

TEST(LaunchEnvTest, NothingSetIsRankZeroOfOne) {
  LaunchEnv env = parseLaunchEnv(Env{});
  EXPECT_EQ(env.source, LaunchSource::None);
  EXPECT_EQ(env.rank, 0);
  EXPECT_EQ(env.worldSize, 1);
  EXPECT_EQ(env.localRank, 0);
  EXPECT_EQ(env.localWorldSize, 1);
  EXPECT_EQ(env.masterAddr, "");
  EXPECT_EQ(env.masterPort, 0);
}

TEST(LaunchEnvTest, Torchrun) {
  LaunchEnv env = parseLaunchEnv(Env{{"RANK", "5"},
                                     {"WORLD_SIZE", "8"},
                                     {"LOCAL_RANK", "1"},
                                     {"LOCAL_WORLD_SIZE", "4"},
                                     {"MASTER_ADDR", "node0"},
                                     {"MASTER_PORT", "29500"}});
  EXPECT_EQ(env.source, LaunchSource::Torchrun);
  EXPECT_EQ(env.rank, 5);
  EXPECT_EQ(env.worldSize, 8);
  EXPECT_EQ(env.localRank, 1);
  EXPECT_EQ(env.localWorldSize, 4);
  EXPECT_EQ(env.masterAddr, "node0");
  EXPECT_EQ(env.masterPort, 29500);
  EXPECT_STREQ(launchSourceName(env.source), "torchrun");
}

TEST(LaunchEnvTest, MissingLocalValuesMeanOneNode) {
  LaunchEnv env = parseLaunchEnv(Env{{"RANK", "2"}, {"WORLD_SIZE", "3"}});
  EXPECT_EQ(env.localRank, 2);
  EXPECT_EQ(env.localWorldSize, 3);
}

TEST(LaunchEnvTest, OpenMpi) {
  LaunchEnv env = parseLaunchEnv(Env{{"OMPI_COMM_WORLD_RANK", "3"},
                                     {"OMPI_COMM_WORLD_SIZE", "4"},
                                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                     {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  EXPECT_EQ(env.source, LaunchSource::OpenMpi);
  EXPECT_EQ(env.rank, 3);
  EXPECT_EQ(env.worldSize, 4);
  EXPECT_EQ(env.localRank, 1);
  EXPECT_EQ(env.localWorldSize, 2);
}

TEST(LaunchEnvTest, PmiAndSlurm) {
  LaunchEnv pmi = parseLaunchEnv(Env{{"PMI_RANK", "1"},
                                     {"PMI_SIZE", "2"},
                                     {"MPI_LOCALRANKID", "0"},
                                     {"MPI_LOCALNRANKS", "1"}});
  EXPECT_EQ(pmi.source, LaunchSource::Pmi);
  EXPECT_EQ(pmi.rank, 1);
  EXPECT_EQ(pmi.localRank, 0);
  LaunchEnv slurm = parseLaunchEnv(Env{
      {"SLURM_PROCID", "6"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "2"}});
  EXPECT_EQ(slurm.source, LaunchSource::Slurm);
  EXPECT_EQ(slurm.rank, 6);
  EXPECT_EQ(slurm.worldSize, 8);
  EXPECT_EQ(slurm.localRank, 2);
  EXPECT_EQ(slurm.localWorldSize, 8);
}

TEST(LaunchEnvTest, Precedence) {
  // MPI launchers first, then torchrun, then Slurm.
  Env all{{"OMPI_COMM_WORLD_RANK", "1"},
          {"OMPI_COMM_WORLD_SIZE", "2"},
          {"RANK", "3"},
          {"WORLD_SIZE", "4"},
          {"SLURM_PROCID", "0"},
          {"SLURM_NTASKS", "1"}};
  EXPECT_EQ(parseLaunchEnv(all).source, LaunchSource::OpenMpi);
  EXPECT_EQ(parseLaunchEnv(all).rank, 1);
  all.erase("OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(parseLaunchEnv(all).source, LaunchSource::Torchrun);
  EXPECT_EQ(parseLaunchEnv(all).rank, 3);
  all.erase("RANK");
  EXPECT_EQ(parseLaunchEnv(all).source, LaunchSource::Slurm);
}

TEST(LaunchEnvTest, MalformedValuesNameTheVariable) {
  EXPECT_EQ(errorOf({{"RANK", "one"}, {"WORLD_SIZE", "2"}}),
            "launch environment: RANK='one' is not an integer >= 0");
  EXPECT_EQ(errorOf({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}),
            "launch environment: RANK='-1' is not an integer >= 0");
  EXPECT_EQ(errorOf({{"RANK", "0"}, {"WORLD_SIZE", "0"}}),
            "launch environment: WORLD_SIZE='0' is not an integer >= 1");
  EXPECT_EQ(errorOf({{"RANK", "0"}, {"WORLD_SIZE", "2 "}}),
            "launch environment: WORLD_SIZE='2 ' is not an integer >= 1");
  EXPECT_EQ(errorOf({{"RANK", "0"}, {"WORLD_SIZE", "99999999999999"}}),
            "launch environment: WORLD_SIZE='99999999999999' is not an "
            "integer >= 1");
  EXPECT_EQ(
      errorOf({{"OMPI_COMM_WORLD_RANK", ""}, {"OMPI_COMM_WORLD_SIZE", "2"}}),
      "launch environment: OMPI_COMM_WORLD_RANK='' is not an integer "
      ">= 0");
  EXPECT_EQ(errorOf({{"MASTER_PORT", "http"}}),
            "launch environment: MASTER_PORT='http' is not an integer >= 1");
  EXPECT_EQ(errorOf({{"MASTER_PORT", "70000"}}),
            "launch environment: MASTER_PORT='70000' is not a port number "
            "(1-65535)");
  EXPECT_EQ(errorOf({{"MASTER_ADDR", ""}}),
            "launch environment: MASTER_ADDR is set but empty");
}

TEST(LaunchEnvTest, InconsistentValues) {
  EXPECT_EQ(errorOf({{"RANK", "0"}}),
            "launch environment: RANK is set but WORLD_SIZE is not");
  EXPECT_EQ(errorOf({{"RANK", "4"}, {"WORLD_SIZE", "4"}}),
            "launch environment: RANK=4 is not below WORLD_SIZE=4");
  EXPECT_EQ(
      errorOf({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "2"}}),
      "launch environment: OMPI_COMM_WORLD_RANK=2 is not below "
      "OMPI_COMM_WORLD_SIZE=2");
  EXPECT_EQ(errorOf({{"RANK", "1"},
                     {"WORLD_SIZE", "4"},
                     {"LOCAL_RANK", "2"},
                     {"LOCAL_WORLD_SIZE", "2"}}),
            "launch environment: LOCAL_RANK=2 is not below LOCAL_WORLD_SIZE=2");
  EXPECT_EQ(errorOf({{"RANK", "1"},
                     {"WORLD_SIZE", "4"},
                     {"LOCAL_RANK", "0"},
                     {"LOCAL_WORLD_SIZE", "8"}}),
            "launch environment: LOCAL_WORLD_SIZE=8 exceeds WORLD_SIZE=4");
  EXPECT_EQ(
      errorOf({{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"LOCAL_WORLD_SIZE", "2"}}),
      "launch environment: LOCAL_WORLD_SIZE is set but LOCAL_RANK is "
      "not");
  EXPECT_EQ(errorOf({{"SLURM_PROCID", "0"},
                     {"SLURM_NTASKS", "2"},
                     {"SLURM_LOCALID", "2"}}),
            "launch environment: SLURM_LOCALID=2 is not below the local size "
            "2 (SLURM_NTASKS=2)");
}

TEST(LaunchEnvTest, ErrorsAreUsageErrors) {
  try {
    parseLaunchEnv(Env{{"RANK", "x"}, {"WORLD_SIZE", "1"}});
    FAIL() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.exitCode, ExitUsage);
  }
}

//===- ProfileTest.cpp - Tests of the layer profile reader ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Profile.h"

#include "gtest/gtest.h"

using namespace pipewave::planner;

namespace {

const std::string dataDir = PIPEWAVE_DATA_DIR;

TEST(ProfileTest, ParsesAGraphAndItsCuts) {
  // a -> b, a -> c, b -> d, c -> d; c is listed before b and has two
  // outputs. Topological order in file order among ready nodes: a, c, b, d.
  const char *text =
      "node1 -- a -- forward_compute_time=1.5, backward_compute_time=3, "
      "activation_size=100, parameter_size=10\n"
      "node3 -- Linear(in_features=4, out_features=4) -- "
      "forward_compute_time=2.0, backward_compute_time=4.0, "
      "activation_size=[20.0; 30.0], parameter_size=40.000\n"
      "node2 -- b -- forward_compute_time=1, backward_compute_time=1, "
      "activation_size=7, parameter_size=0 \n"
      "node4 -- d -- forward_compute_time=0, backward_compute_time=0, "
      "activation_size=1, parameter_size=0\n"
      "\tnode1 -- node2\n"
      "  node1 -- node3\n"
      "\tnode2 -- node4\n"
      "\tnode3 -- node4\n";
  std::string error;
  std::optional<ModelProfile> profile = parsePipeDreamProfile(text, 4, &error);
  ASSERT_TRUE(profile) << error;
  ASSERT_EQ(profile->numLayers(), 4);
  EXPECT_EQ(profile->profileBatch, 4);
  EXPECT_EQ(profile->layers[0].name, "a");
  EXPECT_EQ(profile->layers[1].name, "Linear(in_features=4, out_features=4)");
  EXPECT_EQ(profile->layers[2].name, "b");
  EXPECT_EQ(profile->layers[3].name, "d");
  EXPECT_DOUBLE_EQ(profile->layers[0].forwardSeconds, 1.5e-3);
  EXPECT_DOUBLE_EQ(profile->layers[1].backwardSeconds, 4e-3);
  EXPECT_EQ(profile->layers[1].outputBytes, 50);
  EXPECT_EQ(profile->layers[1].parameterBytes, 40);
  // After a: a's output (to b and c). After c: a's (to b) and c's (to d).
  // After b: c's and b's (to d).
  EXPECT_EQ(profile->cutBytes, (std::vector<double>{100, 150, 57}));
  EXPECT_DOUBLE_EQ(profile->totalForwardSeconds(), 4.5e-3);
  EXPECT_DOUBLE_EQ(profile->totalParameterBytes(), 50);
}

TEST(ProfileTest, RejectsBadProfiles) {
  const std::string good = "node1 -- a -- forward_compute_time=1, "
                           "backward_compute_time=1, activation_size=1, "
                           "parameter_size=1\n";
  struct Case {
    std::string text;
    const char *message;
  } cases[] = {
      {"", "no nodes"},
      {"node1 -- a -- forward_compute_time=1, backward_compute_time=1, "
       "activation_size=1\n",
       "missing parameter_size"},
      {"node1 -- a -- forward_compute_time=x, backward_compute_time=1, "
       "activation_size=1, parameter_size=1\n",
       "invalid value for forward_compute_time"},
      {good + "  node1 -- node9\n", "undefined node 'node9'"},
      {good + good, "duplicate node"},
      {good + "garbage\n", "line 2"},
      {good + "node2 -- b -- forward_compute_time=1, backward_compute_time=1, "
              "activation_size=1, parameter_size=1\n  node1 -- node2\n"
              "  node2 -- node1\n",
       "cycle"},
  };
  for (const Case &c : cases) {
    std::string error;
    EXPECT_FALSE(parsePipeDreamProfile(c.text, 1, &error)) << c.text;
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "error: " << error << "\nexpected: " << c.message;
  }
  std::string error;
  EXPECT_FALSE(parsePipeDreamProfile(good, 0, &error));
}

TEST(ProfileTest, ProfileBatchFromFileName) {
  EXPECT_EQ(profileBatchFromFileName("data/dapple-profiles/gnmt-16-pbs-64.txt"),
            64);
  EXPECT_EQ(profileBatchFromFileName("bert-24-pbs-6.txt"), 6);
  EXPECT_EQ(profileBatchFromFileName("model.txt"), 0);
  std::string error;
  EXPECT_FALSE(
      loadPipeDreamProfile(dataDir + "/dapple-profiles/README.md", 0, &error));
  EXPECT_NE(error.find("profile batch"), std::string::npos) << error;
  EXPECT_FALSE(loadPipeDreamProfile("no/such/model-pbs-4.txt", 0, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

TEST(ProfileTest, LoadsTheDappleProfiles) {
  struct Expected {
    const char *file;
    int layers;
    int batch;
    double parameterBytes;
  } expected[] = {
      {"bert-24-pbs-6", 29, 6, 127131648.0 + 24 * 50384896.0 + 4198400.0},
      {"gnmt-16-pbs-64", 96, 64, 0},
      {"vgg-19-pbs-32", 26, 32, 0},
  };
  for (const Expected &e : expected) {
    std::string error;
    std::optional<ModelProfile> profile = loadPipeDreamProfile(
        dataDir + "/dapple-profiles/" + e.file + ".txt", 0, &error);
    ASSERT_TRUE(profile) << error;
    EXPECT_EQ(profile->name, e.file);
    EXPECT_EQ(profile->numLayers(), e.layers);
    EXPECT_EQ(profile->profileBatch, e.batch);
    EXPECT_EQ(profile->cutBytes.size(), size_t(e.layers - 1));
    if (e.parameterBytes > 0) {
      EXPECT_DOUBLE_EQ(profile->totalParameterBytes(), e.parameterBytes);
    }
    for (double bytes : profile->cutBytes)
      EXPECT_GE(bytes, 0);
  }
  // BERT: the attention mask (node2) feeds every encoder layer, so it
  // crosses every cut between them along with the hidden states.
  std::optional<ModelProfile> bert =
      loadPipeDreamProfile(dataDir + "/dapple-profiles/bert-24-pbs-6.txt");
  ASSERT_TRUE(bert);
  EXPECT_EQ(bert->layers[4].name, "layer_0");
  EXPECT_DOUBLE_EQ(bert->cutBytes[4], 12976128.0 + 3538944.0);
  EXPECT_DOUBLE_EQ(bert->totalForwardSeconds(),
                   (0.01 + 0.011 + 0.056 + 24 * 8.07) * 1e-3);
  // VGG is a chain.
  std::optional<ModelProfile> vgg =
      loadPipeDreamProfile(dataDir + "/dapple-profiles/vgg-19-pbs-32.txt");
  ASSERT_TRUE(vgg);
  for (int i = 0; i + 1 < vgg->numLayers(); ++i)
    EXPECT_EQ(vgg->cutBytes[i], vgg->layers[i].outputBytes);
}

TEST(ProfileTest, ChainProfile) {
  ModelProfile chain = makeChainProfile(
      "chain", 2, {{"x", 1, 2, 30, 4}, {"y", 1, 2, 40, 4}, {"z", 1, 2, 50, 4}});
  EXPECT_EQ(chain.cutBytes, (std::vector<double>{30, 40}));
  EXPECT_EQ(chain.profileBatch, 2);
}

} // namespace

//===- CheckpointTest.cpp - Checkpoint files and manifests ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/File.h"

#include "TestModel.h"
#include "TestUtil.h"

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

CheckpointManifest sampleManifest(int64_t step) {
  CheckpointManifest m;
  m.step = step;
  m.dataPosition = 1;
  m.dataBatches = 2;
  m.model = "train";
  m.fingerprint = "0x0123456789abcdef";
  m.numRanks = 2;
  m.numStages = 2;
  m.numMicrobatches = 4;
  m.rankStages = {{0}, {1}};
  m.optimizer = "sgd lr=0.01";
  return m;
}

} // namespace

TEST(CheckpointTest, FileAndManifestRoundTrip) {
  TempDir dir;
  std::string stepDir = checkpointStepDir(dir.path(), 7);
  EXPECT_EQ(stepDir, dir.path() + "/step-000007");
  std::vector<float> w = {1, 2, 3}, m = {0.5f, 0.25f, 0};
  CheckpointFile file = writeCheckpointFile(
      stepDir, 1,
      {{"w0", PW_F32, {3}, w.data()}, {"exp_avg/w0", PW_F32, {3}, m.data()}},
      {{"step", "7"}});
  EXPECT_EQ(file.name, "rank-1.safetensors");
  CheckpointFile actual = hashFile(stepDir + "/" + file.name);
  EXPECT_EQ(actual.bytes, file.bytes);
  EXPECT_EQ(actual.hash, file.hash);
  SafetensorsReader reader(stepDir + "/" + file.name);
  EXPECT_EQ(reader.metadata().at("step"), "7");
  HostTensor back = reader.read("exp_avg/w0");
  EXPECT_EQ(static_cast<const float *>(back.data())[1], 0.25f);

  CheckpointManifest manifest = sampleManifest(7);
  manifest.files.push_back(file);
  writeCheckpointManifest(stepDir, manifest);
  CheckpointManifest read = readCheckpointManifest(stepDir);
  EXPECT_EQ(read.step, 7);
  EXPECT_EQ(read.dataPosition, 1);
  EXPECT_EQ(read.rankStages, manifest.rankStages);
  EXPECT_EQ(read.optimizer, "sgd lr=0.01");
  ASSERT_EQ(read.files.size(), 1u);
  EXPECT_EQ(read.files[0].hash, file.hash);
  EXPECT_EQ(read.files[0].bytes, file.bytes);
}

TEST(CheckpointTest, SharedCopiesTravelInReportsAndTheManifest) {
  CheckpointFile file;
  file.bytes = 1234;
  file.hash = 0xfedcba9876543210ull;
  std::vector<CopyHash> sent = {{"tok.weight", 42}, {"a name with spaces", 7}};
  std::string report = encodeFileReport(file, sent);
  std::vector<CopyHash> received;
  CheckpointFile decoded = decodeFileReport(report, 3, &received);
  EXPECT_EQ(decoded.rank, 3);
  EXPECT_EQ(decoded.name, "rank-3.safetensors");
  EXPECT_EQ(decoded.bytes, 1234u);
  EXPECT_EQ(decoded.hash, file.hash);
  EXPECT_EQ(received, sent);
  // A report without copies (and one from a version 1 writer) has none.
  received.clear();
  decodeFileReport(encodeFileReport(file), 0, &received);
  EXPECT_TRUE(received.empty());
  EXPECT_NE(PW_ERROR_OF(decodeFileReport("1 2\nnohash", 0, &received))
                .find("bad checkpoint report from rank 0"),
            std::string::npos);

  TempDir dir;
  std::string stepDir = checkpointStepDir(dir.path(), 4);
  makeDirectories(stepDir);
  CheckpointManifest manifest = sampleManifest(4);
  manifest.copies.push_back({"tok.weight", {0, 3}, hashBytes("abc", 3)});
  writeCheckpointManifest(stepDir, manifest);
  CheckpointManifest read = readCheckpointManifest(stepDir);
  ASSERT_EQ(read.copies.size(), 1u);
  EXPECT_EQ(read.copies[0].name, "tok.weight");
  EXPECT_EQ(read.copies[0].ranks, (std::vector<int>{0, 3}));
  EXPECT_EQ(read.copies[0].hash, hashBytes("abc", 3));
  EXPECT_NE(hashBytes("abc", 3), hashBytes("abd", 3));

  // Version 1 manifests (no "copies") still read; unknown versions do not.
  std::string text = readBytes(stepDir + "/manifest.json");
  size_t at = text.find("\"version\": 2");
  ASSERT_NE(at, std::string::npos);
  std::string v1 = text;
  v1.replace(at, 12, "\"version\": 1");
  v1 = v1.substr(0, v1.find(",\n  \"copies\"")) + "\n}\n";
  writeBytes(stepDir + "/manifest.json", v1);
  EXPECT_TRUE(readCheckpointManifest(stepDir).copies.empty());
  std::string v3 = text;
  v3.replace(at, 12, "\"version\": 3");
  writeBytes(stepDir + "/manifest.json", v3);
  EXPECT_NE(PW_ERROR_OF(readCheckpointManifest(stepDir))
                .find("format version 3 (this runtime reads versions 1 to 2)"),
            std::string::npos);
}

TEST(CheckpointTest, LatestCompleteCheckpointSkipsIncompleteOnes) {
  TempDir dir;
  std::vector<std::string> incomplete;
  EXPECT_EQ(findLatestCheckpoint(dir.file("missing"), incomplete), "");
  for (int step : {5, 10, 15}) {
    std::string stepDir = checkpointStepDir(dir.path(), step);
    makeDirectories(stepDir);
    if (step != 15)
      writeCheckpointManifest(stepDir, sampleManifest(step));
  }
  makeDirectories(dir.file("step-abc")); // not a checkpoint
  EXPECT_EQ(findLatestCheckpoint(dir.path(), incomplete),
            checkpointStepDir(dir.path(), 10));
  EXPECT_EQ(incomplete,
            std::vector<std::string>{checkpointStepDir(dir.path(), 15)});
}

TEST(CheckpointTest, TruncatedManifestIsAnErrorNamingIt) {
  TempDir dir;
  std::string stepDir = checkpointStepDir(dir.path(), 3);
  makeDirectories(stepDir);
  writeCheckpointManifest(stepDir, sampleManifest(3));
  std::string text = readBytes(stepDir + "/manifest.json");
  writeBytes(stepDir + "/manifest.json", text.substr(0, text.size() / 2));
  std::string error = PW_ERROR_OF(readCheckpointManifest(stepDir));
  EXPECT_NE(error.find("checkpoint manifest '" + stepDir + "/manifest.json"),
            std::string::npos)
      << error;
  writeBytes(stepDir + "/manifest.json", "{\"format\": \"other\"}");
  error = PW_ERROR_OF(readCheckpointManifest(stepDir));
  EXPECT_NE(error.find("not a pipewave checkpoint manifest"), std::string::npos)
      << error;
}

TEST(CheckpointTest, FingerprintAndLayoutDescribeTheModel) {
  TrainConfig c;
  TrainModel two(c);
  c.stages = 4;
  TrainModel four(c);
  // Same parameters, different stages: different fingerprints.
  EXPECT_NE(modelFingerprint(*two.get()), modelFingerprint(*four.get()));
  TrainModel again(TrainConfig{});
  EXPECT_EQ(modelFingerprint(*two.get()), modelFingerprint(*again.get()));
  EXPECT_EQ(describeRankStages(rankStages(*four.get())),
            "[[0], [1], [2], [3]]");
}

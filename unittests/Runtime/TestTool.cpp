//===- TestTool.cpp - Fixtures and checks for the runtime's MPI tests -----===//
//
// Part of the pipewave project.
//
//   pw-test-tool fixtures DIR STAGES MICROBATCHES
//     writes the inputs and the expected outputs of the arithmetic test
//     model (batch 16, 8 features): x.npy, params.safetensors, expected_*.npy
//     (with params.safetensors), default_*.npy (default parameters, seed 0),
//     and broken inputs: x_short.npy ([12, 8]), x_f64.npy,
//     params_missing.safetensors (no p<last>), params_badshape.safetensors
//     (p0 of shape [4]).
//   pw-test-tool check-trace FILE RANKS STEPS STAGES MICROBATCHES
//     checks a --trace file: valid JSON, one named process per rank, every
//     (step, stage, microbatch) forward exactly once, send/recv slices
//     when RANKS > 1, non-negative times.
//
// Training (the TrainModel of TestModel.h: 4 layers, batch 16, 8 features):
//   pw-test-tool train-fixtures DIR
//     x.npy and t.npy holding two global batches ([32, 8]) and
//     params.safetensors (the initial w0..w3, b0..b3).
//   pw-test-tool compare-logs A.jsonl B.jsonl TOLERANCE
//     every step logged in B is in A with a loss within TOLERANCE
//     (relative; 0: bit-identical).
//   pw-test-tool compare-reference LOG.jsonl FIXTURES OPTIMIZER LR MOMENTUM
//                                  TOLERANCE
//     the logged losses against the serial double-precision reference.
//   pw-test-tool compare-checkpoints STEPDIR_A STEPDIR_B TOLERANCE
//     the same tensors (parameters and optimizer state) in both checkpoints,
//     equal within TOLERANCE (times max(1, |value|); 0: bit-identical),
//     and the same step; a tensor in
//     several rank files (replicas) must be identical in all of them.
//   pw-test-tool corrupt STEPDIR DESTDIR truncate|flip|reshape|rename
//     copies checkpoint STEPDIR into DESTDIR and truncates rank-1's file by
//     100 bytes, flips a bit of its last data byte, or rewrites rank-0's
//     file with tensor w0 reshaped to [4] (or renamed w9).
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Init.h"
#include "pipewave-runtime/Json.h"
#include "pipewave-runtime/Npy.h"
#include "pipewave-runtime/Safetensors.h"

#include "pipewave-runtime/File.h"

#include "TestModel.h"

#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Optimizer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

void writeExpected(const std::string &dir, const std::string &prefix,
                   const ModelConfig &config, const std::vector<float> &x,
                   const std::vector<std::vector<float>> &params) {
  Reference ref = computeReference(config, x, params);
  writeNpy(dir + "/" + prefix + "_y.npy", PW_F32,
           {config.batch, config.features}, ref.y.data());
  writeNpy(dir + "/" + prefix + "_count.npy", PW_I32, {config.batch},
           ref.count.data());
  writeNpy(dir + "/" + prefix + "_total.npy", PW_F32, {}, &ref.total);
}

int fixtures(const std::string &dir, int stages, int microbatches) {
  ModelConfig config;
  config.stages = stages;
  config.microbatches = microbatches;
  const int B = config.batch, F = config.features;
  std::vector<float> x = makeInput(B, F);
  writeNpy(dir + "/x.npy", PW_F32, {B, F}, x.data());
  writeNpy(dir + "/x_short.npy", PW_F32, {12, F}, x.data());
  std::vector<double> x64(x.begin(), x.end());
  writeNpy(dir + "/x_f64.npy", PW_F64, {B, F}, x64.data());

  std::vector<std::vector<float>> params, defaults;
  std::vector<SafetensorsTensorRef> refs;
  std::vector<std::string> names;
  for (int s = 0; s < stages; ++s) {
    params.push_back(makeParameter(s, F));
    names.push_back("p" + std::to_string(s));
    std::vector<float> d(F);
    initParameter(names.back(), PW_F32, {F}, 0, d.data());
    defaults.push_back(d);
  }
  for (int s = 0; s < stages; ++s)
    refs.push_back({names[s], PW_F32, {F}, params[s].data()});
  writeSafetensors(dir + "/params.safetensors", refs);
  std::vector<SafetensorsTensorRef> missing(refs.begin(), refs.end() - 1);
  writeSafetensors(dir + "/params_missing.safetensors", missing);
  std::vector<SafetensorsTensorRef> badShape = refs;
  badShape[0].shape = {4};
  writeSafetensors(dir + "/params_badshape.safetensors", badShape);

  writeExpected(dir, "expected", config, x, params);
  writeExpected(dir, "default", config, x, defaults);
  std::printf("fixtures for %d stages, %d microbatches in %s\n", stages,
              microbatches, dir.c_str());
  return 0;
}

int checkTrace(const std::string &path, int ranks, int steps, int stages,
               int microbatches) {
  InputFile file(path);
  std::string text(file.size(), '\0');
  file.readAt(0, text.data(), text.size(), "the trace");
  JsonValue root = parseJson(text, path);
  const JsonValue *events = root.find("traceEvents");
  if (!events || !events->isArray())
    throw Error("no traceEvents array");
  std::set<int> named;
  std::map<std::string, int> forwards;
  int messages = 0;
  for (const JsonValue &event : events->array) {
    std::string ph = event.find("ph")->string;
    int pid = static_cast<int>(event.find("pid")->integer);
    if (pid < 0 || pid >= ranks)
      throw Error("event of unknown pid " + std::to_string(pid));
    std::string name = event.find("name")->string;
    if (ph == "M") {
      if (name == "process_name" && event.find("args")->find("name")->string ==
                                        "rank " + std::to_string(pid))
        named.insert(pid);
      continue;
    }
    if (ph != "X")
      throw Error("unexpected phase " + ph);
    if (event.find("ts")->number < 0 || event.find("dur")->number < 0)
      throw Error("negative time in " + name);
    std::string category = event.find("cat")->string;
    int step = static_cast<int>(event.find("args")->find("step")->integer);
    if (category == "compute")
      ++forwards[std::to_string(step) + " " + name];
    else if (category == "send" || category == "recv")
      ++messages;
  }
  if (static_cast<int>(named.size()) != ranks)
    throw Error("expected a named process per rank, found " +
                std::to_string(named.size()));
  for (int k = 1; k <= steps; ++k)
    for (int s = 0; s < stages; ++s)
      for (int m = 0; m < microbatches; ++m) {
        std::string key = std::to_string(k) + " F s" + std::to_string(s) +
                          " mb" + std::to_string(m);
        if (forwards[key] != 1)
          throw Error("expected one slice '" + key + "', found " +
                      std::to_string(forwards[key]));
      }
  if (ranks > 1 && messages == 0)
    throw Error("no send/recv slices");
  std::printf("trace ok: %zu events, %d ranks, %d message slices\n",
              events->array.size(), ranks, messages);
  return 0;
}

TrainConfig trainConfig() {
  TrainConfig config;
  config.layers = 4;
  config.stages = 1;
  config.microbatches = 1;
  config.batch = 16;
  config.features = 8;
  return config;
}

int trainFixtures(const std::string &dir) {
  TrainConfig config = trainConfig();
  const int rows = 2 * config.batch, F = config.features;
  std::vector<float> x = makeTrainInput(rows, F), t = makeTrainTarget(rows, F);
  writeNpy(dir + "/x.npy", PW_F32, {rows, F}, x.data());
  writeNpy(dir + "/t.npy", PW_F32, {rows, F}, t.data());
  // The same with a NaN in the second global batch (--on-nonfinite).
  x[static_cast<size_t>(config.batch * F) + 3] = std::nanf("");
  writeNpy(dir + "/x-nan.npy", PW_F32, {rows, F}, x.data());
  std::vector<std::vector<float>> values;
  std::vector<SafetensorsTensorRef> refs;
  for (int layer = 0; layer < config.layers; ++layer) {
    values.push_back(makeTrainWeight(layer, F));
    values.push_back(makeTrainBias(layer, F));
  }
  for (int layer = 0; layer < config.layers; ++layer) {
    refs.push_back(
        {"w" + std::to_string(layer), PW_F32, {F}, values[2 * layer].data()});
    refs.push_back({"b" + std::to_string(layer),
                    PW_F32,
                    {F},
                    values[2 * layer + 1].data()});
  }
  writeSafetensors(dir + "/params.safetensors", refs);
  std::printf("training fixtures in %s\n", dir.c_str());
  return 0;
}

/// step -> loss of every line of a --log-json file.
std::vector<std::pair<int64_t, double>> readLog(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open '" + path + "'");
  std::vector<std::pair<int64_t, double>> steps;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    JsonValue value = parseJson(line, path);
    const JsonValue *step = value.find("step");
    const JsonValue *loss = value.find("loss");
    if (!step || !loss || !value.find("time_ms") ||
        !value.find("samples_per_s") || !loss->isNumber())
      throw Error("'" + path + "': incomplete line '" + line + "'");
    steps.emplace_back(step->integer, loss->number);
  }
  if (steps.empty())
    throw Error("'" + path + "' logs no steps");
  return steps;
}

/// Relative to |a|, or to max(1, |a|) with `absoluteBelowOne` (parameters
/// and optimizer state near zero); 0: bit-identical.
bool close(double a, double b, double tolerance,
           bool absoluteBelowOne = false) {
  if (tolerance == 0)
    return a == b || (std::isnan(a) && std::isnan(b));
  double scale = absoluteBelowOne ? std::max(1.0, std::fabs(a)) : std::fabs(a);
  return std::fabs(a - b) <= tolerance * scale;
}

int compareLogs(const std::string &a, const std::string &b, double tolerance) {
  std::map<int64_t, double> reference;
  for (auto [step, loss] : readLog(a))
    reference[step] = loss;
  int compared = 0;
  for (auto [step, loss] : readLog(b)) {
    auto it = reference.find(step);
    if (it == reference.end())
      throw Error("step " + std::to_string(step) + " of '" + b +
                  "' is not in '" + a + "'");
    if (!close(it->second, loss, tolerance)) {
      std::fprintf(stderr,
                   "step %lld: loss %.17g in %s but %.17g in %s (tolerance "
                   "%g)\n",
                   static_cast<long long>(step), it->second, a.c_str(), loss,
                   b.c_str(), tolerance);
      return 1;
    }
    ++compared;
  }
  std::printf("%d steps agree (tolerance %g)\n", compared, tolerance);
  return 0;
}

int compareReference(const std::string &log, const std::string &fixtures,
                     const std::string &optimizerName, double lr,
                     double momentum, double tolerance) {
  TrainConfig config = trainConfig();
  OptimizerConfig optimizer;
  if (!parseOptimizerKind(optimizerName, optimizer.kind))
    throw Error("unknown optimizer " + optimizerName);
  optimizer.lr = lr;
  optimizer.momentum = momentum;
  optimizer.weightDecay = defaultWeightDecay(optimizer.kind);
  HostTensor x = readNpy(fixtures + "/x.npy"), t = readNpy(fixtures + "/t.npy");
  std::vector<float> xs(static_cast<const float *>(x.data()),
                        static_cast<const float *>(x.data()) + x.size());
  std::vector<float> ts(static_cast<const float *>(t.data()),
                        static_cast<const float *>(t.data()) + t.size());
  auto steps = readLog(log);
  TrainState state = initialTrainState(config);
  std::vector<double> losses = referenceTraining(
      config, optimizer, xs, ts, static_cast<int>(x.shape[0] / config.batch),
      static_cast<int>(steps.size()), state);
  for (size_t k = 0; k < steps.size(); ++k) {
    if (steps[k].first != static_cast<int64_t>(k + 1))
      throw Error("'" + log + "' does not start at step 1");
    if (!close(losses[k], steps[k].second, tolerance)) {
      std::fprintf(stderr, "step %zu: loss %.9g but the reference says %.9g\n",
                   k + 1, steps[k].second, losses[k]);
      return 1;
    }
  }
  std::printf("%zu steps match the reference (tolerance %g); loss %.6g -> "
              "%.6g\n",
              steps.size(), tolerance, losses.front(), losses.back());
  return 0;
}

/// Every tensor of every rank file of a checkpoint, by name.
std::map<std::string, HostTensor> readCheckpoint(const std::string &stepDir) {
  CheckpointManifest manifest = readCheckpointManifest(stepDir);
  std::map<std::string, HostTensor> tensors;
  for (const CheckpointFile &file : manifest.files) {
    SafetensorsReader reader(stepDir + "/" + file.name);
    for (const SafetensorsEntry &entry : reader.entries()) {
      HostTensor tensor = reader.read(entry.name);
      auto it = tensors.find(entry.name);
      if (it != tensors.end()) {
        if (it->second.bytes() != tensor.bytes() ||
            std::memcmp(it->second.data(), tensor.data(), tensor.bytes()))
          throw Error("tensor '" + entry.name +
                      "' differs between the rank "
                      "files of '" +
                      stepDir + "' (replicas diverged)");
        continue;
      }
      tensors[entry.name] = std::move(tensor);
    }
  }
  return tensors;
}

int compareCheckpoints(const std::string &a, const std::string &b,
                       double tolerance) {
  if (readCheckpointManifest(a).step != readCheckpointManifest(b).step)
    throw Error("the checkpoints are of different steps");
  std::map<std::string, HostTensor> ta = readCheckpoint(a),
                                    tb = readCheckpoint(b);
  if (ta.size() != tb.size())
    throw Error("the checkpoints hold " + std::to_string(ta.size()) + " and " +
                std::to_string(tb.size()) + " tensors");
  for (const auto &[name, tensor] : ta) {
    auto it = tb.find(name);
    if (it == tb.end() || it->second.shape != tensor.shape)
      throw Error("tensor '" + name + "' missing or reshaped in '" + b + "'");
    const float *pa = static_cast<const float *>(tensor.data());
    const float *pb = static_cast<const float *>(it->second.data());
    for (int64_t i = 0; i < tensor.size(); ++i)
      if (!close(pa[i], pb[i], tolerance, /*absoluteBelowOne=*/true)) {
        std::fprintf(stderr, "%s[%lld]: %.9g vs %.9g\n", name.c_str(),
                     static_cast<long long>(i), pa[i], pb[i]);
        return 1;
      }
  }
  std::printf("%zu tensors agree (tolerance %g)\n", ta.size(), tolerance);
  return 0;
}

int corrupt(const std::string &stepDir, const std::string &destDir,
            const std::string &mode) {
  CheckpointManifest manifest = readCheckpointManifest(stepDir);
  std::string dest = checkpointStepDir(destDir, manifest.step);
  makeDirectories(dest);
  for (const CheckpointFile &file : manifest.files) {
    InputFile in(stepDir + "/" + file.name);
    std::string bytes(in.size(), '\0');
    in.readAt(0, bytes.data(), bytes.size(), "the file");
    if (mode == "truncate" && file.rank == 1)
      bytes.resize(bytes.size() - 100);
    if (mode == "flip" && file.rank == 1)
      bytes.back() ^= 0x10;
    writeFileAtomic(dest + "/" + file.name, {{bytes.data(), bytes.size()}});
  }
  if (mode == "reshape" || mode == "rename") {
    SafetensorsReader reader(dest + "/rank-0.safetensors");
    std::vector<HostTensor> tensors;
    std::vector<SafetensorsTensorRef> refs;
    for (const SafetensorsEntry &entry : reader.entries())
      tensors.push_back(reader.read(entry.name));
    for (size_t k = 0; k < tensors.size(); ++k) {
      SafetensorsTensorRef ref{reader.entries()[k].name, tensors[k].dtype,
                               tensors[k].shape, tensors[k].data()};
      if (ref.name == "w0" && mode == "reshape")
        ref.shape = {ref.shape[0] / 2};
      if (ref.name == "w0" && mode == "rename")
        ref.name = "w9";
      refs.push_back(ref);
    }
    writeSafetensors(dest + "/rank-0.safetensors", refs, reader.metadata());
    // rename: the manifest vouches for the new file (another model's
    // checkpoint, not a damaged one).
    for (CheckpointFile &file : manifest.files)
      if (file.rank == 0 && mode == "rename") {
        CheckpointFile hashed = hashFile(dest + "/rank-0.safetensors");
        file.bytes = hashed.bytes;
        file.hash = hashed.hash;
      }
  } else if (mode != "truncate" && mode != "flip") {
    throw Error("unknown mode " + mode);
  }
  writeCheckpointManifest(dest, manifest);
  std::printf("%s: %s\n", mode.c_str(), dest.c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    std::string command = argc > 1 ? argv[1] : "";
    if (command == "fixtures" && argc == 5)
      return fixtures(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
    if (command == "check-trace" && argc == 7)
      return checkTrace(argv[2], std::atoi(argv[3]), std::atoi(argv[4]),
                        std::atoi(argv[5]), std::atoi(argv[6]));
    if (command == "train-fixtures" && argc == 3)
      return trainFixtures(argv[2]);
    if (command == "compare-logs" && argc == 5)
      return compareLogs(argv[2], argv[3], std::atof(argv[4]));
    if (command == "compare-reference" && argc == 8)
      return compareReference(argv[2], argv[3], argv[4], std::atof(argv[5]),
                              std::atof(argv[6]), std::atof(argv[7]));
    if (command == "compare-checkpoints" && argc == 5)
      return compareCheckpoints(argv[2], argv[3], std::atof(argv[4]));
    if (command == "corrupt" && argc == 5)
      return corrupt(argv[2], argv[3], argv[4]);
    std::fprintf(stderr, "usage: pw-test-tool fixtures DIR STAGES MICROBATCHES"
                         " | check-trace FILE RANKS STEPS STAGES "
                         "MICROBATCHES | train-fixtures DIR | compare-logs A "
                         "B TOL | compare-reference LOG FIXTURES OPT LR "
                         "MOMENTUM TOL | compare-checkpoints A B TOL | "
                         "corrupt STEPDIR DEST truncate|flip|reshape|rename\n");
    return 2;
  } catch (const Error &error) {
    std::fprintf(stderr, "pw-test-tool: %s\n", error.what());
    return 1;
  }
}

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
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Init.h"
#include "pipewave-runtime/Json.h"
#include "pipewave-runtime/Npy.h"
#include "pipewave-runtime/Safetensors.h"

#include "pipewave-runtime/File.h"

#include "TestModel.h"

#include <cstdio>
#include <map>
#include <set>

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
      if (name == "process_name" &&
          event.find("args")->find("name")->string ==
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

} // namespace

int main(int argc, char **argv) {
  try {
    std::string command = argc > 1 ? argv[1] : "";
    if (command == "fixtures" && argc == 5)
      return fixtures(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
    if (command == "check-trace" && argc == 7)
      return checkTrace(argv[2], std::atoi(argv[3]), std::atoi(argv[4]),
                        std::atoi(argv[5]), std::atoi(argv[6]));
    std::fprintf(stderr, "usage: pw-test-tool fixtures DIR STAGES MICROBATCHES"
                         " | check-trace FILE RANKS STEPS STAGES "
                         "MICROBATCHES\n");
    return 2;
  } catch (const Error &error) {
    std::fprintf(stderr, "pw-test-tool: %s\n", error.what());
    return 1;
  }
}

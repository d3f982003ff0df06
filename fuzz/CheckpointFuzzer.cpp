//===- CheckpointFuzzer.cpp - libFuzzer target for checkpoint reading -----===//
//
// Part of the pipewave project.
//
// Every input is a checkpoint step directory: the bytes up to the first NUL
// are its manifest.json, the rest (if any) its rank-0.safetensors. It is
// read as `--resume` reads one: the manifest, then every rank file it lists
// (hashed, its header checked, its tensors read) and the rank file's
// optimizer_steps metadata. Every step must return or throw the runtime's
// Error; anything else is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzFiles.h"

#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Safetensors.h"

#include <cstdint>
#include <cstring>
#include <filesystem>

using namespace pipewave::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pipewave::fuzz::ScratchDir &scratch = pipewave::fuzz::scratch();
  const auto *nul = static_cast<const uint8_t *>(std::memchr(data, 0, size));
  size_t manifestSize = nul ? static_cast<size_t>(nul - data) : size;
  scratch.write("manifest.json", data, manifestSize);
  std::string rankFile = scratch.path() + "/" + rankFileName(0);
  std::error_code ignored;
  std::filesystem::remove(rankFile, ignored);
  if (nul)
    scratch.write(rankFileName(0), nul + 1, size - manifestSize - 1);

  CheckpointManifest manifest;
  try {
    manifest = readCheckpointManifest(scratch.path());
  } catch (const Error &) {
    return 0;
  }
  (void)describeRankStages(manifest.rankStages);
  for (const CheckpointFile &file : manifest.files) {
    std::string path = scratch.path() + "/" + file.name;
    try {
      (void)hashFile(path);
      SafetensorsReader reader(path);
      for (const SafetensorsEntry &entry : reader.entries())
        (void)reader.read(entry.name);
      auto steps = reader.metadata().find("optimizer_steps");
      std::map<int, int64_t> parsed;
      if (steps != reader.metadata().end())
        (void)parseOptimizerSteps(steps->second, parsed);
    } catch (const Error &) {
    }
  }
  return 0;
}

//===- Checkpoint.cpp - Training checkpoints ------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/File.h"
#include "pipewave-runtime/Json.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Tensor.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>

namespace pipewave::runtime {

namespace {

constexpr const char *kFormat = "pipewave-checkpoint";
/// Version 2 stores a shared parameter once (version 1 in every holder's
/// file); both read the same way, by name.
constexpr int kVersion = 2;
constexpr int kOldestVersion = 1;
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t fnvUpdate(uint64_t hash, const void *data, size_t bytes) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= kFnvPrime;
  }
  return hash;
}

[[noreturn]] void manifestError(const std::string &path,
                                const std::string &message) {
  throw Error("checkpoint manifest '" + path + "': " + message, ExitUsage);
}

bool fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

uint64_t hashBytes(const void *data, size_t bytes) {
  return fnvUpdate(kFnvOffset, data, bytes);
}

std::string hexHash(uint64_t hash) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%016" PRIx64, hash);
  return text;
}

std::string rankFileName(int rank) {
  return "rank-" + std::to_string(rank) + ".safetensors";
}

std::map<std::string, std::string> rankFileMetadata(const RankFileInfo &info) {
  std::string counts;
  for (size_t k = 0; k < info.optimizerSteps.size(); ++k)
    counts += (k ? "," : "") + std::to_string(info.optimizerSteps[k].first) +
              ":" + std::to_string(info.optimizerSteps[k].second);
  return {{"format", kFormat},
          {"step", std::to_string(info.step)},
          {"rank", std::to_string(info.rank)},
          {"model", info.model},
          {"optimizer", info.optimizer},
          {"optimizer_steps", counts},
          {"data_position", std::to_string(info.dataPosition)}};
}

bool parseOptimizerSteps(const std::string &text,
                         std::map<int, int64_t> &steps) {
  for (size_t at = 0; at < text.size();) {
    size_t comma = text.find(',', at);
    std::string item = text.substr(
        at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t colon = item.find(':');
    if (colon == std::string::npos)
      return false;
    steps[std::atoi(item.substr(0, colon).c_str())] =
        std::atoll(item.substr(colon + 1).c_str());
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return true;
}

std::string encodeFileReport(const CheckpointFile &file,
                             const std::vector<CopyHash> &copies) {
  std::string report =
      std::to_string(file.bytes) + " " + std::to_string(file.hash);
  for (const auto &[name, hash] : copies)
    report += "\n" + std::to_string(hash) + " " + name;
  return report;
}

CheckpointFile decodeFileReport(const std::string &report, int rank,
                                std::vector<CopyHash> *copies) {
  CheckpointFile entry;
  entry.rank = rank;
  entry.name = rankFileName(rank);
  auto bad = [&]() {
    return Error("internal error: bad checkpoint report from rank " +
                 std::to_string(rank));
  };
  unsigned long long bytes = 0, hash = 0;
  if (std::sscanf(report.c_str(), "%llu %llu", &bytes, &hash) != 2)
    throw bad();
  entry.bytes = bytes;
  entry.hash = hash;
  for (size_t at = report.find('\n'); at != std::string::npos;) {
    size_t end = report.find('\n', at + 1);
    std::string line = report.substr(
        at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    size_t space = line.find(' ');
    if (space == std::string::npos || space == 0)
      throw bad();
    if (copies)
      copies->emplace_back(line.substr(space + 1),
                           std::strtoull(line.c_str(), nullptr, 10));
    at = end;
  }
  return entry;
}

std::string checkpointStepDir(const std::string &dir, int64_t step) {
  char name[32];
  std::snprintf(name, sizeof(name), "step-%06" PRId64, step);
  return dir + "/" + name;
}

std::string modelFingerprint(const pw_model &model) {
  std::string text = "stages " + std::to_string(model.num_stages) + "\n";
  for (int i = 0; i < model.num_inputs; ++i)
    text += (model.input_is_param[i] ? "param " : "data ") +
            inputName(model, i) + " " + dtypeName(model.inputs[i].dtype) + " " +
            shapeString(shapeOf(model.inputs[i])) + "\n";
  for (int s = 0; s < model.num_stages; ++s) {
    text += "stage " + std::to_string(s) + ":";
    const pw_stage &stage = model.stages[s];
    for (int a = 0; a < stage.num_args; ++a)
      if (stage.arg_source[a] == PW_FROM_PARAM)
        text += " " + inputName(model, stage.arg_index[a]);
    text += "\n";
  }
  return hexHash(fnvUpdate(kFnvOffset, text.data(), text.size()));
}

std::vector<std::vector<int>> rankStages(const pw_model &model) {
  std::vector<std::vector<int>> layout;
  for (int r = 0; r < model.num_ranks; ++r)
    layout.emplace_back(model.ranks[r].stages,
                        model.ranks[r].stages + model.ranks[r].num_stages);
  return layout;
}

std::string describeRankStages(const std::vector<std::vector<int>> &layout) {
  std::string text = "[";
  for (size_t r = 0; r < layout.size(); ++r) {
    text += r ? ", [" : "[";
    for (size_t k = 0; k < layout[r].size(); ++k)
      text += (k ? ", " : "") + std::to_string(layout[r][k]);
    text += "]";
  }
  return text + "]";
}

CheckpointFile
writeCheckpointFile(const std::string &stepDir, int rank,
                    const std::vector<SafetensorsTensorRef> &tensors,
                    const std::map<std::string, std::string> &metadata) {
  makeDirectories(stepDir);
  CheckpointFile file;
  file.rank = rank;
  file.name = rankFileName(rank);
  std::string header = encodeSafetensorsHeader(tensors, metadata);
  Chunks chunks = {{header.data(), header.size()}};
  for (const SafetensorsTensorRef &tensor : tensors)
    chunks.emplace_back(tensor.data,
                        static_cast<size_t>(numElements(tensor.shape)) *
                            dtypeSize(tensor.dtype));
  file.hash = kFnvOffset;
  for (const auto &[data, bytes] : chunks) {
    file.hash = fnvUpdate(file.hash, data, bytes);
    file.bytes += bytes;
  }
  writeFileAtomic(stepDir + "/" + file.name, chunks);
  return file;
}

void writeCheckpointManifest(const std::string &stepDir,
                             const CheckpointManifest &m) {
  std::string json = "{\n";
  json += "  \"format\": " + jsonQuote(kFormat) + ",\n";
  json += "  \"version\": " + std::to_string(kVersion) + ",\n";
  json += "  \"model\": " + jsonQuote(m.model) + ",\n";
  json += "  \"model_fingerprint\": " + jsonQuote(m.fingerprint) + ",\n";
  json += "  \"step\": " + std::to_string(m.step) + ",\n";
  json += "  \"data_position\": " + std::to_string(m.dataPosition) + ",\n";
  json += "  \"data_batches\": " + std::to_string(m.dataBatches) + ",\n";
  json += "  \"num_ranks\": " + std::to_string(m.numRanks) + ",\n";
  json += "  \"num_stages\": " + std::to_string(m.numStages) + ",\n";
  json +=
      "  \"num_microbatches\": " + std::to_string(m.numMicrobatches) + ",\n";
  json += "  \"replicas\": " + std::to_string(m.replicas) + ",\n";
  json += "  \"rank_stages\": " + describeRankStages(m.rankStages) + ",\n";
  json += "  \"optimizer\": " + jsonQuote(m.optimizer) + ",\n";
  json += "  \"files\": [";
  for (size_t k = 0; k < m.files.size(); ++k) {
    const CheckpointFile &f = m.files[k];
    json += std::string(k ? "," : "") +
            "\n    {\"rank\": " + std::to_string(f.rank) +
            ", \"file\": " + jsonQuote(f.name) +
            ", \"bytes\": " + std::to_string(f.bytes) +
            ", \"fnv1a\": " + jsonQuote(hexHash(f.hash)) + "}";
  }
  json += "\n  ],\n  \"copies\": [";
  for (size_t k = 0; k < m.copies.size(); ++k) {
    const CheckpointCopy &c = m.copies[k];
    std::string ranks;
    for (size_t r = 0; r < c.ranks.size(); ++r)
      ranks += (r ? ", " : "") + std::to_string(c.ranks[r]);
    json += std::string(k ? "," : "") +
            "\n    {\"name\": " + jsonQuote(c.name) + ", \"ranks\": [" + ranks +
            "], \"fnv1a\": " + jsonQuote(hexHash(c.hash)) + "}";
  }
  json += std::string(m.copies.empty() ? "" : "\n  ") + "]\n}\n";
  writeFileAtomic(stepDir + "/manifest.json", {{json.data(), json.size()}});
}

CheckpointManifest readCheckpointManifest(const std::string &stepDir) {
  std::string path = stepDir + "/manifest.json";
  InputFile file(path);
  std::string text(file.size(), '\0');
  file.readAt(0, text.data(), text.size(), "the manifest");
  JsonValue root;
  try {
    root = parseJson(text, "'" + path + "'");
  } catch (const Error &error) {
    throw Error(std::string("checkpoint manifest ") + error.what() +
                    " (truncated or not a pipewave checkpoint)",
                ExitUsage);
  }
  auto member = [&](const char *key) -> const JsonValue & {
    const JsonValue *value = root.find(key);
    if (!value)
      manifestError(path, std::string("has no '") + key + "'");
    return *value;
  };
  auto integer = [&](const char *key) {
    const JsonValue &value = member(key);
    if (!value.isNumber() || !value.isInteger)
      manifestError(path, std::string("'") + key + "' is not an integer");
    return value.integer;
  };
  auto string = [&](const char *key) {
    const JsonValue &value = member(key);
    if (!value.isString())
      manifestError(path, std::string("'") + key + "' is not a string");
    return value.string;
  };
  if (!root.isObject() || string("format") != kFormat)
    manifestError(path, "not a pipewave checkpoint manifest");
  int64_t version = integer("version");
  if (version < kOldestVersion || version > kVersion)
    manifestError(path, "format version " + std::to_string(version) +
                            " (this runtime reads versions " +
                            std::to_string(kOldestVersion) + " to " +
                            std::to_string(kVersion) + ")");
  CheckpointManifest m;
  m.model = string("model");
  m.fingerprint = string("model_fingerprint");
  m.step = integer("step");
  m.dataPosition = integer("data_position");
  m.dataBatches = integer("data_batches");
  m.numRanks = static_cast<int>(integer("num_ranks"));
  m.numStages = static_cast<int>(integer("num_stages"));
  m.numMicrobatches = static_cast<int>(integer("num_microbatches"));
  m.replicas = static_cast<int>(integer("replicas"));
  m.optimizer = string("optimizer");
  const JsonValue &layout = member("rank_stages");
  if (!layout.isArray())
    manifestError(path, "'rank_stages' is not an array");
  for (const JsonValue &stages : layout.array) {
    if (!stages.isArray())
      manifestError(path, "'rank_stages' is not an array of arrays");
    m.rankStages.emplace_back();
    for (const JsonValue &stage : stages.array)
      m.rankStages.back().push_back(static_cast<int>(stage.integer));
  }
  const JsonValue &files = member("files");
  if (!files.isArray())
    manifestError(path, "'files' is not an array");
  for (const JsonValue &entry : files.array) {
    const JsonValue *rank = entry.find("rank");
    const JsonValue *name = entry.find("file");
    const JsonValue *bytes = entry.find("bytes");
    const JsonValue *hash = entry.find("fnv1a");
    if (!rank || !name || !bytes || !hash || !name->isString() ||
        !hash->isString() || !rank->isInteger || !bytes->isInteger ||
        name->string.find('/') != std::string::npos)
      manifestError(path, "malformed entry in 'files'");
    CheckpointFile f;
    f.rank = static_cast<int>(rank->integer);
    f.name = name->string;
    f.bytes = static_cast<uint64_t>(bytes->integer);
    f.hash = std::strtoull(hash->string.c_str(), nullptr, 16);
    m.files.push_back(f);
  }
  if (const JsonValue *copies = root.find("copies")) {
    if (!copies->isArray())
      manifestError(path, "'copies' is not an array");
    for (const JsonValue &entry : copies->array) {
      const JsonValue *name = entry.find("name");
      const JsonValue *ranks = entry.find("ranks");
      const JsonValue *hash = entry.find("fnv1a");
      if (!name || !ranks || !hash || !name->isString() || !ranks->isArray() ||
          !hash->isString())
        manifestError(path, "malformed entry in 'copies'");
      CheckpointCopy c;
      c.name = name->string;
      for (const JsonValue &rank : ranks->array) {
        if (!rank.isNumber() || !rank.isInteger)
          manifestError(path, "malformed entry in 'copies'");
        c.ranks.push_back(static_cast<int>(rank.integer));
      }
      c.hash = std::strtoull(hash->string.c_str(), nullptr, 16);
      m.copies.push_back(c);
    }
  }
  return m;
}

std::string findLatestCheckpoint(const std::string &dir,
                                 std::vector<std::string> &incomplete) {
  DIR *handle = ::opendir(dir.c_str());
  if (!handle)
    return "";
  std::vector<std::pair<long long, std::string>> steps;
  while (struct dirent *entry = ::readdir(handle)) {
    std::string name = entry->d_name;
    if (name.rfind("step-", 0) != 0 || name.size() <= 5 ||
        name.find_first_not_of("0123456789", 5) != std::string::npos)
      continue;
    steps.emplace_back(std::stoll(name.substr(5)), name);
  }
  ::closedir(handle);
  std::sort(steps.rbegin(), steps.rend());
  for (const auto &[step, name] : steps) {
    std::string stepDir = dir + "/" + name;
    if (fileExists(stepDir + "/manifest.json"))
      return stepDir;
    incomplete.push_back(stepDir);
  }
  return "";
}

CheckpointFile hashFile(const std::string &path) {
  InputFile file(path);
  CheckpointFile result;
  result.bytes = file.size();
  result.hash = kFnvOffset;
  std::vector<char> buffer(1 << 20);
  for (uint64_t offset = 0; offset < file.size();) {
    size_t bytes = static_cast<size_t>(
        std::min<uint64_t>(buffer.size(), file.size() - offset));
    file.readAt(offset, buffer.data(), bytes, "its contents");
    result.hash = fnvUpdate(result.hash, buffer.data(), bytes);
    offset += bytes;
  }
  return result;
}

} // namespace pipewave::runtime

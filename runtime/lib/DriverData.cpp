//===- DriverData.cpp - Data files and parameter values -------------------===//
//
// Part of the pipewave project.
//
// --data: every rank checks every file's header against the model (so all
// report the same error), then reads the files its stages use; a file holds
// one or more global batches, one per step. --init (or the deterministic
// default): the parameter values, matched by name.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Init.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Npy.h"
#include "pipewave-runtime/Safetensors.h"

#include <cstdio>
#include <set>

#include <unistd.h>

namespace pipewave::runtime {

void Driver::loadData() {
  std::map<std::string, int> byName;
  std::string dataNames;
  for (int i = 0; i < model.num_inputs; ++i) {
    byName[inputName(model, i)] = i;
    if (isBatchInput(model, i))
      dataNames += (dataNames.empty() ? "" : ", ") + inputName(model, i);
  }
  std::map<int, std::string> files;
  for (const auto &[name, file] : options.data) {
    auto it = byName.find(name);
    if (it == byName.end())
      usageError("--data " + name + "=" + file +
                 ": the model has no data input '" + name + "' (data inputs: " +
                 (dataNames.empty() ? "none" : dataNames) + ")");
    if (isCounterInput(model, it->second))
      usageError("--data " + name + "=" + file + ": '" + name +
                 "' is the step counter of dropout, which the runtime fills "
                 "(its masks follow --seed)");
    if (model.input_is_param[it->second])
      usageError("--data " + name + "=" + file + ": '" + name +
                 "' is a parameter, not a data input (give parameters with "
                 "--init FILE.safetensors)");
    if (files.count(it->second))
      usageError("--data given twice for '" + name + "'");
    files[it->second] = file;
  }
  std::string missing;
  for (int i = 0; i < model.num_inputs; ++i)
    if (isBatchInput(model, i) && !files.count(i))
      missing += (missing.empty() ? "'" : ", '") + inputName(model, i) + "'";
  if (!missing.empty())
    usageError("missing data input " + missing +
               " (give each with --data NAME=FILE.npy; see --help)");

  // Every rank checks every file's header, so all report the same error. A
  // file holds one global batch or several (dimension 0 a multiple of the
  // model's), used in turn, one per step.
  int replicas = numReplicas(model);
  std::string firstName;
  for (const auto &[index, file] : files) {
    const pw_tensor_info &input = model.inputs[index];
    NpyHeader header = readNpyHeader(file);
    std::vector<int64_t> expected = shapeOf(input);
    std::vector<int64_t> inner(expected.begin() + 1, expected.end());
    bool ok = header.dtype == input.dtype &&
              header.shape.size() == expected.size() && expected[0] > 0 &&
              header.shape[0] > 0 && header.shape[0] % expected[0] == 0 &&
              std::vector<int64_t>(header.shape.begin() + 1,
                                   header.shape.end()) == inner;
    if (!ok) {
      std::vector<int64_t> micro = microbatchShape(
          expected, model.num_microbatches * replicas, inputName(model, index));
      usageError(
          "data input '" + inputName(model, index) + "': '" + file +
          "' holds " + dtypeName(header.dtype) + " " +
          shapeString(header.shape) + " but the model expects " +
          dtypeName(input.dtype) + " " + shapeString(expected) +
          " (the global batch: " +
          (replicas > 1 ? std::to_string(replicas) + " replicas x " : "") +
          std::to_string(model.num_microbatches) + " microbatches of " +
          shapeString(micro) + ") or a multiple of " +
          std::to_string(expected[0]) + " rows (one global batch per step)");
    }
    int64_t batches = header.shape[0] / expected[0];
    if (firstName.empty()) {
      firstName = inputName(model, index);
      dataBatches = batches;
      globalBatch = expected[0];
    } else if (batches != dataBatches) {
      usageError("the data files hold different numbers of global batches: '" +
                 firstName + "' " + std::to_string(dataBatches) + ", '" +
                 inputName(model, index) + "' " + std::to_string(batches) +
                 " (each step reads the next global batch of every file)");
    }
  }
  for (const auto &[index, file] : files)
    if (used[index])
      inputTensors[index] = readNpy(file);
  for (int i = 0; i < model.num_inputs; ++i)
    if (isCounterInput(model, i) && used[i])
      inputTensors[i] = HostTensor(PW_I64, shapeOf(model.inputs[i]));
}

namespace {

/// The model's own weights file (pw_model::weights_file) beside the
/// running executable.
std::string modelWeightsPath(const pw_model &model) {
  std::string dir = ".";
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    std::string path(exe, static_cast<size_t>(n));
    size_t slash = path.rfind('/');
    if (slash != std::string::npos)
      dir = slash == 0 ? "/" : path.substr(0, slash);
  }
  return dir + (dir.back() == '/' ? "" : "/") + model.weights_file;
}

} // namespace

void Driver::loadParameters() {
  int tensors = 0;
  int64_t values = 0;
  for (int i = 0; i < model.num_inputs; ++i)
    if (model.input_is_param[i]) {
      ++tensors;
      values += numElements(shapeOf(model.inputs[i]));
    }
  if (!tensors)
    return;
  std::string counted = std::to_string(values) + " values in " +
                        std::to_string(tensors) + " tensors";
  // Where the values come from: --init, else the model's own weights, else
  // the deterministic default.
  std::string source = "--init '" + options.initFile + "'";
  if (options.initFile.empty() && model.weights_file) {
    options.initFile = modelWeightsPath(model);
    source = "the model's weights '" + options.initFile + "'";
    std::FILE *probe = std::fopen(options.initFile.c_str(), "rb");
    if (!probe)
      usageError("the model's weights '" + options.initFile +
                 "' are missing (pipewave-compile writes them beside the "
                 "binary); copy them there or give --init FILE.safetensors");
    std::fclose(probe);
  }
  if (options.initFile.empty()) {
    if (rank == 0)
      report(nullptr, "no --init file: parameters initialised "
                      "deterministically (uniform +-1/sqrt(fan_in), seed " +
                          std::to_string(options.seed) + "), " + counted);
    for (int i = 0; i < model.num_inputs; ++i) {
      if (!model.input_is_param[i] || !used[i])
        continue;
      const pw_tensor_info &info = model.inputs[i];
      inputTensors[i] = HostTensor(info.dtype, shapeOf(info));
      initParameter(inputName(model, i), info.dtype, shapeOf(info),
                    options.seed, inputTensors[i].data());
    }
    return;
  }
  SafetensorsReader reader(options.initFile);
  std::set<std::string> names;
  for (int i = 0; i < model.num_inputs; ++i) {
    if (!model.input_is_param[i])
      continue;
    std::string name = inputName(model, i);
    names.insert(name);
    const pw_tensor_info &info = model.inputs[i];
    const SafetensorsEntry *entry = reader.find(name);
    if (!entry)
      usageError(source + " has no tensor '" + name + "' for parameter '" +
                 name + "' (" + dtypeName(info.dtype) + " " +
                 shapeString(shapeOf(info)) + ")");
    if (entry->dtype != info.dtype || entry->shape != shapeOf(info))
      usageError(source + ": tensor '" + name + "' is " +
                 dtypeName(entry->dtype) + " " + shapeString(entry->shape) +
                 " but parameter '" + name + "' is " + dtypeName(info.dtype) +
                 " " + shapeString(shapeOf(info)));
  }
  for (int i = 0; i < model.num_inputs; ++i) {
    if (!model.input_is_param[i] || !used[i])
      continue;
    const pw_tensor_info &info = model.inputs[i];
    inputTensors[i] = HostTensor(info.dtype, shapeOf(info));
    reader.read(inputName(model, i), info.dtype, shapeOf(info),
                inputTensors[i].data());
  }
  if (rank == 0) {
    report(nullptr, "parameters from " + source + ", " + counted);
    std::string unused;
    int count = 0;
    for (const SafetensorsEntry &entry : reader.entries())
      if (!names.count(entry.name) && count++ < 8)
        unused += (unused.empty() ? "" : ", ") + entry.name;
    if (count)
      report(nullptr, "note: ignoring " + std::to_string(count) +
                          " tensor(s) of '" + options.initFile +
                          "' that are not parameters of the model: " + unused +
                          (count > 8 ? ", ..." : ""));
  }
}

void Driver::setBatch(Executor &executor, int64_t position, int64_t step) {
  for (int i = 0; i < model.num_inputs; ++i) {
    if (model.input_is_param[i] || !used[i])
      continue;
    if (isCounterInput(model, i)) {
      // Row b: [seed, step, b] (model.h, the step counter).
      auto *rows = static_cast<int64_t *>(inputTensors[i].data());
      for (int64_t b = 0, e = model.inputs[i].shape[0]; b < e; ++b) {
        rows[3 * b] = static_cast<int64_t>(options.seed);
        rows[3 * b + 1] = step;
        rows[3 * b + 2] = b;
      }
      executor.setInput(i, rows);
      continue;
    }
    executor.setInput(i, batchOf(i, position));
  }
}

void Driver::prefetchBatch(Executor &executor, int64_t position) {
  for (int i = 0; i < model.num_inputs; ++i)
    if (used[i] && isBatchInput(model, i))
      executor.prefetchInput(i, batchOf(i, position));
}

const void *Driver::batchOf(int input, int64_t position) const {
  return static_cast<const char *>(inputTensors[input].data()) +
         static_cast<size_t>(position) * tensorBytes(model.inputs[input]);
}

} // namespace pipewave::runtime

//===- DriverOutputs.cpp - Expected, combined and written outputs ---------===//
//
// Part of the pipewave project.
//
// --expect files are read before the first step; after the last one the
// output rank combines the replicas' outputs, prints each output's sum and
// checksum, writes --out and compares with --expect.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/File.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Npy.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

namespace pipewave::runtime {

void Driver::prepareOutputs() {
  std::map<std::string, int> byName;
  for (int o = 0; o < model.num_outputs; ++o)
    byName[outputName(model, o)] = o;
  for (const auto &[name, file] : options.expect) {
    auto it = byName.find(name);
    if (it == byName.end())
      usageError("--expect " + name + "=" + file +
                 ": the model has no output '" + name + "'");
    if (!isOutputRank)
      continue;
    const pw_tensor_info &info = model.outputs[it->second];
    HostTensor tensor = readNpy(file);
    if (tensor.dtype != info.dtype || tensor.shape != shapeOf(info))
      usageError("--expect " + name + "=" + file + ": the file holds " +
                 dtypeName(tensor.dtype) + " " + shapeString(tensor.shape) +
                 " but output '" + name + "' is " + dtypeName(info.dtype) +
                 " " + shapeString(shapeOf(info)));
    expected[it->second] = std::move(tensor);
  }
  if (isOutputRank && !options.outDir.empty())
    makeDirectories(options.outDir);
}

std::vector<HostTensor>
Driver::combineReplicaOutputs(const Executor &executor) {
  // Each replica's last-stage rank holds its rows (concatenated outputs) or
  // its partial sums; the output rank (replica 0's) combines them in
  // replica order.
  std::string bytes;
  if (executor.holdsOutputs())
    for (const HostTensor &output : executor.outputs())
      bytes.append(static_cast<const char *>(output.data()), output.bytes());
  int root = outputRank(model);
  std::vector<std::string> parts = backend->gather(bytes, root);
  std::vector<HostTensor> combined;
  if (rank != root)
    return combined;
  int replicas = numReplicas(model);
  for (int o = 0; o < model.num_outputs; ++o)
    combined.emplace_back(model.outputs[o].dtype, shapeOf(model.outputs[o]));
  std::vector<int> holders = stageHolders(model, model.num_stages - 1);
  for (int k = 0; k < replicas; ++k) {
    const char *at = parts[holders[k]].data();
    for (int o = 0; o < model.num_outputs; ++o) {
      HostTensor &out = combined[o];
      if (model.output_combine[o] == PW_CONCAT_BATCH) {
        size_t part = out.bytes() / static_cast<size_t>(replicas);
        std::memcpy(static_cast<char *>(out.data()) + part * k, at + part * k,
                    part);
      } else {
        addValues(out.dtype, out.data(), at, static_cast<size_t>(out.size()));
      }
      at += out.bytes();
    }
  }
  return combined;
}

int Driver::finishOutputs(const std::vector<HostTensor> &outputs) {
  int status = ExitOk;
  for (int o = 0; o < model.num_outputs; ++o) {
    const HostTensor &output = outputs[o];
    std::string name = outputName(model, o);
    size_t count = static_cast<size_t>(output.size());
    char hash[32];
    std::snprintf(hash, sizeof(hash), "0x%016" PRIx64,
                  fnv1a(output.data(), output.bytes()));
    printLine(
        "output " + name + ": shape " + shapeString(output.shape) + ", sum " +
        formatDouble("%.6e", elementSum(output.dtype, output.data(), count)) +
        ", checksum " + hash);
    if (!options.outDir.empty()) {
      std::string file = name;
      for (char &c : file)
        if (c == '/' || c == '\\' || c == '\0')
          c = '_';
      writeNpy(options.outDir + "/" + file + ".npy", output);
    }
    auto it = expected.find(o);
    if (it == expected.end())
      continue;
    const HostTensor &want = it->second;
    size_t bad = 0, first = 0;
    double worst = 0;
    auto value = [](const HostTensor &t, size_t i) {
      return elementSum(
          t.dtype, static_cast<const char *>(t.data()) + i * dtypeSize(t.dtype),
          1);
    };
    for (size_t i = 0; i < count; ++i) {
      double got = value(output, i), ref = value(want, i);
      if (std::isnan(got) && std::isnan(ref))
        continue;
      double diff = std::fabs(got - ref);
      if (!(diff <= options.tolerance * std::max(1.0, std::fabs(ref)))) {
        if (bad++ == 0)
          first = i;
      }
      if (diff > worst || std::isnan(diff))
        worst = diff;
    }
    if (bad == 0) {
      printLine("expect " + name + ": ok (" + std::to_string(count) +
                " values, max abs diff " + formatDouble("%.3e", worst) + ")");
      continue;
    }
    std::vector<int64_t> index(output.shape.size());
    size_t rest = first;
    for (size_t d = index.size(); d-- > 0;) {
      index[d] = static_cast<int64_t>(rest % output.shape[d]);
      rest /= output.shape[d];
    }
    report(backend.get(),
           "expect " + name + ": MISMATCH: " + std::to_string(bad) + " of " +
               std::to_string(count) + " values differ by more than " +
               formatDouble("%g", options.tolerance) +
               " (relative); first at " + shapeString(index) + ": got " +
               formatDouble("%.9g", value(output, first)) + ", expected " +
               formatDouble("%.9g", value(want, first)));
    status = ExitFailure;
  }
  return status;
}

} // namespace pipewave::runtime

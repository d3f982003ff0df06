//===- SummaryPrint.cpp - The compile summary as text and as JSON ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Text for people (readable sizes and times, one line per stage and a run
// command to copy) and JSON for tools (raw bytes and seconds). Both print
// the fields in a fixed order.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Device.h"
#include "pipewave/Summary/CompileSummary.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace pipewave;

namespace {

/// "1,234,567".
std::string withCommas(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string text;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      text += ',';
    text += digits[i];
  }
  return value < 0 ? "-" + text : text;
}

/// "0", "0,1" or "0-3" (a run of consecutive values) for ascending values.
std::string formatList(const std::vector<int> &values) {
  bool consecutive = values.size() > 2;
  for (size_t i = 1; i < values.size(); ++i)
    consecutive &= values[i] == values[i - 1] + 1;
  if (consecutive)
    return std::to_string(values.front()) + "-" + std::to_string(values.back());
  std::string text;
  for (int value : values)
    text += (text.empty() ? "" : ",") + std::to_string(value);
  return text;
}

/// "params w0 b0 w1 b1 (97.0 KiB)", "params w0 .. b3 (8 tensors, 129
/// KiB)" for more than four, "no params".
std::string formatParams(const std::vector<std::string> &names, double bytes) {
  if (names.empty())
    return "no params";
  std::string size = sim::formatBytes(bytes);
  if (names.size() > 4)
    return "params " + names.front() + " .. " + names.back() + " (" +
           std::to_string(names.size()) + " tensors, " + size + ")";
  std::string text = "params";
  for (const std::string &name : names)
    text += " " + name;
  return text + " (" + size + ")";
}

/// "tosa.matmul (mlp.mlir:49)".
std::string formatOp(const std::string &name, const std::string &location) {
  return location.empty() ? name : name + " (" + location + ")";
}

const char *formatName(const std::string &format) {
  if (format == "onnx")
    return "ONNX";
  if (format == "stablehlo")
    return "StableHLO";
  return "TOSA MLIR";
}

} // namespace

void pipewave::printSummaryText(const CompileSummary &s,
                                llvm::raw_ostream &os) {
  os << "pipewave-compile: " << s.modelFile;
  if (!s.output.empty())
    os << " -> " << s.output;
  os << "\n";
  os << "  model      " << formatName(s.modelFormat) << ", "
     << withCommas(s.numParameters) << " parameter tensors, "
     << withCommas(s.parameterElements) << " values ("
     << sim::formatBytes(s.parameterBytes) << ")\n";
  if (!s.dataInputs.empty()) {
    os << "  data       ";
    for (size_t i = 0; i < s.dataInputs.size(); ++i)
      os << (i ? ", " : "") << s.dataInputs[i].name << " "
         << s.dataInputs[i].type;
    os << " (batch " << s.batch << ")\n";
  }
  os << "  schedule   " << s.schedule << (s.autoSchedule ? " (auto)" : "")
     << ", " << s.microbatches
     << (s.microbatches == 1 ? " microbatch, " : " microbatches, ")
     << s.numStages << (s.numStages == 1 ? " stage" : " stages") << " on "
     << s.numRanks << (s.numRanks == 1 ? " rank" : " ranks");
  if (s.replicas > 1)
    os << " (" << s.replicas << " replicas)";
  os << (s.forwardOnly ? ", inference" : ", training, recompute " + s.recompute)
     << "\n";
  for (size_t i = 0; i < s.stages.size(); ++i) {
    const StageSummary &stage = s.stages[i];
    os << "  stage " << llvm::left_justify(std::to_string(i), 4)
       << (stage.ranks.size() == 1 ? "rank " : "ranks ")
       << formatList(stage.ranks) << ": " << stage.numOps << " ops, "
       << formatOp(stage.firstOp, stage.firstOpLocation) << " .. "
       << formatOp(stage.lastOp, stage.lastOpLocation) << "; "
       << formatParams(stage.parameters, stage.parameterBytes) << "\n";
  }
  os << "  predicted  on " << s.device;
  if (!s.deviceReason.empty())
    os << " (" << s.deviceReason << ")";
  os << ": step " << sim::formatSeconds(s.stepSeconds) << ", bubble "
     << llvm::format("%.1f%%", 100 * s.bubbleFraction) << "\n";
  os << "  memory     peak per rank";
  for (size_t r = 0; r < s.ranks.size(); ++r)
    os << (r ? ", " : " ") << r << ": "
       << sim::formatBytes(s.ranks[r].peakMemoryBytes);
  os << (s.fits ? "; fits in " : "; does NOT fit in ")
     << sim::formatBytes(s.deviceMemoryBytes) << " per device\n";
  if (!s.runCommand.empty())
    os << "  run        " << s.runCommand << "\n";
  if (!s.matmul.empty())
    os << "  matmul     " << s.matmul << "\n";
}

void pipewave::printSummaryJson(const CompileSummary &s,
                                llvm::raw_ostream &os) {
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attributeObject("model", [&] {
      json.attribute("file", s.modelFile);
      json.attribute("format", s.modelFormat);
      json.attribute("batch", s.batch);
      json.attributeArray("data", [&] {
        for (const InputSummary &input : s.dataInputs)
          json.object([&] {
            json.attribute("name", input.name);
            json.attribute("type", input.type);
          });
      });
    });
    json.attributeObject("parameters", [&] {
      json.attribute("tensors", s.numParameters);
      json.attribute("elements", s.parameterElements);
      json.attribute("bytes", s.parameterBytes);
    });
    json.attributeObject("schedule", [&] {
      json.attribute("name", s.schedule);
      json.attribute("auto", s.autoSchedule);
      json.attribute("microbatches", s.microbatches);
      json.attribute("stages", s.numStages);
      json.attribute("ranks", s.numRanks);
      json.attribute("replicas", s.replicas);
      json.attribute("forward_only", s.forwardOnly);
      json.attribute("recompute", s.recompute);
    });
    if (!s.matmul.empty())
      json.attribute("matmul", s.matmul);
    json.attributeArray("stages", [&] {
      for (size_t i = 0; i < s.stages.size(); ++i) {
        const StageSummary &stage = s.stages[i];
        json.object([&] {
          json.attribute("stage", static_cast<int64_t>(i));
          json.attribute("function", stage.function);
          json.attribute("ops", stage.numOps);
          json.attribute("first_op", stage.firstOp);
          json.attribute("first_op_location", stage.firstOpLocation);
          json.attribute("last_op", stage.lastOp);
          json.attribute("last_op_location", stage.lastOpLocation);
          json.attributeArray("parameters", [&] {
            for (const std::string &name : stage.parameters)
              json.value(name);
          });
          json.attribute("parameter_elements", stage.parameterElements);
          json.attribute("parameter_bytes", stage.parameterBytes);
          json.attributeArray("ranks", [&] {
            for (int rank : stage.ranks)
              json.value(rank);
          });
        });
      }
    });
    json.attributeArray("ranks", [&] {
      for (size_t r = 0; r < s.ranks.size(); ++r)
        json.object([&] {
          json.attribute("rank", static_cast<int64_t>(r));
          json.attributeArray("stages", [&] {
            for (int stage : s.ranks[r].stages)
              json.value(stage);
          });
          json.attribute("peak_memory_bytes", s.ranks[r].peakMemoryBytes);
          json.attribute("fits", s.ranks[r].fits);
        });
    });
    json.attributeObject("prediction", [&] {
      json.attribute("device", s.device);
      json.attribute("device_description", s.deviceDescription);
      json.attribute("device_reason", s.deviceReason);
      json.attribute("device_memory_bytes", s.deviceMemoryBytes);
      json.attribute("step_seconds", s.stepSeconds);
      json.attribute("bubble_fraction", s.bubbleFraction);
      json.attribute("fits", s.fits);
    });
    json.attribute("output", s.output);
    json.attribute("run", s.runCommand);
  });
  os << "\n";
}

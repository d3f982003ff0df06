//===- Measure.cpp - Timing compiled models -------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Measure.h"

#include "pipewave/Support/Json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace pipewave::calibrate {

namespace {

/// Writes an [shape] float32 .npy file with values in [-1, 1].
bool writeNpy(const std::string &path, const std::vector<int64_t> &shape) {
  std::string dims;
  int64_t count = 1;
  for (int64_t dim : shape) {
    dims += std::to_string(dim) + ", ";
    count *= dim;
  }
  if (shape.size() > 1)
    dims.erase(dims.size() - 2);
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t length = static_cast<uint16_t>(header.size());
  out.put(static_cast<char>(length & 0xff));
  out.put(static_cast<char>(length >> 8));
  out << header;
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    values[i] = static_cast<float>((i * 7919) % 2001) / 1000.0f - 1.0f;
  out.write(reinterpret_cast<const char *>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(float)));
  return static_cast<bool>(out);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// BASE.trace.json parsed, with a traceEvents array; nullopt with `error`
/// set otherwise.
std::optional<json::JsonValue> readTrace(const std::string &base,
                                         std::string &error) {
  std::string message;
  std::optional<json::JsonValue> trace =
      json::parseJson(readFile(base + ".trace.json"), &message);
  const json::JsonValue *events = trace ? trace->find("traceEvents") : nullptr;
  if (!events || !events->isArray()) {
    error = base + ".trace.json: no traceEvents " + message;
    return std::nullopt;
  }
  return trace;
}

/// Seconds from the first complete slice's start to the last one's end.
double traceSpan(const json::JsonValue &trace) {
  double first = 0, last = 0;
  bool any = false;
  for (const json::JsonValue &event : trace.find("traceEvents")->array) {
    const json::JsonValue *ph = event.find("ph");
    const json::JsonValue *ts = event.find("ts");
    const json::JsonValue *dur = event.find("dur");
    if (!ph || ph->string != "X" || !ts || !dur)
      continue;
    first = any ? std::min(first, ts->number) : ts->number;
    last = any ? std::max(last, ts->number + dur->number)
               : ts->number + dur->number;
    any = true;
  }
  return any ? (last - first) * 1e-6 : 0.0;
}

} // namespace

bool Runner::run(const std::string &command, const std::string &log,
                 std::string &error) {
  if (std::system((command + " > " + log + " 2>&1").c_str()) == 0)
    return true;
  std::string text = readFile(log);
  if (text.size() > 2000)
    text = text.substr(text.size() - 2000);
  error = "'" + command + "' failed:\n" + text;
  return false;
}

std::optional<Timing> Runner::time(const Model &model, const std::string &name,
                                   std::string &error) {
  std::string base = workDir + "/" + name;
  std::string data;
  for (const auto &[input, shape] : model.data)
    data += " --data " + input + "=" + base + "." + input + ".npy";
  std::string flags = std::string(" --stages 1 --quiet") +
                      (model.training ? "" : " --inference") +
                      (cuda ? " --target cuda" : "") + compileFlags +
                      model.compileFlags;
  std::string compile = binDir + "/pipewave-compile " + base + ".mlir -o " +
                        base + ".bin" + flags;
  // A model of one small op runs all its steps within a millisecond, and
  // its ops run slower there than later: a 4x128x128 matmul's F took
  // 1.31 us over the first 0.2 ms of a run and 0.86 us from 0.3 ms on,
  // with either matmul kernel (the core leaving idle; the same on one
  // run after another). A pipeline's actions run in the later state, so a
  // model whose run was shorter than kSteadyRunSeconds runs again with
  // enough steps to last that long, and only its last `steps` steps count
  // (on the CPU, of an inference model).
  constexpr double kSteadyRunSeconds = 0.05;
  constexpr int kMostSteps = 20000;
  auto runCommand = [&](int count) {
    std::string traceArgs =
        " --steps " + std::to_string(count) + " --trace " + base +
        ".trace.json" + (model.training ? " --optimizer adam --lr 0.001" : "");
    // A CUDA binary runs on this process's GPU without a launcher.
    return (cuda ? base + ".bin" + data
                 : binDir + "/pipewave-run -n 1 " + base + ".bin" + data) +
           traceArgs;
  };
  // What the binary is compiled from, without this machine's paths.
  std::string key = flags + "\n" + model.text;
  std::string &built = compiled[name];
  if (built != key && readFile(base + ".key") == key &&
      std::ifstream(base + ".bin").good())
    built = key;
  if (built != key) {
    // The model's source and binary, and the key they were built from.
    built.clear();
    {
      std::ofstream out(base + ".mlir");
      out << model.text;
    }
    if (!std::ifstream(binDir + "/pipewave-compile").good()) {
      error = "'" + base + ".bin' was not compiled beforehand (for '" +
              flags.substr(1) + "') and there is no pipewave-compile in '" +
              binDir + "'";
      return std::nullopt;
    }
    if (!Runner::run(compile, base + ".compile.log", error))
      return std::nullopt;
    std::ofstream(base + ".key") << key;
    built = key;
  }
  for (const auto &[input, shape] : model.data) {
    std::string path = base + "." + input + ".npy";
    if (!std::ifstream(path).good() && !writeNpy(path, shape)) {
      error = "cannot write '" + path + "'";
      return std::nullopt;
    }
  }
  if (compileOnly)
    return Timing{1e-3, 1e-3, 1e-6};
  if (!Runner::run(runCommand(steps), base + ".run.log", error))
    return std::nullopt;
  std::optional<json::JsonValue> trace = readTrace(base, error);
  if (!trace)
    return std::nullopt;
  // Not a training model: over thousands of steps its Adam moments decay
  // into subnormal numbers, which ran a 64x64 step 20x slower.
  int ran = cuda || model.training
                ? steps
                : stepsForSteadyRun(steps, traceSpan(*trace), kSteadyRunSeconds,
                                    kMostSteps);
  if (ran != steps) {
    if (!Runner::run(runCommand(ran), base + ".run.log", error))
      return std::nullopt;
    trace = readTrace(base, error);
    if (!trace)
      return std::nullopt;
  }
  const int firstStep = firstCountedStep(ran, steps);
  const json::JsonValue *events = trace->find("traceEvents");
  std::vector<double> forward, optimizer;
  // By step: each slice's start and end (µs) and whether it is an action.
  std::map<int, std::vector<Slice>> slices;
  for (const json::JsonValue &event : events->array) {
    const json::JsonValue *ph = event.find("ph");
    const json::JsonValue *nameField = event.find("name");
    const json::JsonValue *dur = event.find("dur");
    const json::JsonValue *args = event.find("args");
    const json::JsonValue *step = args ? args->find("step") : nullptr;
    if (!ph || ph->string != "X" || !nameField || !dur || !step ||
        step->number < firstStep)
      continue;
    if (nameField->string.rfind("F s0", 0) == 0)
      forward.push_back(dur->number * 1e-6);
    else if (nameField->string == "optimizer s0")
      optimizer.push_back(dur->number * 1e-6);
    const json::JsonValue *ts = event.find("ts");
    if (ts)
      slices[static_cast<int>(step->number)].push_back(
          {ts->number * 1e-6, (ts->number + dur->number) * 1e-6,
           isActionName(nameField->string)});
  }
  std::vector<double> gaps;
  for (auto &[step, list] : slices)
    for (double gap : gapsAfterActions(std::move(list)))
      gaps.push_back(gap);
  if (forward.empty()) {
    error = base + ".trace.json: no F slice after step 1";
    return std::nullopt;
  }
  return Timing{typicalMean(forward), typicalMean(optimizer),
                typicalMean(gaps)};
}

std::optional<Timing> Runner::pooled(const Model &model,
                                     const std::string &name,
                                     std::string &error,
                                     const std::string &poolAs) {
  std::optional<Timing> timing = time(model, name, error);
  if (!timing)
    return std::nullopt;
  const std::string &pool = poolAs.empty() ? name : poolAs;
  return Timing{forward.add(pool, timing->forward),
                optimizer.add(pool, timing->optimizer),
                between.add(pool, timing->between)};
}

std::optional<CommFigures> measureComm(const Runner &runner,
                                       const std::string &self, bool quick,
                                       std::string &error) {
  std::string out = runner.work() + "/comm.txt";
  std::string command = runner.bin() + "/pipewave-run -n 2 " + self +
                        " --comm-worker " + out + (quick ? " --quick" : "");
  if (!Runner::run(command, runner.work() + "/comm.log", error))
    return std::nullopt;
  CommFigures figures;
  std::istringstream in(readFile(out));
  if (!(in >> figures.latencySeconds >> figures.bytesPerSecond >>
        figures.allReduceLatencySeconds >> figures.allReduceBytesPerSecond)) {
    error = "the two-rank worker wrote no figures to '" + out + "'";
    return std::nullopt;
  }
  // Then one line per message size: its bytes, one-way seconds, and the
  // sender's and the receiver's CPU seconds, and the receiver's wait for a
  // message that arrived while it was outside MPI.
  MessageFigures message;
  while (in >> message.bytes >> message.seconds >> message.sendSeconds >>
         message.recvSeconds >> message.deliverSeconds)
    figures.messages.push_back(message);
  return figures;
}

} // namespace pipewave::calibrate

//===- Options.cpp - Command line of a compiled model ---------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Options.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Tensor.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace pipewave::runtime {

namespace {

std::pair<std::string, std::string> splitAssignment(const std::string &option,
                                                    const std::string &value) {
  size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
    usageError(option + " expects NAME=FILE, got '" + value + "'");
  return {value.substr(0, eq), value.substr(eq + 1)};
}

long long parseInteger(const std::string &option, const std::string &value,
                       long long min) {
  errno = 0;
  char *end = nullptr;
  long long parsed = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end || errno || parsed < min)
    usageError(option + " expects an integer >= " + std::to_string(min) +
               ", got '" + value + "'");
  return parsed;
}

double parseNumber(const std::string &option, const std::string &value) {
  errno = 0;
  char *end = nullptr;
  double parsed = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || errno || !std::isfinite(parsed) || parsed < 0)
    usageError(option + " expects a non-negative number, got '" + value + "'");
  return parsed;
}

WaitMode parseWaitMode(const std::string &value) {
  if (value == "spin")
    return WaitMode::Spin;
  if (value == "yield")
    return WaitMode::Yield;
  if (value != "auto")
    usageError("--wait expects spin, yield or auto, got '" + value + "'");
  return WaitMode::Auto;
}

} // namespace

Options parseOptions(int argc, char **argv) {
  Options options;
  static const char *const kValued[] = {"--data",
                                        "--expect",
                                        "--out",
                                        "--init",
                                        "--trace",
                                        "--seed",
                                        "--steps",
                                        "--timeout",
                                        "--tolerance",
                                        "--spare-slots",
                                        "--threads",
                                        "--wait",
                                        "--lr",
                                        "--optimizer",
                                        "--momentum",
                                        "--dampening",
                                        "--weight-decay",
                                        "--betas",
                                        "--eps",
                                        "--log-json",
                                        "--checkpoint-dir",
                                        "--checkpoint-every",
                                        "--on-nonfinite"};
  bool weightDecayGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        hasValue = true;
      }
    }
    if (name == "--help" || name == "-h") {
      options.help = true;
      continue;
    }
    if (name == "--print-ranks") {
      options.printRanks = true;
      continue;
    }
    if (name == "--print-plan") {
      options.printPlan = true;
      continue;
    }
    if (name == "--print-memory") {
      options.printMemory = true;
      continue;
    }
    if (name == "--sends-in-list-order") {
      if (hasValue)
        usageError(name + " takes no value");
      options.sendsInListOrder = true;
      continue;
    }
    if (name == "--cuda-graph") {
      if (hasValue)
        usageError(name + " takes no value");
      options.cudaGraph = true;
      continue;
    }
    if (name == "--nesterov" || name == "--resume" ||
        name == "--checkpoint-on-signal") {
      if (hasValue)
        usageError(name + " takes no value");
      if (name == "--nesterov") {
        options.optimizer.nesterov = true;
        options.trainingOptions.push_back(name);
      } else if (name == "--checkpoint-on-signal") {
        options.checkpointOnSignal = true;
        options.trainingOptions.push_back(name);
      } else {
        options.resume = true;
      }
      continue;
    }
    bool valued = false;
    for (const char *known : kValued)
      valued |= name == known;
    if (!valued) {
      if (arg.rfind("-", 0) == 0)
        usageError("unknown option '" + arg + "'");
      usageError("unexpected argument '" + arg + "'");
    }
    if (!hasValue) {
      if (i + 1 >= argc)
        usageError(name + " needs a value");
      value = argv[++i];
    }
    if (name == "--data")
      options.data.push_back(splitAssignment(name, value));
    else if (name == "--expect")
      options.expect.push_back(splitAssignment(name, value));
    else if (name == "--out")
      options.outDir = value;
    else if (name == "--init")
      options.initFile = value;
    else if (name == "--trace")
      options.traceFile = value;
    else if (name == "--seed")
      options.seed = static_cast<uint64_t>(parseInteger(name, value, 0));
    else if (name == "--steps")
      options.steps = static_cast<int>(parseInteger(name, value, 1));
    else if (name == "--timeout")
      options.timeout = parseNumber(name, value);
    else if (name == "--tolerance")
      options.tolerance = parseNumber(name, value);
    else if (name == "--spare-slots")
      options.spareSlots = static_cast<int>(parseInteger(name, value, 0));
    else if (name == "--threads")
      options.threads = static_cast<int>(parseInteger(name, value, 1));
    else if (name == "--wait")
      options.wait = parseWaitMode(value);
    else if (name == "--log-json")
      options.logJson = value;
    else if (name == "--checkpoint-dir")
      options.checkpointDir = value;
    else if (name == "--checkpoint-every")
      options.checkpointEvery = static_cast<int>(parseInteger(name, value, 1));
    else {
      options.trainingOptions.push_back(name);
      OptimizerConfig &opt = options.optimizer;
      if (name == "--optimizer") {
        if (!parseOptimizerKind(value, opt.kind))
          usageError("--optimizer expects sgd, adam or adamw, got '" + value +
                     "'");
      } else if (name == "--on-nonfinite") {
        if (value == "stop")
          options.onNonfinite = NonfinitePolicy::Stop;
        else if (value == "skip")
          options.onNonfinite = NonfinitePolicy::Skip;
        else
          usageError("--on-nonfinite expects stop or skip, got '" + value +
                     "'");
      } else if (name == "--lr") {
        opt.lr = parseNumber(name, value);
      } else if (name == "--momentum") {
        opt.momentum = parseNumber(name, value);
      } else if (name == "--dampening") {
        opt.dampening = parseNumber(name, value);
      } else if (name == "--weight-decay") {
        opt.weightDecay = parseNumber(name, value);
        weightDecayGiven = true;
      } else if (name == "--eps") {
        opt.eps = parseNumber(name, value);
      } else if (name == "--betas") {
        size_t comma = value.find(',');
        if (comma == std::string::npos)
          usageError("--betas expects BETA1,BETA2, got '" + value + "'");
        opt.beta1 = parseNumber(name, value.substr(0, comma));
        opt.beta2 = parseNumber(name, value.substr(comma + 1));
        if (opt.beta1 >= 1 || opt.beta2 >= 1)
          usageError("--betas must be in [0, 1), got '" + value + "'");
      }
    }
  }
  OptimizerConfig &opt = options.optimizer;
  if (!weightDecayGiven)
    opt.weightDecay = defaultWeightDecay(opt.kind);
  if (opt.nesterov && (opt.momentum <= 0 || opt.dampening != 0))
    usageError("--nesterov needs a --momentum above 0 and zero --dampening "
               "(as torch.optim.SGD)");
  if (opt.kind != OptimizerKind::SGD &&
      (opt.momentum != 0 || opt.dampening != 0 || opt.nesterov))
    usageError("--momentum, --dampening and --nesterov apply to "
               "--optimizer sgd; Adam's are --betas");
  if ((options.resume || options.checkpointEvery > 0 ||
       options.checkpointOnSignal) &&
      options.checkpointDir.empty())
    usageError(std::string(options.resume ? "--resume"
                           : options.checkpointEvery > 0
                               ? "--checkpoint-every"
                               : "--checkpoint-on-signal") +
               " needs --checkpoint-dir DIR");
  return options;
}

std::string usage(const char *program, const pw_model &model) {
  std::string text = std::string("usage: ") + program +
                     " [options]\n"
                     "  (run it on " +
                     std::to_string(model.num_ranks) + " rank" +
                     (model.num_ranks == 1 ? "" : "s") + ": pipewave-run -n " +
                     std::to_string(model.num_ranks) + " " + program +
                     " ...)\n\n";
  text += std::string("model '") + (model.name ? model.name : "") +
          "': " + std::to_string(model.num_stages) + " stages, " +
          std::to_string(model.num_microbatches) + " microbatches, schedule " +
          (model.schedule ? model.schedule : "?") +
          (model.forward_only ? " (forward only)" : "") + "\n";
  std::string data, params;
  for (int i = 0; i < model.num_inputs; ++i) {
    if (isCounterInput(model, i))
      continue;
    std::string line = "    " + inputName(model, i) + ": " +
                       dtypeName(model.inputs[i].dtype) + " " +
                       shapeString(shapeOf(model.inputs[i])) + "\n";
    (model.input_is_param[i] ? params : data) += line;
  }
  text += "  data inputs (--data NAME=FILE.npy, all required):\n" +
          (data.empty() ? "    (none)\n" : data);
  for (int i = 0; i < model.num_inputs; ++i)
    if (isCounterInput(model, i))
      text += "  dropout: masks from --seed and the step (step counter '" +
              inputName(model, i) + "', filled by the runtime)\n";
  text += "  parameters (--init FILE.safetensors):\n" +
          (params.empty() ? "    (none)\n" : params);
  text += "  outputs:\n";
  for (int o = 0; o < model.num_outputs; ++o)
    text += "    " + outputName(model, o) + ": " +
            dtypeName(model.outputs[o].dtype) + " " +
            shapeString(shapeOf(model.outputs[o])) + "\n";
  text +=
      "\noptions:\n"
      "  --data NAME=FILE.npy    data input NAME (batch on dimension 0)\n"
      "  --init FILE.safetensors parameter values, matched by name\n"
      "  --seed N                seed of the default parameter values and "
      "of dropout masks (default 0)\n"
      "  --steps K               run K steps (default 1) and report timing\n"
      "  --out DIR               write every output to DIR/NAME.npy\n"
      "  --expect NAME=FILE.npy  compare output NAME with FILE; exit 1 on a "
      "mismatch\n"
      "  --tolerance T           --expect passes when |out - expected| <= "
      "T * max(1, |expected|) (default 1e-5)\n"
      "  --trace FILE            write a Chrome/Perfetto trace of all ranks\n"
      "  --timeout SECONDS       give up a wait after SECONDS without "
      "progress (default 20; 0 = never)\n"
      "  --spare-slots N         extra buffer slots for sending and receiving "
      "(default 1)\n"
      "  --sends-in-list-order   issue each send at its place in the action "
      "list, not\n"
      "                          right after the action that computes its "
      "data\n"
      "  --threads N             GEMM (OpenBLAS) threads of each rank "
      "(default: the CPUs\n"
      "                          divided among this host's ranks, unless "
      "OPENBLAS_NUM_THREADS\n"
      "                          or OMP_NUM_THREADS is set)\n"
      "  --wait MODE             how a rank waits for messages: spin (poll"
      " back to back\n"
      "                          for 2 ms), yield (give the core away after"
      " 5 us) or auto\n"
      "                          (default: spin unless the host's ranks and"
      " their GEMM\n"
      "                          threads outnumber its CPUs)\n"
      "  --cuda-graph            CUDA models: capture one step's GPU work "
      "and replay it\n"
      "                          (falls back, with a note, where a step "
      "waits on the host)\n"
      "\ntraining (models compiled with a backward):\n"
      "  --steps K               train K steps (one global batch each; the "
      "data files\n"
      "                          may hold several, used in turn)\n"
      "  --optimizer NAME        sgd (default), adam or adamw (PyTorch "
      "semantics)\n"
      "  --lr X                  learning rate (default 0.01)\n"
      "  --momentum M            SGD momentum (default 0)\n"
      "  --dampening D           SGD dampening (default 0)\n"
      "  --nesterov              SGD Nesterov momentum\n"
      "  --weight-decay WD       default 0 (sgd, adam), 0.01 (adamw)\n"
      "  --betas B1,B2           Adam betas (default 0.9,0.999)\n"
      "  --eps E                 Adam epsilon (default 1e-8)\n"
      "  --on-nonfinite WHAT     a step with a non-finite gradient or loss:"
      " stop\n"
      "                          saving nothing of it (default), or skip its\n"
      "                          updates\n"
      "  --log-json FILE         one JSON line per step: step, loss, time_ms,"
      " samples_per_s\n"
      "  --checkpoint-dir DIR    write checkpoints to DIR/step-NNNNNN/ (after"
      " the last step)\n"
      "  --checkpoint-every K    ... and every K steps\n"
      "  --resume                continue from the latest complete checkpoint"
      " in DIR\n"
      "  --checkpoint-on-signal  on SIGTERM or SIGINT, write a checkpoint of "
      "the last\n"
      "                          completed step before stopping\n\n"
      "  --print-ranks           print the number of ranks and exit\n"
      "  --print-plan            print every rank's buffer plan and exit\n"
      "  --print-memory          after the run, print every rank's peak "
      "activation\n"
      "                          memory (what backward passes keep) and "
      "its minor\n"
      "                          page faults per step and the memory on "
      "huge pages\n"
      "  --help                  this text\n";
  return text;
}

} // namespace pipewave::runtime

//===- ExecPlan.cpp - Buffer plan of one rank's action list ---------------===//
//
// Part of the pipewave project.
//
// Three passes over the action list: find every buffer with its defining
// action and last use; size each pool from its peak live count; then replay
// the list to assign slots and the early-receive posting points.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Tensor.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace pipewave::runtime {

namespace {

struct Buffer {
  int pool = -1;
  int definedAt = -1;
  int lastUse = -1;
  /// The receive defining it, or -1.
  int recvAction = -1;
  int slot = -1;
};

class Planner {
public:
  Planner(const pw_model &model, int rank, const ExecPlanOptions &options)
      : model(model), program(model.ranks[rank]), options(options) {
    plan.rank = rank;
    plan.actions.resize(program.num_actions);
  }

  ExecPlan run() {
    findBuffers();
    sizePools();
    assignSlots();
    return std::move(plan);
  }

private:
  const pw_model &model;
  const pw_rank_program &program;
  const ExecPlanOptions &options;
  ExecPlan plan;

  std::vector<Buffer> buffers;
  /// (payload, stage, microbatch) -> buffer.
  std::map<std::tuple<int, int, int>, int> bufferIndex;
  /// (payload, stage, received) -> pool.
  std::map<std::tuple<int, int, bool>, int> poolIndex;
  /// Per action: the buffers it uses, the buffers it defines.
  std::vector<std::vector<int>> uses;
  std::vector<std::vector<int>> defines;

  std::string where(int i) const {
    return "rank " + std::to_string(plan.rank) + " action " +
           std::to_string(i) + " ('" + describeAction(program.actions[i]) +
           "')";
  }

  bool takesPrevious(int stage) const {
    const pw_stage &info = model.stages[stage];
    for (int a = 0; a < info.num_args; ++a)
      if (info.arg_source[a] == PW_FROM_PREVIOUS)
        return true;
    return false;
  }

  int poolFor(int payload, int stage, bool received) {
    auto key = std::make_tuple(payload, stage, received);
    auto it = poolIndex.find(key);
    if (it != poolIndex.end())
      return it->second;
    ExecPool pool;
    pool.payload = payload;
    pool.stage = stage;
    pool.received = received;
    const pw_stage &info = model.stages[stage];
    // A weight stash slot holds only what I computes; the values it passes
    // through stay in their own buffers.
    std::vector<const pw_tensor_info *> tensors;
    if (payload == kStashBuffer) {
      for (int k = 0; k < info.num_stash; ++k)
        tensors.push_back(&info.stash[k]);
    } else if (payload == kWStashBuffer) {
      for (int k = 0; k < info.num_wstash; ++k)
        if (wstashSource(info, k) < 0)
          tensors.push_back(&info.wstash[k]);
    } else {
      for (int r = 0; r < info.num_results; ++r)
        tensors.push_back(&info.results[r]);
    }
    size_t offset = 0;
    for (const pw_tensor_info *tensor : tensors) {
      pool.offsets.push_back(offset);
      offset += alignUp(tensorBytes(*tensor));
    }
    pool.bytes = std::max(offset, kBufferAlignment);
    plan.pools.push_back(std::move(pool));
    int index = static_cast<int>(plan.pools.size()) - 1;
    poolIndex[key] = index;
    return index;
  }

  void define(int i, int payload, int stage, int mb, bool received) {
    auto key = std::make_tuple(payload, stage, mb);
    if (bufferIndex.count(key))
      modelError(where(i) + " defines the " + bufferKindName(payload) +
                 " buffer of stage " + std::to_string(stage) + " mb " +
                 std::to_string(mb) + " a second time");
    Buffer buffer;
    buffer.pool = poolFor(payload, stage, received);
    buffer.definedAt = buffer.lastUse = i;
    if (received)
      buffer.recvAction = i;
    buffers.push_back(buffer);
    int index = static_cast<int>(buffers.size()) - 1;
    bufferIndex[key] = index;
    defines[i].push_back(index);
    ++plan.pools[buffer.pool].buffers;
  }

  int use(int i, int payload, int stage, int mb) {
    auto it = bufferIndex.find(std::make_tuple(payload, stage, mb));
    if (it == bufferIndex.end())
      modelError(where(i) + " needs the " +
                 std::string(payload == PW_ACTIVATION  ? "results"
                             : payload == PW_GRADIENT  ? "result gradients"
                             : payload == kStashBuffer ? "stash"
                                                       : "weight stash") +
                 " of stage " + std::to_string(stage) + " mb " +
                 std::to_string(mb) +
                 ", which no earlier action of the rank computes or receives");
    buffers[it->second].lastUse = std::max(buffers[it->second].lastUse, i);
    uses[i].push_back(it->second);
    return it->second;
  }

  /// W: the buffers of the weight stash values I passed through (an
  /// activation of the previous stage, the stash, the result gradients),
  /// which must live until W. Parameters, data slices and the loss seed
  /// hold still through the step.
  void usePassedThrough(int i, const pw_stage &info, int s, int m) {
    bool activation = false, stash = false, gradient = false;
    for (int k = 0; k < info.num_wstash; ++k) {
      int source = wstashSource(info, k);
      if (source < 0)
        continue;
      BackwardArg arg = backwardArg(info, source);
      activation |= arg.kind == BackwardArg::Argument &&
                    info.arg_source[arg.index] == PW_FROM_PREVIOUS;
      stash |= arg.kind == BackwardArg::Stash;
      gradient |=
          arg.kind == BackwardArg::ResultGradient && s < model.num_stages - 1;
    }
    if (activation)
      use(i, PW_ACTIVATION, s - 1, m);
    if (stash)
      use(i, kStashBuffer, s, m);
    if (gradient)
      use(i, PW_GRADIENT, s, m);
  }

  void findBuffers() {
    int n = program.num_actions;
    int last = model.num_stages - 1;
    bool training = !model.forward_only;
    uses.assign(n, {});
    defines.assign(n, {});
    for (int i = 0; i < n; ++i) {
      const pw_action &a = program.actions[i];
      int s = a.stage, m = a.microbatch;
      const pw_stage &info = model.stages[s >= 0 ? s : 0];
      switch (a.kind) {
      case PW_ACT_FORWARD:
        if (takesPrevious(s))
          use(i, PW_ACTIVATION, s - 1, m);
        define(i, PW_ACTIVATION, s, m, /*received=*/false);
        if (training && info.num_stash > 0)
          define(i, kStashBuffer, s, m, /*received=*/false);
        if (s == last) {
          use(i, PW_ACTIVATION, s, m);
          plan.actions[i].collectOutputs = true;
        }
        break;
      case PW_ACT_BACKWARD:
      case PW_ACT_BACKWARD_INPUT:
        if (takesPrevious(s))
          use(i, PW_ACTIVATION, s - 1, m);
        if (info.num_stash > 0)
          use(i, kStashBuffer, s, m);
        if (s < last)
          use(i, PW_GRADIENT, s, m);
        if (takesPrevious(s))
          define(i, PW_GRADIENT, s - 1, m, /*received=*/false);
        if (a.kind == PW_ACT_BACKWARD_INPUT && numComputedWStash(info) > 0)
          define(i, kWStashBuffer, s, m, /*received=*/false);
        break;
      case PW_ACT_BACKWARD_WEIGHT:
        if (numComputedWStash(info) > 0)
          use(i, kWStashBuffer, s, m);
        usePassedThrough(i, info, s, m);
        break;
      case PW_ACT_SEND: {
        int sent = a.payload == PW_ACTIVATION ? use(i, PW_ACTIVATION, s, m)
                                              : use(i, PW_GRADIENT, s - 1, m);
        plan.pools[buffers[sent].pool].sent = true;
        break;
      }
      case PW_ACT_RECV:
        if (a.payload == PW_ACTIVATION)
          define(i, PW_ACTIVATION, s - 1, m, /*received=*/true);
        else
          define(i, PW_GRADIENT, s, m, /*received=*/true);
        break;
      default:
        break;
      }
    }
    if (training)
      checkComplete();
  }

  /// Training: every held (stage, microbatch) has one F before one B, or
  /// before one I that comes before one W. (The verifier proves this for
  /// compiled programs; a hand-written list that breaks it would silently
  /// train on partial gradients.)
  void checkComplete() {
    int M = model.num_microbatches;
    std::map<std::pair<int, int>, std::vector<int>> seen;
    for (int i = 0; i < program.num_actions; ++i) {
      const pw_action &a = program.actions[i];
      if (a.kind > PW_ACT_BACKWARD_WEIGHT)
        continue;
      seen[{a.stage, a.microbatch}].push_back(a.kind);
    }
    for (int k = 0; k < program.num_stages; ++k) {
      int s = program.stages[k];
      for (int m = 0; m < M; ++m) {
        const std::vector<int> &kinds = seen[{s, m}];
        bool whole = kinds == std::vector<int>{PW_ACT_FORWARD, PW_ACT_BACKWARD};
        bool split =
            kinds == std::vector<int>{PW_ACT_FORWARD, PW_ACT_BACKWARD_INPUT,
                                      PW_ACT_BACKWARD_WEIGHT};
        if (whole || split)
          continue;
        std::string list;
        for (int kind : kinds)
          list += std::string(list.empty() ? "" : ", ") + actionKindName(kind);
        modelError("rank " + std::to_string(plan.rank) + ": stage " +
                   std::to_string(s) + " mb " + std::to_string(m) +
                   " has the compute actions [" + list +
                   "]; a training step needs F then B, or F then I then W");
      }
    }
  }

  void sizePools() {
    int n = program.num_actions;
    for (size_t p = 0; p < plan.pools.size(); ++p) {
      std::vector<int> delta(n + 1, 0);
      for (const Buffer &buffer : buffers) {
        if (buffer.pool != static_cast<int>(p))
          continue;
        ++delta[buffer.definedAt];
        --delta[buffer.lastUse + 1];
      }
      int live = 0, peak = 0;
      for (int i = 0; i < n; ++i) {
        live += delta[i];
        peak = std::max(peak, live);
      }
      ExecPool &pool = plan.pools[p];
      pool.peak = peak;
      int spare = (pool.received || pool.sent) ? options.spareSlots : 0;
      pool.slots = std::min(pool.buffers, peak + std::max(spare, 0));
    }
  }

  void assignSlots() {
    int n = program.num_actions;
    // Free slots, least recently released first, so a slot whose send may
    // still be in flight is reused last.
    std::vector<std::deque<int>> freeSlots(plan.pools.size());
    std::vector<std::deque<int>> pendingRecvs(plan.pools.size());
    for (size_t p = 0; p < plan.pools.size(); ++p)
      for (int k = 0; k < plan.pools[p].slots; ++k)
        freeSlots[p].push_back(k);
    for (size_t b = 0; b < buffers.size(); ++b)
      if (buffers[b].recvAction >= 0)
        pendingRecvs[buffers[b].pool].push_back(static_cast<int>(b));
    for (auto &queue : pendingRecvs)
      std::sort(queue.begin(), queue.end(), [&](int x, int y) {
        return buffers[x].definedAt < buffers[y].definedAt;
      });

    auto take = [&](int b) {
      std::deque<int> &slots = freeSlots[buffers[b].pool];
      buffers[b].slot = slots.front();
      slots.pop_front();
    };
    auto ref = [&](int b) { return SlotRef{buffers[b].pool, buffers[b].slot}; };

    std::vector<std::vector<int>> dying(n);
    for (size_t b = 0; b < buffers.size(); ++b)
      dying[buffers[b].lastUse].push_back(static_cast<int>(b));

    for (int i = 0; i < n; ++i) {
      ExecAction &step = plan.actions[i];
      const pw_action &a = program.actions[i];
      step.name = traceName(a);
      step.description = describeAction(a);

      // Post receives as early as their pools allow, in program order.
      for (size_t p = 0; p < plan.pools.size(); ++p) {
        while (!pendingRecvs[p].empty() && !freeSlots[p].empty()) {
          int b = pendingRecvs[p].front();
          pendingRecvs[p].pop_front();
          take(b);
          step.postBefore.push_back(buffers[b].recvAction);
        }
      }
      std::sort(step.postBefore.begin(), step.postBefore.end());

      for (int defined : defines[i]) {
        if (buffers[defined].recvAction >= 0) {
          if (buffers[defined].slot < 0)
            throw Error("internal error: " + where(i) +
                        " was not posted by its own position");
        } else {
          if (freeSlots[buffers[defined].pool].empty())
            throw Error("internal error: no free slot for " + where(i));
          take(defined);
        }
        int kind = plan.pools[buffers[defined].pool].payload;
        if (kind == kStashBuffer)
          step.stash = ref(defined);
        else if (kind == kWStashBuffer)
          step.wstash = ref(defined);
        else
          step.output = ref(defined);
      }

      bool backward = a.kind == PW_ACT_BACKWARD ||
                      a.kind == PW_ACT_BACKWARD_INPUT ||
                      a.kind == PW_ACT_BACKWARD_WEIGHT;
      for (int b : uses[i]) {
        // The last stage's F collecting its own results.
        if (std::find(defines[i].begin(), defines[i].end(), b) !=
            defines[i].end())
          continue;
        int kind = plan.pools[buffers[b].pool].payload;
        if (kind == kStashBuffer)
          step.stash = ref(b);
        else if (kind == kWStashBuffer)
          step.wstash = ref(b);
        else if (backward && kind == PW_GRADIENT)
          step.gradient = ref(b);
        else
          step.input = ref(b);
      }

      // A send of a computed buffer goes out right after its producer.
      if (a.kind == PW_ACT_SEND && options.earlySends)
        for (int b : uses[i])
          if (buffers[b].recvAction < 0 && buffers[b].definedAt < i) {
            plan.actions[buffers[b].definedAt].sendAfter.push_back(i);
            step.sentEarly = true;
          }

      for (int b : dying[i]) {
        step.release.push_back(ref(b));
        freeSlots[buffers[b].pool].push_back(buffers[b].slot);
      }
    }
  }
};

} // namespace

ExecPlan planExecution(const pw_model &model, int rank,
                       const ExecPlanOptions &options) {
  return Planner(model, rank, options).run();
}

const char *bufferKindName(int kind) {
  switch (kind) {
  case kActivationBuffer:
    return "act";
  case kGradientBuffer:
    return "grad";
  case kStashBuffer:
    return "stash";
  case kWStashBuffer:
    return "wstash";
  default:
    return "?";
  }
}

std::string describeExecPlan(const ExecPlan &plan) {
  std::string text;
  for (const ExecPool &pool : plan.pools) {
    text += "rank " + std::to_string(plan.rank) + ": pool " +
            bufferKindName(pool.payload) + " s" + std::to_string(pool.stage) +
            (pool.received ? " (received)"
             : pool.sent   ? " (sent)"
                           : "") +
            ": " + std::to_string(pool.buffers) + " buffers, peak " +
            std::to_string(pool.peak) + ", " + std::to_string(pool.slots) +
            " slots of " + std::to_string(pool.bytes) + " B\n";
  }
  return text;
}

} // namespace pipewave::runtime

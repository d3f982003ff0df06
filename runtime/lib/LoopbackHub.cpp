//===- LoopbackHub.cpp - Matching state of the loopback ranks -------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "LoopbackHub.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <algorithm>
#include <cstring>

namespace pipewave::runtime {

namespace {

std::string groupText(const std::vector<int> &group) {
  std::string text = "[";
  for (size_t i = 0; i < group.size(); ++i)
    text += (i ? ", " : "") + std::to_string(group[i]);
  return text + "]";
}

const char *kindName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all-reduce";
  case CollectiveKind::Barrier:
    return "barrier";
  case CollectiveKind::Gather:
    return "gather";
  }
  return "?";
}

template <typename T>
void combine(ReduceOp op, T *acc, const T *value, size_t count) {
  for (size_t i = 0; i < count; ++i)
    acc[i] = op == ReduceOp::Min   ? std::min(acc[i], value[i])
             : op == ReduceOp::Max ? std::max(acc[i], value[i])
                                   : acc[i] + value[i];
}

} // namespace

std::string LoopbackMessage::describe() const {
  return "the message from rank " + std::to_string(src) + " to rank " +
         std::to_string(dst) + " with tag " + std::to_string(tag);
}

std::string LoopbackCollective::describe() const {
  std::string text =
      std::string("the ") + kindName(kind) + " of ranks " + groupText(group);
  if (kind == CollectiveKind::AllReduce)
    text += " (" + std::to_string(count) + " " + dtypeName(dtype) + ")";
  return text;
}

LoopbackHub::LoopbackHub(int size)
    : ended(static_cast<size_t>(size), false), numRanks(size),
      copies(static_cast<size_t>(size)) {}

std::shared_ptr<LoopbackMessage>
LoopbackHub::post(std::deque<std::shared_ptr<LoopbackMessage>> &waiting,
                  std::deque<std::shared_ptr<LoopbackMessage>> &posted, int src,
                  int dst, int64_t tag,
                  const std::function<void(LoopbackMessage &)> &fill) {
  std::shared_ptr<LoopbackMessage> message;
  if (!waiting.empty()) {
    message = waiting.front();
    waiting.pop_front();
  } else {
    message = std::make_shared<LoopbackMessage>();
    message->src = src;
    message->dst = dst;
    message->tag = tag;
  }
  fill(*message);
  if (message->sendPosted && message->recvPosted)
    match(message);
  else
    posted.push_back(message);
  return message;
}

std::shared_ptr<LoopbackMessage>
LoopbackHub::postSend(int src, int dst, int64_t tag, const void *data,
                      size_t bytes, bool device) {
  Key key(src, dst, tag);
  return post(recvs[key], sends[key], src, dst, tag,
              [&](LoopbackMessage &message) {
                message.sendData = data;
                message.sendBytes = bytes;
                message.sendPosted = true;
                message.deviceSend = device;
              });
}

std::shared_ptr<LoopbackMessage>
LoopbackHub::postRecv(int dst, int src, int64_t tag, void *data, size_t bytes) {
  Key key(src, dst, tag);
  return post(sends[key], recvs[key], src, dst, tag,
              [&](LoopbackMessage &message) {
                message.recvData = data;
                message.recvBytes = bytes;
                message.recvPosted = true;
              });
}

void LoopbackHub::match(const std::shared_ptr<LoopbackMessage> &message) {
  if (message->sendBytes != message->recvBytes) {
    message->error = "message size mismatch from rank " +
                     std::to_string(message->src) + " to rank " +
                     std::to_string(message->dst) + " with tag " +
                     std::to_string(message->tag) + ": sent " +
                     std::to_string(message->sendBytes) + " bytes, receiving " +
                     std::to_string(message->recvBytes);
    throw Error(message->error);
  }
  if (message->deviceSend) {
    copies[message->src].push_back(message);
    return;
  }
  if (message->sendBytes)
    std::memcpy(message->recvData, message->sendData, message->sendBytes);
  message->done = true;
}

std::vector<std::shared_ptr<LoopbackMessage>>
LoopbackHub::takeCopies(int rank) {
  std::vector<std::shared_ptr<LoopbackMessage>> taken;
  taken.swap(copies[rank]);
  for (auto &message : taken)
    message->copyIssued = true;
  return taken;
}

std::shared_ptr<LoopbackCollective>
LoopbackHub::postCollective(int rank, const LoopbackCollective &spec,
                            void *data, const std::string &bytes, bool &last) {
  const std::vector<int> &group = spec.group;
  auto member = std::lower_bound(group.begin(), group.end(), rank);
  if (member == group.end() || *member != rank)
    throw Error("rank " + std::to_string(rank) + " is not a member of " +
                spec.describe());
  size_t index = static_cast<size_t>(member - group.begin());
  std::vector<int64_t> &sequences = nextSequence[group];
  if (sequences.empty())
    sequences.assign(static_cast<size_t>(numRanks), 0);
  auto key = std::make_pair(group, sequences[rank]++);
  std::shared_ptr<LoopbackCollective> &slot = open[key];
  if (!slot) {
    slot = std::make_shared<LoopbackCollective>(spec);
    slot->data.assign(group.size(), nullptr);
    slot->strings.assign(group.size(), std::string());
    slot->posted.assign(group.size(), false);
    slot->opener = rank;
  } else if (slot->kind != spec.kind || slot->dtype != spec.dtype ||
             slot->count != spec.count || slot->op != spec.op ||
             slot->root != spec.root || slot->onDevice != spec.onDevice) {
    slot->error = "collective mismatch: rank " + std::to_string(rank) +
                  " started " + spec.describe() + " where rank " +
                  std::to_string(slot->opener) + " started " + slot->describe();
    throw Error(slot->error);
  }
  std::shared_ptr<LoopbackCollective> collective = slot;
  collective->data[index] = data;
  collective->strings[index] = bytes;
  collective->posted[index] = true;
  last = ++collective->numPosted == static_cast<int>(group.size());
  if (last) {
    open.erase(key);
    if (!collective->onDevice) {
      reduceOnHost(*collective);
      collective->done = true;
    }
  }
  return collective;
}

void LoopbackHub::reduceOnHost(LoopbackCollective &collective) {
  if (collective.kind != CollectiveKind::AllReduce || collective.count == 0)
    return;
  size_t bytes = collective.count * dtypeSize(collective.dtype);
  std::vector<unsigned char> acc(bytes);
  std::memcpy(acc.data(), collective.data[0], bytes);
  for (size_t i = 1; i < collective.data.size(); ++i) {
    const void *value = collective.data[i];
    switch (collective.dtype) {
    case PW_F32:
      combine(collective.op, reinterpret_cast<float *>(acc.data()),
              static_cast<const float *>(value), collective.count);
      break;
    case PW_F64:
      combine(collective.op, reinterpret_cast<double *>(acc.data()),
              static_cast<const double *>(value), collective.count);
      break;
    case PW_I32:
      combine(collective.op, reinterpret_cast<int32_t *>(acc.data()),
              static_cast<const int32_t *>(value), collective.count);
      break;
    default:
      combine(collective.op, reinterpret_cast<int64_t *>(acc.data()),
              static_cast<const int64_t *>(value), collective.count);
      break;
    }
  }
  for (void *data : collective.data)
    std::memcpy(data, acc.data(), bytes);
}

int LoopbackHub::missingRank(const LoopbackMessage &message) const {
  if (message.done)
    return -1;
  if (!message.sendPosted && ended[message.src])
    return message.src;
  if (!message.recvPosted && ended[message.dst])
    return message.dst;
  if (message.deviceSend && !message.copyIssued && ended[message.src])
    return message.src;
  return -1;
}

int LoopbackHub::missingRank(const LoopbackCollective &collective) const {
  if (collective.done)
    return -1;
  for (size_t i = 0; i < collective.group.size(); ++i)
    if (!collective.posted[i] && ended[collective.group[i]])
      return collective.group[i];
  return -1;
}

} // namespace pipewave::runtime

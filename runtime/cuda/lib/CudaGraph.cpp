//===- CudaGraph.cpp - Capture one step of the CUDA device, replay it -----===//
//
// Part of the pipewave project.
//
// --cuda-graph (Device::beginGraphStep). The executor brackets every step;
// the plan is static, so every step issues the same calls on the same
// buffers. Step 1 runs eagerly (kernel images load, cuBLAS warms up).
// Step 2 is captured with cudaStreamBeginCapture (relaxed mode) on the
// stream of its first call; every other stream joins the capture through
// the executor's events or, before its first call, through an event of
// the origin stream, and joins back at the end; the graph is then
// instantiated and launched. Each call is written into a script, with the
// pinned memory its host side uses: uploads copy from a fixed pinned slot,
// downloads go to one and a host node copies them out, optimizer kernels
// read their scalars from one. From step 3 on, each call only checks that
// it is the script's next one and does its host side (the upload's data
// into its slot, the step's optimizer scalars into theirs), and
// endGraphStep() launches the graph. A step that issues anything else is
// an Error: the plan changed under the graph.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"

#include "pipewave-runtime/Error.h"

#include <cuda_runtime.h>

namespace pipewave::runtime::cuda {

void CudaDevice::beginGraphStep() {
  ++graphSteps;
  cursor = 0;
  if (graphSteps == 1) {
    mode = GraphMode::Eager;
    return;
  }
  if (graphExec) {
    mode = GraphMode::Replay;
    return;
  }
  mode = GraphMode::Capture;
  script.clear();
  origin = -1;
  joined.assign(streams.size(), false);
  capturedEvents.assign(events.size(), false);
}

void CudaDevice::joinCapture(StreamId s) {
  if (origin < 0) {
    bind();
    origin = s;
    joined[s] = true;
    PW_CUDA_TRY(
        cudaStreamBeginCapture(stream(s), cudaStreamCaptureModeRelaxed));
    return;
  }
  if (joined[s])
    return;
  if (!joinEvents[origin])
    PW_CUDA_TRY(
        cudaEventCreateWithFlags(&joinEvents[origin], cudaEventDisableTiming));
  PW_CUDA_TRY(cudaEventRecord(joinEvents[origin], stream(origin)));
  PW_CUDA_TRY(cudaStreamWaitEvent(stream(s), joinEvents[origin], 0));
  joined[s] = true;
}

char *CudaDevice::pinnedSlot(size_t bytes) {
  char *slot = nullptr;
  PW_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void **>(&slot), bytes ? bytes : 1,
                            cudaHostAllocMapped));
  pinnedSlots.push_back(slot);
  return slot;
}

bool CudaDevice::graphCall(GraphCall call, char **slot) {
  switch (mode) {
  case GraphMode::Off:
  case GraphMode::Eager:
    return false;
  case GraphMode::Capture:
    if (call.stream < 0 || static_cast<size_t>(call.stream) >= joined.size())
      throw Error("internal error: graph call on an unknown stream");
    joinCapture(call.stream);
    if (slot) {
      call.pinned = pinnedSlot(call.pinnedBytes);
      *slot = call.pinned;
    }
    script.push_back(call);
    return false;
  case GraphMode::Replay:
    break;
  }
  const GraphCall *expected =
      cursor < script.size() ? &script[cursor] : nullptr;
  if (!expected || expected->kind != call.kind ||
      expected->stream != call.stream || expected->a != call.a ||
      expected->b != call.b || expected->n != call.n ||
      expected->extra != call.extra)
    throw Error("--cuda-graph: device call " + std::to_string(cursor + 1) +
                " of step " + std::to_string(graphSteps) +
                " differs from the captured step's; the step's work must "
                "be the same every step (run without --cuda-graph)");
  if (slot)
    *slot = expected->pinned;
  ++cursor;
  return true;
}

void CudaDevice::endGraphStep() {
  GraphMode was = mode;
  mode = GraphMode::Off;
  if (was == GraphMode::Replay) {
    if (cursor != script.size())
      throw Error("--cuda-graph: step " + std::to_string(graphSteps) +
                  " issued " + std::to_string(cursor) +
                  " device calls, the captured step " +
                  std::to_string(script.size()));
    PW_CUDA_TRY(cudaGraphLaunch(graphExec, stream(origin)));
    return;
  }
  if (was != GraphMode::Capture || origin < 0)
    return;
  // Every stream of the capture joins back into the origin.
  for (size_t s = 0; s < streams.size(); ++s) {
    if (!joined[s] || static_cast<StreamId>(s) == origin)
      continue;
    if (!joinEvents[s])
      PW_CUDA_TRY(
          cudaEventCreateWithFlags(&joinEvents[s], cudaEventDisableTiming));
    PW_CUDA_TRY(cudaEventRecord(joinEvents[s], streams[s]));
    PW_CUDA_TRY(cudaStreamWaitEvent(stream(origin), joinEvents[s], 0));
  }
  cudaError_t err = cudaStreamEndCapture(stream(origin), &graph);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error(std::string("--cuda-graph: capturing step ") +
                std::to_string(graphSteps) +
                " failed: " + cudaGetErrorName(err) + " (" +
                cudaGetErrorString(err) + "); run without --cuda-graph");
  }
  PW_CUDA_TRY(cudaGraphInstantiate(&graphExec, graph, 0));
  PW_CUDA_TRY(cudaGraphLaunch(graphExec, stream(origin)));
}

void CudaDevice::releaseGraph() {
  if (graphExec)
    cudaGraphExecDestroy(graphExec);
  if (graph)
    cudaGraphDestroy(graph);
  graphExec = nullptr;
  graph = nullptr;
  for (char *slot : pinnedSlots)
    cudaFreeHost(slot);
  pinnedSlots.clear();
}

} // namespace pipewave::runtime::cuda

//===- CudaDeviceAccess.h - CUDA handles of a device ------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// What a transport ordered on CUDA streams (the NCCL backend) needs from a
// Device: the cudaEvent_t behind an EventId, so that its communication
// stream can wait for device work without the host. A CUDA device
// implements this interface next to Device; the NCCL backend finds it with
// dynamic_cast and refuses other devices. No CUDA header is needed here:
// handles travel as void *.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_CUDADEVICEACCESS_H
#define PIPEWAVE_RUNTIME_CUDADEVICEACCESS_H

#include "pipewave-runtime/Device.h"

namespace pipewave::runtime {

class CudaDeviceAccess {
public:
  virtual ~CudaDeviceAccess() = default;

  /// The cudaEvent_t of `event` (created with the device's events; a
  /// never-recorded event counts as complete, as cudaStreamWaitEvent
  /// treats it).
  virtual void *cudaEventOf(EventId event) = 0;
};

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_CUDADEVICEACCESS_H

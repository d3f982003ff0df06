//===- DeviceSelect.cpp - The device a compiled model runs on -------------===//
//
// Part of the pipewave project.
//
// Models compiled for the CPU run on the device PW_DEVICE names (host by
// default). Models compiled with `--target cuda` run on the CUDA device of
// libpipewave_runtime_cuda, which such binaries link (pipewave-compile
// forces it in with `-Wl,-u,pw_runtime_cuda_device`); the runtime refers
// to its factory through a weak symbol, so a runtime built without the CUDA
// toolkit still links and says clearly why it cannot run the model.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/Error.h"

#include <cstdlib>
#include <string>

/// Defined by libpipewave_runtime_cuda: a new CUDA device (a
/// pipewave::runtime::Device) on GPU `localRank`; throws Error.
extern "C" void *pw_runtime_cuda_device(int localRank) __attribute__((weak));

namespace pipewave::runtime {

int localRankFromEnvironment() {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK"}) {
    const char *value = std::getenv(name);
    if (!value || !*value)
      continue;
    char *end = nullptr;
    long rank = std::strtol(value, &end, 10);
    if (*end || rank < 0 || rank > 1 << 20)
      throw Error(std::string(name) + "='" + value +
                      "' is not a local rank (a number >= 0)",
                  ExitUsage);
    return static_cast<int>(rank);
  }
  return 0;
}

std::unique_ptr<Device> createDeviceForModel(const pw_model &model,
                                             int localRank) {
  if (model.device != PW_DEVICE_CUDA)
    return createDeviceFromEnvironment();
  const char *forced = std::getenv("PW_DEVICE");
  std::string choice = forced ? forced : "";
  if (!choice.empty() && choice != "cuda")
    throw Error("PW_DEVICE='" + choice +
                    "': this binary was compiled with --target cuda, its "
                    "stage code runs on the 'cuda' device only",
                ExitUsage);
  if (!pw_runtime_cuda_device)
    throw Error("this binary was compiled with --target cuda, but its "
                "runtime was built without CUDA (no CUDA toolkit when "
                "pipewave was configured): rebuild pipewave where CMake "
                "finds the CUDA toolkit, or compile the model with "
                "--target cpu",
                ExitUsage);
  return std::unique_ptr<Device>(
      static_cast<Device *>(pw_runtime_cuda_device(localRank)));
}

} // namespace pipewave::runtime

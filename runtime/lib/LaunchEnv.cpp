//===- LaunchEnv.cpp - Rank and world size from the launcher --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/LaunchEnv.h"
#include "pipewave-runtime/Error.h"

#include <cerrno>
#include <cstdlib>

namespace pipewave::runtime {

namespace {

/// The variables of one launcher; nullptr where it has none.
struct SourceVariables {
  LaunchSource source;
  const char *rank;
  const char *size;
  const char *localRank;
  const char *localSize;
};

constexpr SourceVariables kSources[] = {
    {LaunchSource::OpenMpi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {LaunchSource::Pmi, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID",
     "MPI_LOCALNRANKS"},
    {LaunchSource::Torchrun, "RANK", "WORLD_SIZE", "LOCAL_RANK",
     "LOCAL_WORLD_SIZE"},
    {LaunchSource::Slurm, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
     nullptr},
};

std::string describe(const char *name, const std::string &value) {
  return std::string(name) + "='" + value + "'";
}

/// The integer in `value`, at least `min` (decimal, no sign, no spaces).
int parseInt(const char *name, const std::string &value, int min) {
  bool digits = !value.empty();
  for (char c : value)
    digits &= c >= '0' && c <= '9';
  errno = 0;
  long parsed = digits ? std::strtol(value.c_str(), nullptr, 10) : -1;
  if (!digits || errno || parsed > 1 << 24 || parsed < min)
    usageError("launch environment: " + describe(name, value) +
               " is not an integer >= " + std::to_string(min));
  return static_cast<int>(parsed);
}

std::optional<int> readInt(const EnvLookup &lookup, const char *name, int min) {
  if (!name)
    return std::nullopt;
  std::optional<std::string> value = lookup(name);
  if (!value)
    return std::nullopt;
  return parseInt(name, *value, min);
}

std::string pair(const char *name, int value) {
  return std::string(name) + "=" + std::to_string(value);
}

} // namespace

const char *launchSourceName(LaunchSource source) {
  switch (source) {
  case LaunchSource::None:
    return "none";
  case LaunchSource::OpenMpi:
    return "Open MPI";
  case LaunchSource::Pmi:
    return "PMI";
  case LaunchSource::Torchrun:
    return "torchrun";
  case LaunchSource::Slurm:
    return "Slurm";
  }
  return "?";
}

LaunchEnv parseLaunchEnv(const EnvLookup &lookup) {
  LaunchEnv env;
  for (const SourceVariables &vars : kSources) {
    std::optional<int> rank = readInt(lookup, vars.rank, 0);
    if (!rank)
      continue;
    std::optional<int> size = readInt(lookup, vars.size, 1);
    if (!size)
      usageError(std::string("launch environment: ") + vars.rank +
                 " is set but " + vars.size + " is not");
    if (*rank >= *size)
      usageError("launch environment: " + pair(vars.rank, *rank) +
                 " is not below " + pair(vars.size, *size));
    std::optional<int> localRank = readInt(lookup, vars.localRank, 0);
    std::optional<int> localSize = readInt(lookup, vars.localSize, 1);
    if (localSize && !localRank)
      usageError(std::string("launch environment: ") + vars.localSize +
                 " is set but " + vars.localRank + " is not");
    if (localSize && *localSize > *size)
      usageError("launch environment: " + pair(vars.localSize, *localSize) +
                 " exceeds " + pair(vars.size, *size));
    env.source = vars.source;
    env.rank = *rank;
    env.worldSize = *size;
    env.localRank = localRank ? *localRank : *rank;
    env.localWorldSize = localSize ? *localSize : *size;
    if (env.localRank >= env.localWorldSize)
      usageError("launch environment: " + pair(vars.localRank, env.localRank) +
                 " is not below " +
                 (localSize ? pair(vars.localSize, *localSize)
                            : "the local size " + std::to_string(*size) + " (" +
                                  pair(vars.size, *size) + ")"));
    break;
  }
  if (std::optional<std::string> addr = lookup("MASTER_ADDR")) {
    if (addr->empty())
      usageError("launch environment: MASTER_ADDR is set but empty");
    env.masterAddr = *addr;
  }
  if (std::optional<std::string> port = lookup("MASTER_PORT")) {
    env.masterPort = parseInt("MASTER_PORT", *port, 1);
    if (env.masterPort > 65535)
      usageError("launch environment: " + describe("MASTER_PORT", *port) +
                 " is not a port number (1-65535)");
  }
  return env;
}

LaunchEnv parseLaunchEnv(const std::map<std::string, std::string> &env) {
  return parseLaunchEnv([&](const char *name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  });
}

LaunchEnv launchEnvFromProcess() {
  return parseLaunchEnv([](const char *name) -> std::optional<std::string> {
    const char *value = std::getenv(name);
    if (!value)
      return std::nullopt;
    return std::string(value);
  });
}

} // namespace pipewave::runtime

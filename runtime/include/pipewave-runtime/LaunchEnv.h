//===- LaunchEnv.h - Rank and world size from the launcher ------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Where a process stands in a job, read from the variables its launcher set.
// The first source whose rank variable is present wins:
//
//   1. Open MPI (mpirun, pipewave-run): OMPI_COMM_WORLD_RANK, _SIZE,
//      _LOCAL_RANK, _LOCAL_SIZE.
//   2. PMI (MPICH/Hydra, Intel MPI): PMI_RANK, PMI_SIZE, MPI_LOCALRANKID,
//      MPI_LOCALNRANKS.
//   3. torchrun-style: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE.
//   4. Slurm (srun): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID (the local
//      size is not read: Slurm spells it per node).
//
// MPI launchers come first because an MPI backend must agree with the
// rank MPI itself reports; torchrun comes before Slurm because torchrun
// started by srun gives each worker its own RANK while the Slurm variables
// describe the torchrun agent. MASTER_ADDR and MASTER_PORT (the rendezvous
// of a launch without MPI) are read whatever the source.
//
// A missing local rank defaults to the rank and a missing local size to
// the world size (one node). Malformed or inconsistent values are errors
// that name the variable and its value; nothing is guessed.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_LAUNCHENV_H
#define PIPEWAVE_RUNTIME_LAUNCHENV_H

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace pipewave::runtime {

/// The launcher a LaunchEnv was read from.
enum class LaunchSource { None, OpenMpi, Pmi, Torchrun, Slurm };

/// "none", "Open MPI", "PMI", "torchrun", "Slurm".
const char *launchSourceName(LaunchSource source);

struct LaunchEnv {
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  int localWorldSize = 1;
  /// MASTER_ADDR / MASTER_PORT; empty / 0 when unset.
  std::string masterAddr;
  int masterPort = 0;
  /// None: no launcher variables (rank 0 of 1).
  LaunchSource source = LaunchSource::None;
};

/// Looks a variable up; std::nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const char *)>;

/// Parses the launch environment `lookup` gives. Throws Error (ExitUsage)
/// on malformed or inconsistent values.
LaunchEnv parseLaunchEnv(const EnvLookup &lookup);

/// parseLaunchEnv of a fixed map (tests).
LaunchEnv parseLaunchEnv(const std::map<std::string, std::string> &env);

/// parseLaunchEnv of this process's environment.
LaunchEnv launchEnvFromProcess();

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_LAUNCHENV_H

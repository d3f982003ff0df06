//===- Profile.h - Per-layer profiles for the DAPPLE planner ----*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR). A ModelProfile is a model as a sequence of layers with
// measured forward/backward times, output activation sizes and parameter
// sizes at one batch size (the profile batch), plus the bytes that cross
// every possible cut.
//
// parsePipeDreamProfile() reads PipeDream's profile graph format, in which
// the DAPPLE profiles (data/dapple-profiles) are published:
//
//   nodeK -- <name> -- forward_compute_time=<ms>, backward_compute_time=<ms>,
//            activation_size=<bytes>, parameter_size=<bytes>
//   ...
//   	nodeA -- nodeB            (one edge per line, indented)
//
// (one node per line). activation_size may be a list "[a; b; c]" for a node
// with several outputs; their sum is used. The graph (a DAG) is linearised
// in topological order, taking nodes in file order among those ready, and
// the bytes crossing the cut after layer i are the outputs of every layer
// <= i that a layer > i consumes (each counted once).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_PLANNER_PROFILE_H
#define PIPEWAVE_PLANNER_PROFILE_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipewave::planner {

/// One layer, measured at the profile batch size.
struct LayerProfile {
  std::string name;
  double forwardSeconds = 0;
  double backwardSeconds = 0;
  /// Bytes of the layer's output activation(s).
  double outputBytes = 0;
  double parameterBytes = 0;
};

/// A model as a sequence of layers.
struct ModelProfile {
  /// E.g. the file name without directory and extension.
  std::string name;
  /// The batch size the layers were measured at.
  int profileBatch = 1;
  /// In execution (topological) order.
  std::vector<LayerProfile> layers;
  /// cutBytes[i]: bytes crossing the cut between layers i and i+1 at the
  /// profile batch size; layers.size() - 1 entries.
  std::vector<double> cutBytes;

  int numLayers() const { return static_cast<int>(layers.size()); }
  double totalForwardSeconds() const;
  double totalBackwardSeconds() const;
  double totalParameterBytes() const;
};

/// A chain of layers: the cut after layer i carries layer i's output.
ModelProfile makeChainProfile(std::string name, int profileBatch,
                              std::vector<LayerProfile> layers);

/// Parses a profile in PipeDream's graph format (see the file comment)
/// measured at `profileBatch`. On failure returns nullopt and sets `error`
/// (with the line number).
std::optional<ModelProfile> parsePipeDreamProfile(std::string_view text,
                                                  int profileBatch,
                                                  std::string *error = nullptr);

/// The N of a "...-pbs-N.txt" file name, or 0.
int profileBatchFromFileName(std::string_view path);

/// Reads and parses the profile at `path`. `profileBatch` 0 means "from the
/// file name" (an error if the name has no "-pbs-N").
std::optional<ModelProfile> loadPipeDreamProfile(const std::string &path,
                                                 int profileBatch = 0,
                                                 std::string *error = nullptr);

} // namespace pipewave::planner

#endif // PIPEWAVE_PLANNER_PROFILE_H

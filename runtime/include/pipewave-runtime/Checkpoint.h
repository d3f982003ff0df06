//===- Checkpoint.h - Training checkpoints ----------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// A checkpoint of step N is the directory DIR/step-NNNNNN/ (six digits at
// least) holding
//   rank-R.safetensors  one per rank: the parameters of the rank's stages
//                       (by name) and, for trained parameters, the optimizer
//                       state as "<state>/<name>" (momentum_buffer/w,
//                       exp_avg/w, exp_avg_sq/w); a parameter several ranks
//                       hold (replicas, a tied weight) only in the file of
//                       the lowest of them, stage state (BatchNorm running
//                       statistics) in every holder's; __metadata__ has the
//                       step, rank, model, optimizer, per-stage update
//                       counts and data position;
//   manifest.json       written last, by rank 0, once every rank's file is
//                       on disk: format, step, data position, model name and
//                       fingerprint, stage layout, optimizer, each rank
//                       file's size and FNV-1a hash, and for each parameter
//                       several ranks hold the ranks and the hash their
//                       copies agreed on (a checkpoint whose copies differ
//                       is not written).
// Every file is written atomically (temporary file, fsync, rename, fsync of
// the directory), so a directory without manifest.json is an incomplete
// checkpoint (the run stopped while writing it) and is skipped on resume,
// while one whose files do not match the manifest is refused.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_CHECKPOINT_H
#define PIPEWAVE_RUNTIME_CHECKPOINT_H

#include "pipewave-runtime/Safetensors.h"
#include "pipewave-runtime/model.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pipewave::runtime {

/// One rank's file as the manifest records it.
struct CheckpointFile {
  int rank = 0;
  /// File name inside the step directory.
  std::string name;
  uint64_t bytes = 0;
  uint64_t hash = 0;
};

/// A parameter several ranks hold: its copies had hash `hash` on every one.
struct CheckpointCopy {
  std::string name;
  std::vector<int> ranks;
  uint64_t hash = 0;
};

/// A rank's hash of its copy of a shared parameter (name, FNV-1a).
using CopyHash = std::pair<std::string, uint64_t>;

/// What manifest.json says.
struct CheckpointManifest {
  int64_t step = 0;
  /// Index of the global batch (in the data files) the next step reads, and
  /// how many global batches the files held.
  int64_t dataPosition = 0;
  int64_t dataBatches = 1;
  std::string model;
  std::string fingerprint;
  int numRanks = 0;
  int numStages = 0;
  int numMicrobatches = 0;
  int replicas = 1;
  std::vector<std::vector<int>> rankStages;
  /// describeOptimizer() of the run.
  std::string optimizer;
  std::vector<CheckpointFile> files;
  /// Version 2: the shared parameters, by name.
  std::vector<CheckpointCopy> copies;
};

/// "rank-R.safetensors".
std::string rankFileName(int rank);

/// What the __metadata__ of a rank file records.
struct RankFileInfo {
  int64_t step = 0;
  int rank = 0;
  std::string model;
  /// describeOptimizer() of the run.
  std::string optimizer;
  /// The update counts of the rank's stages, (stage, count) in stage order.
  std::vector<std::pair<int, int64_t>> optimizerSteps;
  /// The global batch the next step reads.
  int64_t dataPosition = 0;
};

/// The __metadata__ entries of a rank file: format, step, rank, model,
/// optimizer, optimizer_steps ("0:10,1:10") and data_position.
std::map<std::string, std::string> rankFileMetadata(const RankFileInfo &info);

/// Parses the "optimizer_steps" entry ("0:10,1:10") into `steps` (stage to
/// update count); false when an item has no ':'.
bool parseOptimizerSteps(const std::string &text,
                         std::map<int, int64_t> &steps);

/// A rank's report of its written file to rank 0 ("BYTES HASH", then a
/// line "HASH NAME" per copy of a shared parameter), and the manifest entry
/// rank 0 makes of rank `rank`'s report, with the copies' hashes in
/// `copies` (throws Error when malformed).
std::string encodeFileReport(const CheckpointFile &file,
                             const std::vector<CopyHash> &copies = {});
CheckpointFile decodeFileReport(const std::string &report, int rank,
                                std::vector<CopyHash> *copies = nullptr);

/// The FNV-1a hash of `bytes` bytes (the hash of the manifest's entries).
uint64_t hashBytes(const void *data, size_t bytes);

/// "DIR/step-000010".
std::string checkpointStepDir(const std::string &dir, int64_t step);

/// A hash of what a checkpoint depends on: every model input's name, dtype,
/// shape and kind, the number of stages and the parameters of each stage.
std::string modelFingerprint(const pw_model &model);

/// The stage layout of `model`: the stages of every rank.
std::vector<std::vector<int>> rankStages(const pw_model &model);

/// "[[0], [1, 2]]".
std::string describeRankStages(const std::vector<std::vector<int>> &layout);

/// Writes `tensors` with `metadata` to STEPDIR/rank-R.safetensors atomically
/// (the directory is created) and returns its manifest entry.
CheckpointFile
writeCheckpointFile(const std::string &stepDir, int rank,
                    const std::vector<SafetensorsTensorRef> &tensors,
                    const std::map<std::string, std::string> &metadata);

/// Writes STEPDIR/manifest.json atomically.
void writeCheckpointManifest(const std::string &stepDir,
                             const CheckpointManifest &manifest);

/// Reads STEPDIR/manifest.json; throws Error (ExitUsage) naming the file.
CheckpointManifest readCheckpointManifest(const std::string &stepDir);

/// The step directory of the latest complete checkpoint (one with a
/// manifest.json) in `dir`, or "" when there is none. Newer directories
/// without a manifest are appended to `incomplete`.
std::string findLatestCheckpoint(const std::string &dir,
                                 std::vector<std::string> &incomplete);

/// Size and FNV-1a hash of a whole file (reads it); throws Error naming it.
CheckpointFile hashFile(const std::string &path);

/// "0x%016x".
std::string hexHash(uint64_t hash);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_CHECKPOINT_H

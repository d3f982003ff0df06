//===- Samples.h - Medians of timings across calibration passes -*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipewave-calibrate runs its benchmarks in passes, every benchmark in turn
// and then again. SamplePool keeps each benchmark's time from every pass and
// gives their median; passSpeeds tells how fast the machine ran in each pass
// against those medians, which is how the tool sees a shared machine's slow
// or fast spell (another process or virtual machine on its cores) and warns
// that its figures may not predict a quiet run.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_SAMPLES_H
#define PIPEWAVE_TOOLS_CALIBRATE_SAMPLES_H

#include <map>
#include <string>
#include <vector>

namespace pipewave::calibrate {

/// The median of `values` (the mean of the middle two for an even count;
/// 0 for none).
double median(std::vector<double> values);

/// The mean of the `values` that are at most `cutoff` times their median:
/// the typical time of a benchmark's slices in one pass (0 for none). A
/// stage's step sums many such times, so it goes with their mean, which a
/// right-skewed timing puts above the median; a slice `cutoff` times the
/// median is the process descheduled, which a median step escapes.
double typicalMean(const std::vector<double> &values, double cutoff = 3.0);

/// The median of the `values` at most `cutoff` times the smallest (the
/// median of all when the smallest is not positive; 0 for none). Each
/// pass times a benchmark in a process of its own, and now and then a
/// process runs slow from start to end: the same 64x512x512 matmul binary,
/// run eight times, took 210-231 us a step in seven processes and 354 us in
/// the eighth (either kernel). Two such processes among three passes made
/// a median 1.7x slow.
double steadyMedian(std::vector<double> values, double cutoff);

/// How much slower than a benchmark's fastest pass another pass may be and
/// still count (steadyMedian): above the spread of a quiet machine's passes
/// (a few percent), below a slow process's 1.6x.
constexpr double kSlowProcessCutoff = 1.3;

/// Samples by name across passes: add() records one and returns the
/// steadyMedian of every sample recorded under that name so far. A
/// calibration run in several passes, each over every benchmark in turn,
/// so reports the median over passes that ran seconds apart, leaving out
/// passes that ran in a slow process: a slow window of a shared machine
/// (another tenant, a frequency drop) that spans one pass moves it little.
class SamplePool {
public:
  double add(const std::string &name, double value);

  /// Every name's samples in the order added: sample i of a name is the
  /// one pass i + 1 measured.
  const std::map<std::string, std::vector<double>> &all() const {
    return samples;
  }

private:
  std::map<std::string, std::vector<double>> samples;
};

/// How slowly each pass ran against the medians: for pass i (every name's
/// sample i), the median over the names of `pools` with a positive median
/// and more than one sample of that sample over the name's median. 1 is
/// the figures' speed; 1.6 a pass that took 1.6x as long. Empty when no
/// name has two samples.
std::vector<double> passSpeeds(const std::vector<const SamplePool *> &pools);

/// The largest over the smallest of `speeds` (1 for fewer than two).
double speedSpread(const std::vector<double> &speeds);

/// One slice of a --trace step: its start and end, and whether it is a
/// stage action's (F, B, I or W).
struct Slice {
  double start = 0;
  double end = 0;
  bool action = false;
};

/// Whether a trace slice's name is an action's: "F s0 mb1", "B s2 mb0",
/// "I s1 mb3", "W s0 mb2" (not "send act s0 mb1", "agree step", ...).
bool isActionName(const std::string &name);

/// The runtime's time after each action of one step: from the end of every
/// action slice to the start of the next slice of `step` (in any order;
/// overlapping slices count 0). An action that ends the step has none.
std::vector<double> gapsAfterActions(std::vector<Slice> step);

/// The steps a microbenchmark runs so that its run lasts `steadySeconds`:
/// `steps` when a run of them lasted `spanSeconds` >= steadySeconds, else
/// `steps` scaled up to that length, at most `most`.
int stepsForSteadyRun(int steps, double spanSeconds, double steadySeconds,
                      int most);

/// The first step whose slices count, of a run of `ran` steps of which the
/// last `steps` - 1 count (step 1 warms the caches: never counted).
int firstCountedStep(int ran, int steps);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_SAMPLES_H

//===- Calibration.cpp - Measured cost terms of one machine ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Calibration.h"
#include "pipewave/Conversion/MatmulChoice.h"

#include <algorithm>
#include <cmath>

namespace pipewave::sim {

namespace {

/// bytes / rate, or 0 when the rate is not known.
double over(double amount, double rate) { return rate > 0 ? amount / rate : 0; }

/// Seconds of a pass over `bytes` whose buffers are `coldness` (0 to 1)
/// cold: the time at the `warm` rate (the `evicted` one when `warm` is
/// empty) plus that share of the difference to the `evicted` time.
double blendedSeconds(double bytes, const std::vector<BandwidthPoint> &warm,
                      const std::vector<BandwidthPoint> &evicted,
                      double coldness) {
  double cold = over(bytes, bandwidthAt(evicted, bytes));
  if (warm.empty())
    return cold;
  double inCache = over(bytes, bandwidthAt(warm, bytes));
  return inCache + coldness * std::max(cold - inCache, 0.0);
}

/// `field` of the pointToPoint table at `bytes`: linear between the
/// measured sizes, the end points' value beyond them; 0 without a table.
double interpolateMessages(const std::vector<MessagePoint> &table, double bytes,
                           double MessagePoint::*field) {
  if (table.empty())
    return 0;
  if (bytes <= table.front().bytes)
    return table.front().*field;
  if (bytes >= table.back().bytes)
    return table.back().*field;
  auto upper = std::upper_bound(
      table.begin(), table.end(), bytes,
      [](double b, const MessagePoint &p) { return b < p.bytes; });
  const MessagePoint &hi = *upper, &lo = *(upper - 1);
  double t = (bytes - lo.bytes) / (hi.bytes - lo.bytes);
  return lo.*field + t * (hi.*field - lo.*field);
}

} // namespace

double bandwidthAt(const std::vector<BandwidthPoint> &table, double bytes) {
  if (table.empty())
    return 0;
  if (bytes <= table.front().bytes)
    return table.front().bytesPerSecond;
  for (size_t i = 1; i < table.size(); ++i) {
    const BandwidthPoint &lo = table[i - 1], &hi = table[i];
    if (bytes > hi.bytes)
      continue;
    if (!(lo.bytesPerSecond > 0 && hi.bytesPerSecond > 0 &&
          hi.bytes > lo.bytes))
      return hi.bytesPerSecond;
    double f = std::log(bytes / lo.bytes) / std::log(hi.bytes / lo.bytes);
    return std::exp((1 - f) * std::log(lo.bytesPerSecond) +
                    f * std::log(hi.bytesPerSecond));
  }
  return table.back().bytesPerSecond;
}

/// Inverse-distance weighting of the log rates of `points` in the log2 of
/// their coordinates (`coordinates(point)` gives them, up to three).
template <typename Point, typename Coordinates, typename Rate>
double interpolate(const std::vector<Point> &points, const double (&at)[3],
                   Coordinates coordinates, Rate rate) {
  double weightSum = 0, logSum = 0;
  for (const Point &point : points) {
    if (!(rate(point) > 0))
      continue;
    double where[3] = {0, 0, 0};
    coordinates(point, where);
    double squared = 0;
    for (int i = 0; i < 3; ++i) {
      double d =
          std::log2(std::max(at[i], 1.0)) - std::log2(std::max(where[i], 1.0));
      squared += d * d;
    }
    if (squared == 0)
      return rate(point);
    double weight = 1 / (squared * squared);
    weightSum += weight;
    logSum += weight * std::log(rate(point));
  }
  return weightSum > 0 ? std::exp(logSum / weightSum) : 0;
}

static double matmulRate(const std::vector<MatmulPoint> &table, double m,
                         double n, double k) {
  return interpolate(
      table, {m, n, k},
      [](const MatmulPoint &p, double *out) {
        out[0] = p.m;
        out[1] = p.n;
        out[2] = p.k;
      },
      [](const MatmulPoint &p) { return p.flopsPerSecond; });
}

double Calibration::matmulFlopsPerSecond(double m, double n, double k) const {
  return matmulRate(matmul, m, n, k);
}

const std::vector<MatmulPoint> *
Calibration::layoutTable(bool transposedA, bool transposedB) const {
  const std::vector<MatmulPoint> *table = transposedA == transposedB ? nullptr
                                          : transposedB ? &matmulNT
                                                        : &matmulTN;
  return table && !table->empty() ? table : nullptr;
}

double Calibration::matmulLayoutFactor(double m, double n, double k,
                                       bool transposedA,
                                       bool transposedB) const {
  if (!transposedA && !transposedB)
    return 1;
  auto extent = [](double v) {
    return static_cast<int64_t>(std::llround(std::max(v, 1.0)));
  };
  MatmulShape shape = classifyMatmulShape(extent(m), extent(n), extent(k));
  std::string layout =
      matmulClassName({matmulLayout(transposedA, transposedB), shape});
  std::string plain = matmulClassName({MatmulLayout::NN, shape});
  auto chosenSeconds = [&](const std::string &name) {
    for (const MatmulKernelPoint &point : matmulKernels)
      if (point.matmulClass == name)
        return point.kernel == "vector" ? point.vectorSeconds
                                        : point.blasSeconds;
    return 0.0;
  };
  double transposed = chosenSeconds(layout), straight = chosenSeconds(plain);
  return transposed > 0 && straight > 0 ? transposed / straight : 1;
}

double Calibration::nonfiniteCheckSecondsOf(double gradientBytes) const {
  if (!(gradientBytes > 0) || nonfiniteCheck.empty())
    return 0;
  return over(gradientBytes, bandwidthAt(nonfiniteCheck, gradientBytes));
}

double Calibration::coldSecondsOf(double coldBytes,
                                  double footprintBytes) const {
  if (!(coldBytes > 0) || coldOperand.empty())
    return 0;
  return over(coldBytes, bandwidthAt(coldOperand, footprintBytes));
}

double Calibration::transposeBytesPerSecond(double rows, double cols) const {
  return interpolate(
      transpose, {rows, cols, 1},
      [](const TransposePoint &p, double *out) {
        out[0] = p.rows;
        out[1] = p.cols;
        out[2] = 1;
      },
      [](const TransposePoint &p) { return p.bytesPerSecond; });
}

double Calibration::opSecondsOf(const OpWork &op, double peakFlops,
                                double memoryBytesPerSecond) const {
  if (op.folded)
    return 0;
  switch (op.kind) {
  case OpClass::Free:
    return 0;
  case OpClass::Matmul: {
    double rows = op.m;
    double product = 2 * op.m * op.n * op.k;
    if (matmulBatchesInParallel && product > 0)
      rows *= std::max(1.0, op.flops / product);
    // A layout with its own table is priced from it alone; otherwise the
    // NN rate times the class ratio of matmulKernels.
    const std::vector<MatmulPoint> *table =
        layoutTable(op.transposedA, op.transposedB);
    double rate = matmulRate(table ? *table : matmul, rows, op.n, op.k);
    double factor = table ? 1
                          : matmulLayoutFactor(op.m, op.n, op.k, op.transposedA,
                                               op.transposedB);
    return issued(opSeconds,
                  over(op.flops, rate > 0 ? rate : peakFlops) * factor);
  }
  case OpClass::Elementwise:
    return issued(elementwiseFixedSeconds(op),
                  std::max(over(op.bytes, bandwidthAt(elementwise, op.bytes)),
                           over(op.flops, elementwiseFlopsPerSecond)));
  case OpClass::Transcendental: {
    double rate = transcendentalFlopsPerSecond > 0
                      ? transcendentalFlopsPerSecond
                      : elementwiseFlopsPerSecond;
    for (const TranscendentalPoint &point : transcendental)
      if (!op.function.empty() && point.function == op.function)
        rate = point.flopsPerSecond;
    return issued(elementwiseFixedSeconds(op),
                  std::max(over(op.bytes, bandwidthAt(elementwise, op.bytes)),
                           over(op.flops, rate)));
  }
  case OpClass::Reduction:
    return issued(opSeconds, over(op.bytes, bandwidthAt(reduction, op.bytes)));
  case OpClass::OuterReduction:
    return issued(opSeconds, over(op.bytes, bandwidthAt(outerReduction.empty()
                                                            ? reduction
                                                            : outerReduction,
                                                        op.bytes)));
  case OpClass::Transpose:
    if (!transpose.empty())
      return issued(opSeconds,
                    over(op.bytes, transposeBytesPerSecond(op.m, op.n)));
    return issued(opSeconds, over(op.bytes, bandwidthAt(movement, op.bytes)));
  case OpClass::Movement:
    return issued(opSeconds, over(op.bytes, bandwidthAt(movement, op.bytes)));
  case OpClass::Copy:
    // Without the stage's footprint: evicted (StageCosts passes it).
    return copySecondsOf(op.bytes, /*footprintBytes=*/-1);
  case OpClass::Other:
    break;
  }
  return issued(opSeconds, std::max(over(op.flops, peakFlops),
                                    over(op.bytes, memoryBytesPerSecond)));
}

double Calibration::coldnessAt(double footprintBytes) const {
  if (footprintBytes < 0 || coldOperand.empty())
    return 1;
  double here = bandwidthAt(coldOperand, footprintBytes);
  double coldest = bandwidthAt(coldOperand, coldOperand.back().bytes);
  return here > 0 ? std::clamp(coldest / here, 0.0, 1.0) : 1;
}

double Calibration::copySecondsOf(double bytes, double footprintBytes) const {
  if (copy.empty())
    return 0;
  return opSeconds +
         blendedSeconds(bytes, copyWarm, copy, coldnessAt(footprintBytes));
}

double Calibration::optimizerStepSeconds(double parameterBytes,
                                         double nodeParameterBytes) const {
  double rate = bandwidthAt(optimizer, parameterBytes);
  if (!optimizerCold.empty()) {
    double cold = bandwidthAt(optimizerCold,
                              std::max(nodeParameterBytes, parameterBytes));
    if (cold > 0 && (!(rate > 0) || cold < rate))
      rate = cold;
  }
  return issued(optimizerSeconds, over(parameterBytes, rate));
}

double Calibration::optimizerStepSeconds(const std::vector<double> &tensorBytes,
                                         double nodeParameterBytes) const {
  double total = 0;
  for (double bytes : tensorBytes)
    total += bytes;
  nodeParameterBytes = std::max(nodeParameterBytes, total);
  // Once per action (not measured: nothing).
  double seconds = std::max(0.0, optimizerActionSeconds);
  if (version < 2)
    return seconds + optimizerStepSeconds(total, nodeParameterBytes);
  for (double bytes : tensorBytes)
    seconds += optimizerStepSeconds(bytes, nodeParameterBytes);
  return seconds;
}

double Calibration::messageSeconds(double bytes, double bytesPerSecond) const {
  if (pointToPoint.empty())
    return -1;
  // Beyond the largest size the rest at the bandwidth; within the table
  // (and below it) the table's.
  const MessagePoint &last = pointToPoint.back();
  if (bytes >= last.bytes)
    return last.seconds +
           (bytesPerSecond > 0 ? (bytes - last.bytes) / bytesPerSecond : 0);
  return interpolateMessages(pointToPoint, bytes, &MessagePoint::seconds);
}

double Calibration::sendOverheadSeconds(double bytes) const {
  return interpolateMessages(pointToPoint, bytes, &MessagePoint::sendSeconds);
}

double Calibration::recvOverheadSeconds(double bytes) const {
  return interpolateMessages(pointToPoint, bytes, &MessagePoint::recvSeconds);
}

double Calibration::deliverOverheadSeconds(double bytes) const {
  bool measured = std::any_of(
      pointToPoint.begin(), pointToPoint.end(),
      [](const MessagePoint &point) { return point.deliverSeconds > 0; });
  if (!measured)
    return recvOverheadSeconds(bytes);
  return interpolateMessages(pointToPoint, bytes,
                             &MessagePoint::deliverSeconds);
}

double Calibration::eagerLimitBytes() const {
  for (size_t i = 1; i < pointToPoint.size(); ++i) {
    const MessagePoint &lo = pointToPoint[i - 1], &hi = pointToPoint[i];
    if (hi.bytes <= 1.1 * lo.bytes && hi.seconds >= 1.5 * lo.seconds)
      return lo.bytes;
  }
  return 0;
}

double Calibration::accumulateSecondsOf(const std::vector<double> &tensorBytes,
                                        double footprintBytes) const {
  if (accumulate.empty())
    return 0;
  double coldness = coldnessAt(footprintBytes);
  double seconds = 0;
  for (double bytes : tensorBytes)
    seconds += accumulateSeconds +
               blendedSeconds(bytes, accumulateWarm, accumulate, coldness);
  return seconds;
}

} // namespace pipewave::sim

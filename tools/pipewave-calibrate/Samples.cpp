//===- Samples.cpp - Medians of timings across calibration passes ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Samples.h"

#include <algorithm>
#include <cmath>

namespace pipewave::calibrate {

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double typicalMean(const std::vector<double> &values, double cutoff) {
  double limit = cutoff * median(values);
  double sum = 0;
  size_t count = 0;
  for (double value : values)
    if (value <= limit) {
      sum += value;
      ++count;
    }
  return count ? sum / static_cast<double>(count) : 0;
}

double steadyMedian(std::vector<double> values, double cutoff) {
  if (values.empty())
    return 0;
  double least = *std::min_element(values.begin(), values.end());
  if (!(least > 0))
    return median(std::move(values));
  values.erase(std::remove_if(values.begin(), values.end(),
                              [&](double v) { return v > cutoff * least; }),
               values.end());
  return median(std::move(values));
}

double SamplePool::add(const std::string &name, double value) {
  std::vector<double> &values = samples[name];
  values.push_back(value);
  return steadyMedian(values, kSlowProcessCutoff);
}

std::vector<double> passSpeeds(const std::vector<const SamplePool *> &pools) {
  std::vector<std::vector<double>> ratios;
  for (const SamplePool *pool : pools)
    for (const auto &[name, values] : pool->all()) {
      double middle = median(values);
      if (values.size() < 2 || !(middle > 0))
        continue;
      if (ratios.size() < values.size())
        ratios.resize(values.size());
      for (size_t i = 0; i < values.size(); ++i)
        ratios[i].push_back(values[i] / middle);
    }
  std::vector<double> speeds;
  for (std::vector<double> &pass : ratios)
    speeds.push_back(median(std::move(pass)));
  return speeds;
}

double speedSpread(const std::vector<double> &speeds) {
  if (speeds.size() < 2)
    return 1;
  auto [low, high] = std::minmax_element(speeds.begin(), speeds.end());
  return *low > 0 ? *high / *low : 1;
}

bool isActionName(const std::string &name) {
  return name.size() > 3 &&
         std::string("FBIW").find(name[0]) != std::string::npos &&
         name.compare(1, 2, " s") == 0;
}

std::vector<double> gapsAfterActions(std::vector<Slice> step) {
  std::sort(step.begin(), step.end(),
            [](const Slice &a, const Slice &b) { return a.start < b.start; });
  std::vector<double> gaps;
  for (size_t i = 0; i + 1 < step.size(); ++i)
    if (step[i].action)
      gaps.push_back(std::max(0.0, step[i + 1].start - step[i].end));
  return gaps;
}

int stepsForSteadyRun(int steps, double spanSeconds, double steadySeconds,
                      int most) {
  if (spanSeconds >= steadySeconds || steps >= most)
    return steps;
  double scale = std::ceil(steadySeconds / std::max(spanSeconds, 1e-6));
  return static_cast<int>(std::min<double>(most, steps * scale));
}

int firstCountedStep(int ran, int steps) {
  return std::max(2, ran - steps + 2);
}

} // namespace pipewave::calibrate

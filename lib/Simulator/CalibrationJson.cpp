//===- CalibrationJson.cpp - The optional terms of a calibration ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "CalibrationJson.h"

namespace pipewave::sim {

using json::jsonNumber;
using json::JsonValue;

namespace {

/// Reads `key` of `object` when present: a non-negative number.
bool readOptionalNumber(const JsonValue &object, const char *key, double &out,
                        std::string &error) {
  const JsonValue *value = object.find(key);
  if (!value)
    return true;
  if (!value->isNumber() || !(value->number >= 0)) {
    error = std::string("invalid non-negative number '") + key + "'";
    return false;
  }
  out = value->number;
  return true;
}

/// Reads the number `key` of a table entry.
bool entryNumber(const JsonValue &entry, const char *table, const char *key,
                 double &out, std::string &error) {
  const JsonValue *value = entry.isObject() ? entry.find(key) : nullptr;
  if (!value || !value->isNumber() || !(value->number >= 0)) {
    error =
        std::string(table) + ": an entry lacks a non-negative '" + key + "'";
    return false;
  }
  out = value->number;
  return true;
}

/// Reads the optional number `key` of a table entry (left as it is when
/// absent).
bool optionalEntryNumber(const JsonValue &entry, const char *table,
                         const char *key, double &out, std::string &error) {
  if (!entry.isObject() || !entry.find(key))
    return true;
  return entryNumber(entry, table, key, out, error);
}

/// Reads the optional bandwidth table `key` (sizes increasing).
bool readOptionalTable(const JsonValue &object, const char *key,
                       std::vector<BandwidthPoint> &out, std::string &error) {
  const JsonValue *table = object.find(key);
  if (!table)
    return true;
  if (!table->isArray()) {
    error = std::string("'") + key + "' must be an array";
    return false;
  }
  for (const JsonValue &entry : table->array) {
    BandwidthPoint point;
    if (!entryNumber(entry, key, "bytes", point.bytes, error) ||
        !entryNumber(entry, key, "bytesPerSecond", point.bytesPerSecond, error))
      return false;
    if (!out.empty() && !(point.bytes > out.back().bytes)) {
      error = std::string(key) + ": sizes must increase";
      return false;
    }
    out.push_back(point);
  }
  return true;
}

bool readOptionalFlag(const JsonValue &object, const char *key, bool &out,
                      std::string &error) {
  const JsonValue *flag = object.find(key);
  if (!flag)
    return true;
  if (!flag->isBool()) {
    error = std::string("'") + key + "' must be true or false";
    return false;
  }
  out = flag->boolean;
  return true;
}

std::string table(const char *key, const std::vector<BandwidthPoint> &points) {
  std::string out = std::string("    \"") + key + "\": [";
  for (size_t i = 0; i < points.size(); ++i)
    out += std::string(i ? ", " : "") +
           "{ \"bytes\": " + jsonNumber(points[i].bytes) +
           ", \"bytesPerSecond\": " + jsonNumber(points[i].bytesPerSecond) +
           " }";
  return out + "],\n";
}

} // namespace

bool readOptionalCalibration(const JsonValue &object, Calibration &out,
                             std::string &error) {
  double version = 1;
  if (!readOptionalNumber(object, "version", version, error))
    return false;
  if (version < 1 || version != static_cast<int>(version)) {
    error = "'version' must be 1 or more";
    return false;
  }
  out.version = static_cast<int>(version);
  // Absent terms keep their defaults (readOptional* leave `out` alone).
  if (!readOptionalNumber(object, "fusedOpSeconds", out.fusedOpSeconds,
                          error) ||
      !readOptionalNumber(object, "elementwiseKernelSeconds",
                          out.elementwiseKernelSeconds, error) ||
      !readOptionalFlag(object, "matmulBatchesInParallel",
                        out.matmulBatchesInParallel, error) ||
      !readOptionalFlag(object, "issueOverlapsWork", out.issueOverlapsWork,
                        error) ||
      !readOptionalNumber(object, "optimizerActionSeconds",
                          out.optimizerActionSeconds, error) ||
      !readOptionalNumber(object, "transcendentalFlopsPerSecond",
                          out.transcendentalFlopsPerSecond, error) ||
      !readOptionalNumber(object, "accumulateSeconds", out.accumulateSeconds,
                          error) ||
      !readOptionalTable(object, "outerReduction", out.outerReduction, error) ||
      !readOptionalTable(object, "copy", out.copy, error) ||
      !readOptionalTable(object, "accumulate", out.accumulate, error) ||
      !readOptionalTable(object, "accumulateWarm", out.accumulateWarm, error) ||
      !readOptionalTable(object, "copyWarm", out.copyWarm, error) ||
      !readOptionalTable(object, "coldOperand", out.coldOperand, error) ||
      !readOptionalTable(object, "optimizerCold", out.optimizerCold, error) ||
      !readOptionalTable(object, "nonfiniteCheck", out.nonfiniteCheck, error))
    return false;
  if (const JsonValue *points = object.find("transcendental")) {
    if (!points->isArray()) {
      error = "'transcendental' must be an array";
      return false;
    }
    for (const JsonValue &entry : points->array) {
      TranscendentalPoint point;
      const JsonValue *function =
          entry.isObject() ? entry.find("function") : nullptr;
      if (!function || !function->isString() || function->string.empty()) {
        error = "transcendental: an entry lacks a string 'function'";
        return false;
      }
      point.function = function->string;
      if (!entryNumber(entry, "transcendental", "flopsPerSecond",
                       point.flopsPerSecond, error))
        return false;
      if (!(point.flopsPerSecond > 0)) {
        error = "transcendental: '" + point.function +
                "': flopsPerSecond must be positive";
        return false;
      }
      out.transcendental.push_back(point);
    }
  }
  if (const JsonValue *points = object.find("transpose")) {
    if (!points->isArray()) {
      error = "'transpose' must be an array";
      return false;
    }
    for (const JsonValue &entry : points->array) {
      TransposePoint point;
      if (!entryNumber(entry, "transpose", "rows", point.rows, error) ||
          !entryNumber(entry, "transpose", "cols", point.cols, error) ||
          !entryNumber(entry, "transpose", "bytesPerSecond",
                       point.bytesPerSecond, error))
        return false;
      out.transpose.push_back(point);
    }
  }
  if (const JsonValue *points = object.find("pointToPoint")) {
    if (!points->isArray()) {
      error = "'pointToPoint' must be an array";
      return false;
    }
    for (const JsonValue &entry : points->array) {
      MessagePoint point;
      if (!entryNumber(entry, "pointToPoint", "bytes", point.bytes, error) ||
          !entryNumber(entry, "pointToPoint", "seconds", point.seconds,
                       error) ||
          !optionalEntryNumber(entry, "pointToPoint", "send", point.sendSeconds,
                               error) ||
          !optionalEntryNumber(entry, "pointToPoint", "recv", point.recvSeconds,
                               error) ||
          !optionalEntryNumber(entry, "pointToPoint", "deliver",
                               point.deliverSeconds, error))
        return false;
      if (!out.pointToPoint.empty() &&
          !(point.bytes > out.pointToPoint.back().bytes)) {
        error = "pointToPoint: sizes must increase";
        return false;
      }
      out.pointToPoint.push_back(point);
    }
  }
  return readMatmulKernels(object, out, error);
}

std::string optionalCalibrationJson(const Calibration &c) {
  std::string out;
  if (c.version != 1)
    out += "    \"version\": " + jsonNumber(c.version) + ",\n";
  if (c.fusedOpSeconds >= 0)
    out += "    \"fusedOpSeconds\": " + jsonNumber(c.fusedOpSeconds) + ",\n";
  if (c.elementwiseKernelSeconds >= 0)
    out += "    \"elementwiseKernelSeconds\": " +
           jsonNumber(c.elementwiseKernelSeconds) + ",\n";
  if (c.optimizerActionSeconds >= 0)
    out += "    \"optimizerActionSeconds\": " +
           jsonNumber(c.optimizerActionSeconds) + ",\n";
  if (c.matmulBatchesInParallel)
    out += "    \"matmulBatchesInParallel\": true,\n";
  if (c.issueOverlapsWork)
    out += "    \"issueOverlapsWork\": true,\n";
  if (c.transcendentalFlopsPerSecond > 0)
    out += "    \"transcendentalFlopsPerSecond\": " +
           jsonNumber(c.transcendentalFlopsPerSecond) + ",\n";
  if (!c.transcendental.empty()) {
    out += "    \"transcendental\": [";
    for (size_t i = 0; i < c.transcendental.size(); ++i)
      out += std::string(i ? ", " : "") + "{ \"function\": " +
             json::jsonQuote(c.transcendental[i].function) +
             ", \"flopsPerSecond\": " +
             jsonNumber(c.transcendental[i].flopsPerSecond) + " }";
    out += "],\n";
  }
  if (!c.outerReduction.empty())
    out += table("outerReduction", c.outerReduction);
  if (!c.copy.empty())
    out += table("copy", c.copy);
  if (!c.accumulate.empty()) {
    out +=
        "    \"accumulateSeconds\": " + jsonNumber(c.accumulateSeconds) + ",\n";
    out += table("accumulate", c.accumulate);
  }
  if (!c.accumulateWarm.empty())
    out += table("accumulateWarm", c.accumulateWarm);
  if (!c.copyWarm.empty())
    out += table("copyWarm", c.copyWarm);
  if (!c.coldOperand.empty())
    out += table("coldOperand", c.coldOperand);
  if (!c.optimizerCold.empty())
    out += table("optimizerCold", c.optimizerCold);
  if (!c.nonfiniteCheck.empty())
    out += table("nonfiniteCheck", c.nonfiniteCheck);
  if (!c.transpose.empty()) {
    out += "    \"transpose\": [";
    for (size_t i = 0; i < c.transpose.size(); ++i)
      out +=
          std::string(i ? "," : "") +
          "\n      { \"rows\": " + jsonNumber(c.transpose[i].rows) +
          ", \"cols\": " + jsonNumber(c.transpose[i].cols) +
          ", \"bytesPerSecond\": " + jsonNumber(c.transpose[i].bytesPerSecond) +
          " }";
    out += "\n    ],\n";
  }
  if (!c.pointToPoint.empty()) {
    out += "    \"pointToPoint\": [";
    for (size_t i = 0; i < c.pointToPoint.size(); ++i) {
      const MessagePoint &point = c.pointToPoint[i];
      out += std::string(i ? ", " : "") +
             "{ \"bytes\": " + jsonNumber(point.bytes) +
             ", \"seconds\": " + jsonNumber(point.seconds);
      // The overheads only where measured: older files round-trip as they
      // were.
      if (point.sendSeconds > 0 || point.recvSeconds > 0)
        out += ", \"send\": " + jsonNumber(point.sendSeconds) +
               ", \"recv\": " + jsonNumber(point.recvSeconds);
      if (point.deliverSeconds > 0)
        out += ", \"deliver\": " + jsonNumber(point.deliverSeconds);
      out += " }";
    }
    out += "],\n";
  }
  return out + matmulKernelsJson(c);
}

} // namespace pipewave::sim

//===- MatmulKernelsJson.cpp - The calibration's measured matmul kernels --===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The optional matmul arrays of a calibration object: the rates of the
// transposed layouts, in the form of the "matmul" table,
//
//   "matmulNT": [ { "m": 8, "n": 128, "k": 32, "flopsPerSecond": 4.5e10 },
//   ...], "matmulTN": [ ... ],
//
// and "matmulKernels":
//
//   "matmulKernels": [
//     { "class": "nt-skinny-m", "m": 32, "n": 512, "k": 512,
//       "vectorSeconds": 0.00042, "blasSeconds": 0.00021, "kernel": "blas" },
//     ...
//   ]
//
// The class names are the lowering's (pipewave/Conversion/MatmulChoice.h);
// this file checks only the form, pipewave-compile checks the names.
//
//===----------------------------------------------------------------------===//

#include "CalibrationJson.h"

namespace pipewave::sim {

using json::jsonNumber;
using json::jsonQuote;
using json::JsonValue;

namespace {

bool number(const JsonValue &entry, const char *key, double &out,
            std::string &error) {
  const JsonValue *value = entry.find(key);
  if (!value || !value->isNumber() || !(value->number >= 0)) {
    error = std::string("matmulKernels: an entry lacks a non-negative '") +
            key + "'";
    return false;
  }
  out = value->number;
  return true;
}

bool text(const JsonValue &entry, const char *key, std::string &out,
          std::string &error) {
  const JsonValue *value = entry.find(key);
  if (!value || !value->isString() || value->string.empty()) {
    error = std::string("matmulKernels: an entry lacks a string '") + key + "'";
    return false;
  }
  out = value->string;
  return true;
}

/// The optional rate table `key` (matmulNT, matmulTN) into `out`.
bool readLayoutTable(const JsonValue &object, const char *key,
                     std::vector<MatmulPoint> &out, std::string &error) {
  const JsonValue *points = object.find(key);
  if (!points)
    return true;
  if (!points->isArray()) {
    error = std::string("'") + key + "' must be an array";
    return false;
  }
  for (const JsonValue &entry : points->array) {
    MatmulPoint point;
    for (auto [name, field] : {std::pair<const char *, double *>{"m", &point.m},
                               {"n", &point.n},
                               {"k", &point.k},
                               {"flopsPerSecond", &point.flopsPerSecond}}) {
      const JsonValue *value = entry.isObject() ? entry.find(name) : nullptr;
      if (!value || !value->isNumber() || !(value->number > 0)) {
        error = std::string(key) + ": an entry lacks a positive '" + name + "'";
        return false;
      }
      *field = value->number;
    }
    out.push_back(point);
  }
  return true;
}

std::string layoutTableJson(const char *key,
                            const std::vector<MatmulPoint> &points) {
  if (points.empty())
    return "";
  return std::string("    \"") + key + "\": [" + matmulPointsJson(points) +
         "\n    ],\n";
}

} // namespace

std::string matmulPointsJson(const std::vector<MatmulPoint> &points) {
  std::string out;
  for (size_t i = 0; i < points.size(); ++i) {
    const MatmulPoint &p = points[i];
    out += std::string(i ? "," : "") + "\n      { \"m\": " + jsonNumber(p.m) +
           ", \"n\": " + jsonNumber(p.n) + ", \"k\": " + jsonNumber(p.k) +
           ", \"flopsPerSecond\": " + jsonNumber(p.flopsPerSecond) + " }";
  }
  return out;
}

bool readMatmulKernels(const JsonValue &object, Calibration &out,
                       std::string &error) {
  if (!readLayoutTable(object, "matmulNT", out.matmulNT, error) ||
      !readLayoutTable(object, "matmulTN", out.matmulTN, error))
    return false;
  const JsonValue *points = object.find("matmulKernels");
  if (!points)
    return true;
  if (!points->isArray()) {
    error = "'matmulKernels' must be an array";
    return false;
  }
  for (const JsonValue &entry : points->array) {
    MatmulKernelPoint point;
    if (!entry.isObject()) {
      error = "matmulKernels: every entry must be an object";
      return false;
    }
    if (!text(entry, "class", point.matmulClass, error) ||
        !number(entry, "m", point.m, error) ||
        !number(entry, "n", point.n, error) ||
        !number(entry, "k", point.k, error) ||
        !number(entry, "vectorSeconds", point.vectorSeconds, error) ||
        !number(entry, "blasSeconds", point.blasSeconds, error) ||
        !text(entry, "kernel", point.kernel, error))
      return false;
    if (point.kernel != "vector" && point.kernel != "blas") {
      error = "matmulKernels: '" + point.matmulClass +
              "': the kernel must be vector or blas, not '" + point.kernel +
              "'";
      return false;
    }
    out.matmulKernels.push_back(point);
  }
  return true;
}

std::string matmulKernelsJson(const Calibration &c) {
  std::string out = layoutTableJson("matmulNT", c.matmulNT) +
                    layoutTableJson("matmulTN", c.matmulTN);
  if (c.matmulKernels.empty())
    return out;
  out += "    \"matmulKernels\": [";
  for (size_t i = 0; i < c.matmulKernels.size(); ++i) {
    const MatmulKernelPoint &p = c.matmulKernels[i];
    out += std::string(i ? "," : "") +
           "\n      { \"class\": " + jsonQuote(p.matmulClass) +
           ", \"m\": " + jsonNumber(p.m) + ", \"n\": " + jsonNumber(p.n) +
           ", \"k\": " + jsonNumber(p.k) +
           ", \"vectorSeconds\": " + jsonNumber(p.vectorSeconds) +
           ", \"blasSeconds\": " + jsonNumber(p.blasSeconds) +
           ", \"kernel\": " + jsonQuote(p.kernel) + " }";
  }
  return out + "\n    ],\n";
}

} // namespace pipewave::sim

//===- MatmulKernelsJson.cpp - The calibration's measured matmul kernels --===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The optional "matmulKernels" array of a calibration object:
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

} // namespace

bool readMatmulKernels(const JsonValue &object, Calibration &out,
                       std::string &error) {
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
  if (c.matmulKernels.empty())
    return "";
  std::string out = "    \"matmulKernels\": [";
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

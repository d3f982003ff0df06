//===- Trace.h - Chrome trace and SVG timeline of a simulation --*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR/LLVM). Two views of one simulated step:
//
// * chromeTrace(): Chrome trace-event JSON (open in chrome://tracing or
//   https://ui.perfetto.dev). One process per rank; its thread 0 "compute"
//   holds the F/B/I/W, all-reduce and optimizer slices ("F s1 mb3",
//   "allreduce s1", "opt s1"), and one thread per outgoing link holds the
//   transfers ("send act s1 mb3 -> r2", the time the message occupies the
//   link). Slices of microbatch m share a Chrome colour ("cname"). Times are
//   in microseconds of simulated seconds.
//
// * svgTimeline(): a self-contained SVG, ranks x time. Every F/B/I/W action
//   is one <rect> (and no other element is a <rect>) coloured by microbatch:
//   F light, B dark, I medium, W dark and hatched, each labelled ("F3") where
//   wide enough and titled with its times; all-reduce and optimizer steps are
//   grey, transfers a thin strip under the sender's row; with a time axis and
//   a legend.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SIMULATOR_TRACE_H
#define PIPEWAVE_SIMULATOR_TRACE_H

#include "pipewave/Schedule/Program.h"
#include "pipewave/Simulator/Simulator.h"

#include <string>

namespace pipewave::sim {

/// The Chrome trace-event JSON of `report`, a simulation of `program`.
std::string chromeTrace(const schedule::Program &program,
                        const SimReport &report);

struct SvgOptions {
  /// Heading; empty for "<schedule>, S stages, M microbatches".
  std::string title;
  /// True if times are seconds (axis labels like "12 ms"); false for plain
  /// unit-cost numbers.
  bool seconds = true;
  /// Total width in pixels.
  double width = 1200;
};

/// The SVG timeline of `report`, a simulation of `program`.
std::string svgTimeline(const schedule::Program &program,
                        const SimReport &report,
                        const SvgOptions &options = SvgOptions());

} // namespace pipewave::sim

#endif // PIPEWAVE_SIMULATOR_TRACE_H

//===- Trace.h - Measured Chrome trace events -------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Records what a rank did as Chrome trace-event "X" (complete) slices: one
// process per rank (pid = rank, named "rank R"), one thread (tid 0). Slice
// names are the plan's trace names ("F s1 mb3", "recv act s1 mb3" for the
// wait on a receive, "send act s1 mb3" for posting a send, "wait send act s1
// mb3" for completing one); categories are "compute", "recv", "send". Times
// are microseconds since the origin each rank takes right after a common
// barrier; a "clock_origin" metadata event holds each rank's origin on
// the host's steady clock (microseconds), so that the slices of ranks on
// one host can be put on one time line. Rank 0 gathers every rank's events and
// writes one
// {"traceEvents": [...]} file that Perfetto and chrome://tracing load.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_TRACE_H
#define PIPEWAVE_RUNTIME_TRACE_H

#include <string>
#include <vector>

namespace pipewave::runtime {

class Trace {
public:
  /// Starts the clock: later times are relative to `origin` (seconds).
  void start(double origin) { originSeconds = origin; }

  /// Records a slice from `begin` to `end` (seconds, same clock as origin).
  void add(const std::string &name, const char *category, double begin,
           double end, int step);

  size_t size() const { return events.size(); }

  /// This rank's events as comma-separated JSON objects (no brackets),
  /// including the process/thread name metadata.
  std::string eventsJson(int rank) const;

private:
  struct Event {
    std::string name;
    const char *category;
    double begin;
    double end;
    int step;
  };
  double originSeconds = 0;
  std::vector<Event> events;
};

/// Writes the trace file from every rank's eventsJson() (atomically).
void writeChromeTrace(const std::string &path,
                      const std::vector<std::string> &rankEvents);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_TRACE_H

//===- Trace.cpp - Measured Chrome trace events ---------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Trace.h"
#include "pipewave-runtime/File.h"
#include "pipewave-runtime/Json.h"

namespace pipewave::runtime {

void Trace::add(const std::string &name, const char *category, double begin,
                double end, int step) {
  events.push_back({name, category, begin, end, step});
}

std::string Trace::eventsJson(int rank) const {
  std::string pid = std::to_string(rank);
  std::string out = "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid +
                    ",\"tid\":0,\"args\":{\"name\":\"rank " + pid +
                    "\"}},"
                    "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" +
                    pid + ",\"tid\":0,\"args\":{\"sort_index\":" + pid +
                    "}},"
                    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" +
                    pid +
                    ",\"tid\":0,\"args\":{\"name\":\"actions\"}},"
                    "{\"name\":\"clock_origin\",\"ph\":\"M\",\"pid\":" +
                    pid + ",\"tid\":0,\"args\":{\"steady_us\":" +
                    jsonNumber(originSeconds * 1e6) + "}}";
  for (const Event &event : events) {
    double ts = (event.begin - originSeconds) * 1e6;
    double dur = (event.end - event.begin) * 1e6;
    out += ",{\"name\":" + jsonQuote(event.name) +
           ",\"cat\":" + jsonQuote(event.category) +
           ",\"ph\":\"X\",\"pid\":" + pid +
           ",\"tid\":0,\"ts\":" + jsonNumber(ts) +
           ",\"dur\":" + jsonNumber(dur < 0 ? 0.0 : dur) +
           ",\"args\":{\"step\":" + std::to_string(event.step) + "}}";
  }
  return out;
}

void writeChromeTrace(const std::string &path,
                      const std::vector<std::string> &rankEvents) {
  std::string text = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  for (const std::string &events : rankEvents) {
    if (events.empty())
      continue;
    if (!first)
      text += ",\n";
    text += events;
    first = false;
  }
  text += "\n]}\n";
  writeFileAtomic(path, {{text.data(), text.size()}});
}

} // namespace pipewave::runtime

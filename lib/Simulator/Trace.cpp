//===- Trace.cpp - Chrome trace and SVG timeline of a simulation ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Trace.h"

#include "pipewave/Support/Json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace pipewave::sim {

using json::jsonNumber;
using json::jsonQuote;
using schedule::Action;
using schedule::ActionKind;
using schedule::Program;
using schedule::Slice;

namespace {

/// Chrome trace-viewer's reserved colour names, in an order that keeps
/// neighbouring microbatches apart.
const char *const chromeColours[] = {"thread_state_running",
                                     "thread_state_runnable",
                                     "thread_state_iowait",
                                     "thread_state_uninterruptible",
                                     "rail_response",
                                     "rail_animation",
                                     "rail_idle",
                                     "rail_load",
                                     "yellow",
                                     "olive",
                                     "startup",
                                     "cq_build_attempt_passed",
                                     "cq_build_running",
                                     "terrible",
                                     "good",
                                     "bad"};

const char *chromeColour(int microbatch) {
  constexpr int count = sizeof(chromeColours) / sizeof(chromeColours[0]);
  if (microbatch < 0)
    return "grey";
  return chromeColours[microbatch % count];
}

std::string actionName(const Action &action) {
  std::string stage = "s" + std::to_string(action.stage);
  switch (action.kind) {
  case ActionKind::Forward:
  case ActionKind::Backward:
  case ActionKind::BackwardInput:
  case ActionKind::BackwardWeight:
    return std::string(schedule::stringify(action.kind)) + " " + stage + " mb" +
           std::to_string(action.microbatch);
  case ActionKind::AllReduce:
    return "allreduce " + stage;
  case ActionKind::OptimizerStep:
    return "opt " + stage;
  case ActionKind::TiedAllReduce:
    return "tied " + action.param;
  default:
    return schedule::describe(action);
  }
}

std::string devicesText(const std::vector<int> &devices) {
  if (devices.empty())
    return "";
  std::vector<int> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  bool contiguous =
      sorted.back() - sorted.front() + 1 == static_cast<int>(sorted.size());
  if (sorted.size() == 1)
    return "device " + std::to_string(sorted[0]);
  if (contiguous)
    return "devices " + std::to_string(sorted.front()) + "-" +
           std::to_string(sorted.back());
  std::string text = "devices ";
  for (size_t i = 0; i < sorted.size(); ++i)
    text += (i ? "," : "") + std::to_string(sorted[i]);
  return text;
}

class TraceWriter {
public:
  void event(const std::string &body) {
    out += first ? "\n" : ",\n";
    out += body;
    first = false;
  }

  void metadata(const char *what, int pid, int tid, const std::string &name) {
    std::string body = "{\"name\":\"" + std::string(what) +
                       "\",\"ph\":\"M\",\"pid\":" + std::to_string(pid);
    if (tid >= 0)
      body += ",\"tid\":" + std::to_string(tid);
    event(body + ",\"args\":{\"name\":" + jsonQuote(name) + "}}");
  }

  void slice(const std::string &name, const char *category, int pid, int tid,
             double start, double end, const char *colour,
             const std::string &args) {
    event("{\"name\":" + jsonQuote(name) + ",\"cat\":\"" + category +
          "\",\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":" +
          std::to_string(tid) + ",\"ts\":" + jsonNumber(start * 1e6) +
          ",\"dur\":" + jsonNumber(std::max(0.0, end - start) * 1e6) +
          ",\"cname\":\"" + colour + "\",\"args\":{" + args + "}}");
  }

  std::string finish() {
    return "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[" + out + "\n]}\n";
  }

private:
  std::string out;
  bool first = true;
};

} // namespace

std::string chromeTrace(const Program &program, const SimReport &report) {
  TraceWriter trace;
  // Outgoing links per rank -> thread id.
  std::vector<std::map<int, int>> linkThreads(report.ranks.size());
  for (const MessageReport &message : report.messages) {
    auto &threads = linkThreads[message.fromRank];
    if (!threads.count(message.toRank))
      threads.emplace(message.toRank, 0);
  }
  for (size_t r = 0; r < report.ranks.size(); ++r) {
    int pid = static_cast<int>(r);
    trace.metadata("process_name", pid, -1,
                   "rank " + std::to_string(r) + " (" +
                       devicesText(report.ranks[r].devices) + ")");
    trace.event("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" +
                std::to_string(pid) +
                ",\"args\":{\"sort_index\":" + std::to_string(pid) + "}}");
    trace.metadata("thread_name", pid, 0, "compute");
    int tid = 1;
    for (auto &[peer, thread] : linkThreads[r]) {
      thread = tid++;
      trace.metadata("thread_name", pid, thread,
                     "send to rank " + std::to_string(peer));
    }
  }
  for (size_t r = 0; r < report.ranks.size() && r < program.ranks.size(); ++r) {
    int pid = static_cast<int>(r);
    const RankReport &rank = report.ranks[r];
    for (const ExtraSlice &extra : rank.allReduces)
      trace.slice("allreduce s" + std::to_string(extra.stage), "allreduce", pid,
                  0, extra.start, extra.end, "grey",
                  "\"stage\":" + std::to_string(extra.stage));
    for (const Slice &slice : rank.slices) {
      const Action &action = program.ranks[r].actions[slice.actionIndex];
      if (action.kind == ActionKind::Send || action.kind == ActionKind::Recv)
        continue;
      bool compute = schedule::isCompute(action.kind);
      std::string args = "\"stage\":" + std::to_string(action.stage);
      if (compute)
        args += ",\"microbatch\":" + std::to_string(action.microbatch);
      trace.slice(actionName(action),
                  compute                                    ? "compute"
                  : action.kind == ActionKind::OptimizerStep ? "optimizer"
                                                             : "allreduce",
                  pid, 0, slice.start, slice.end,
                  compute ? chromeColour(action.microbatch) : "grey", args);
    }
  }
  for (const MessageReport &message : report.messages) {
    std::string name = std::string("send ") +
                       schedule::stringify(message.payload) + " s" +
                       std::to_string(message.stage) + " mb" +
                       std::to_string(message.microbatch) + " -> r" +
                       std::to_string(message.toRank);
    std::string args = "\"bytes\":" + jsonNumber(message.bytes) +
                       ",\"ready_us\":" + jsonNumber(message.ready * 1e6) +
                       ",\"arrival_us\":" + jsonNumber(message.arrival * 1e6);
    trace.slice(name, "comm", message.fromRank,
                linkThreads[message.fromRank].at(message.toRank), message.start,
                message.end, chromeColour(message.microbatch), args);
  }
  return trace.finish();
}

namespace {

std::string escapeXml(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string fmt(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::string hsl(double hue, int saturation, int lightness) {
  return "hsl(" + fmt(hue) + "," + std::to_string(saturation) + "%," +
         std::to_string(lightness) + "%)";
}

double hueOf(int microbatch) {
  return std::fmod(microbatch * 137.508 + 200.0, 360.0);
}

/// Fill and text colour of a compute action of `kind` for `microbatch`.
std::pair<std::string, const char *> computeColours(ActionKind kind,
                                                    int microbatch) {
  double hue = hueOf(microbatch);
  switch (kind) {
  case ActionKind::Forward:
    return {hsl(hue, 70, 75), "#111"};
  case ActionKind::BackwardInput:
    return {hsl(hue, 70, 55), "#111"};
  default: // B and W
    return {hsl(hue, 70, 38), "#fff"};
  }
}

/// A 1, 2 or 5 times a power of ten near `raw`.
double niceStep(double raw) {
  if (!(raw > 0))
    return 1;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0})
    if (raw <= factor * power)
      return factor * power;
  return 10 * power;
}

std::string timeLabel(double t, bool seconds, double step) {
  if (!seconds) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", t);
    return buffer;
  }
  char buffer[32];
  if (step >= 1)
    std::snprintf(buffer, sizeof buffer, "%g s", t);
  else if (step >= 1e-3)
    std::snprintf(buffer, sizeof buffer, "%g ms", std::round(t * 1e6) / 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%g us", std::round(t * 1e9) / 1e3);
  return buffer;
}

std::string box(double x, double y, double w, double h) {
  return "M" + fmt(x) + " " + fmt(y) + "h" + fmt(w) + "v" + fmt(h) + "h" +
         fmt(-w) + "z";
}

} // namespace

std::string svgTimeline(const Program &program, const SimReport &report,
                        const SvgOptions &options) {
  const double left = 120, right = 24, top = 44;
  const double rowHeight = 26, strip = 5, rowGap = 10;
  const double pitch = rowHeight + strip + rowGap;
  const double width = std::max(400.0, options.width);
  const double plotWidth = width - left - right;
  const int numRanks = static_cast<int>(report.ranks.size());
  const int numMicrobatches = std::max(1, program.numMicrobatches);
  const double span = report.stepTime > 0 ? report.stepTime : 1;
  auto xOf = [&](double t) { return left + t / span * plotWidth; };

  const double axisY = top + numRanks * pitch;
  const int perLine =
      std::max(1, static_cast<int>((width - left - right) / 44));
  const int legendLines = (numMicrobatches + perLine - 1) / perLine;
  const double legendY = axisY + 44;

  // The key of the kinds, wrapped to the width: label, fill, hatched, and
  // where it goes (line, x).
  struct Key {
    const char *label;
    std::string fill;
    bool hatched;
    int line = 0;
    double x = 0;
  };
  std::vector<Key> keys = {
      {"F forward (light)", computeColours(ActionKind::Forward, 0).first,
       false},
      {"B backward (dark)", computeColours(ActionKind::Backward, 0).first,
       false},
      {"I input grad (medium)",
       computeColours(ActionKind::BackwardInput, 0).first, false},
      {"W weight grad (hatched)",
       computeColours(ActionKind::BackwardWeight, 0).first, true},
      {"all-reduce", "#999", false},
      {"optimizer", "#555", false},
      // Drawn as a strip, not a box.
      {"transfer (under the sender)", hsl(hueOf(0), 70, 60), false}};
  int keyLines = 1;
  {
    double x = left;
    for (Key &key : keys) {
      double keyWidth = 40 + 6.0 * std::string(key.label).size();
      if (x > left && x + keyWidth - 30 > width - right) {
        x = left;
        ++keyLines;
      }
      key.line = keyLines - 1;
      key.x = x;
      x += keyWidth;
    }
  }
  const double height = legendY + 22 * legendLines + 22 * keyLines + 24;

  std::string title = options.title;
  if (title.empty())
    title = program.schedule + ", " + std::to_string(program.numStages) +
            " stages, " + std::to_string(program.numMicrobatches) +
            " microbatches";
  std::string stepText = options.seconds ? formatSeconds(report.stepTime)
                                         : timeLabel(report.stepTime, false, 1);

  std::string svg;
  svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt(width) +
         "\" height=\"" + fmt(height) + "\" viewBox=\"0 0 " + fmt(width) + " " +
         fmt(height) +
         "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n";
  svg += "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
         "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
         "<path d=\"M0 0v6\" stroke=\"#fff\" stroke-width=\"2\" "
         "stroke-opacity=\"0.6\"/></pattern></defs>\n";
  svg += "<path d=\"" + box(0, 0, width, height) + "\" fill=\"#fff\"/>\n";
  svg += "<text x=\"" + fmt(left) +
         "\" y=\"22\" font-size=\"14\" "
         "font-weight=\"bold\">" +
         escapeXml(title) + "</text>\n";
  char summary[160];
  std::snprintf(summary, sizeof summary, "step %s, bubble %.1f%%",
                stepText.c_str(), 100 * report.bubbleFraction);
  svg += "<text x=\"" + fmt(width - right) +
         "\" y=\"22\" text-anchor=\"end\">" + escapeXml(summary) + "</text>\n";

  // Rows.
  for (int r = 0; r < numRanks; ++r) {
    double y = top + r * pitch;
    const RankReport &rank = report.ranks[r];
    svg += "<g class=\"rank\" id=\"rank" + std::to_string(r) + "\">\n";
    svg += "<path d=\"" + box(left, y, plotWidth, rowHeight) +
           "\" fill=\"#f4f4f4\"/>\n";
    svg += "<text x=\"" + fmt(left - 8) + "\" y=\"" +
           fmt(y + rowHeight / 2 + 4) + "\" text-anchor=\"end\">rank " +
           std::to_string(r) + "</text>\n";
    if (!rank.devices.empty())
      svg += "<text x=\"" + fmt(left - 8) + "\" y=\"" +
             fmt(y + rowHeight + strip + 2) +
             "\" text-anchor=\"end\" font-size=\"8\" fill=\"#666\">" +
             escapeXml(devicesText(rank.devices)) + "</text>\n";
    for (const ExtraSlice &extra : rank.allReduces)
      svg +=
          "<path class=\"allreduce\" d=\"" +
          box(xOf(extra.start), y + 3,
              std::max(0.5, xOf(extra.end) - xOf(extra.start)), rowHeight - 6) +
          "\" fill=\"#999\"><title>allreduce s" + std::to_string(extra.stage) +
          "</title></path>\n";
    if (r >= static_cast<int>(program.ranks.size())) {
      svg += "</g>\n";
      continue;
    }
    for (const Slice &slice : rank.slices) {
      const Action &action = program.ranks[r].actions[slice.actionIndex];
      double x = xOf(slice.start);
      double w = std::max(0.5, xOf(slice.end) - x);
      std::string name = actionName(action);
      std::string when =
          options.seconds
              ? formatSeconds(slice.start) + " - " + formatSeconds(slice.end)
              : timeLabel(slice.start, false, 1) + " - " +
                    timeLabel(slice.end, false, 1);
      if (schedule::isCompute(action.kind)) {
        auto [fill, ink] = computeColours(action.kind, action.microbatch);
        svg += "<rect class=\"" +
               std::string(schedule::stringify(action.kind)) + "\" x=\"" +
               fmt(x) + "\" y=\"" + fmt(y) + "\" width=\"" + fmt(w) +
               "\" height=\"" + fmt(rowHeight) + "\" fill=\"" + fill +
               "\" stroke=\"#333\" stroke-width=\"0.5\"><title>" +
               escapeXml(name + ": " + when) + "</title></rect>\n";
        if (action.kind == ActionKind::BackwardWeight)
          svg += "<path d=\"" + box(x, y, w, rowHeight) +
                 "\" fill=\"url(#hatch)\" pointer-events=\"none\"/>\n";
        std::string label = std::string(schedule::stringify(action.kind)) +
                            std::to_string(action.microbatch);
        if (w >= 7.0 * label.size() + 2)
          svg += "<text x=\"" + fmt(x + w / 2) + "\" y=\"" +
                 fmt(y + rowHeight / 2 + 4) +
                 "\" text-anchor=\"middle\" font-size=\"10\" fill=\"" + ink +
                 "\" pointer-events=\"none\">" + label + "</text>\n";
      } else if (action.kind == ActionKind::AllReduce ||
                 action.kind == ActionKind::TiedAllReduce ||
                 action.kind == ActionKind::OptimizerStep) {
        if (slice.end <= slice.start)
          continue;
        bool optimizer = action.kind == ActionKind::OptimizerStep;
        svg += "<path class=\"" +
               std::string(optimizer ? "optimizer" : "allreduce") + "\" d=\"" +
               box(x, y + 3, w, rowHeight - 6) + "\" fill=\"" +
               (optimizer ? "#555" : "#999") + "\"><title>" +
               escapeXml(name + ": " + when) + "</title></path>\n";
      }
    }
    svg += "</g>\n";
  }

  // Transfers: a strip under the sender's row.
  for (const MessageReport &message : report.messages) {
    if (message.fromRank < 0 || message.fromRank >= numRanks)
      continue;
    double y = top + message.fromRank * pitch + rowHeight + 1;
    double x = xOf(message.start);
    double w = std::max(0.5, xOf(message.end) - x);
    std::string name = std::string("send ") +
                       schedule::stringify(message.payload) + " s" +
                       std::to_string(message.stage) + " mb" +
                       std::to_string(message.microbatch) + " -> r" +
                       std::to_string(message.toRank);
    svg += "<path class=\"comm\" d=\"" + box(x, y, w, strip - 1) +
           "\" fill=\"" +
           hsl(hueOf(message.microbatch), 70,
               message.payload == schedule::Payload::Activation ? 60 : 35) +
           "\"><title>" + escapeXml(name) + "</title></path>\n";
  }

  // Time axis.
  svg += "<g class=\"axis\">\n";
  svg += "<path d=\"M" + fmt(left) + " " + fmt(axisY) + "H" +
         fmt(left + plotWidth) + "\" stroke=\"#000\"/>\n";
  double step = niceStep(span / 10);
  for (int i = 0; i * step <= span * (1 + 1e-9); ++i) {
    double t = i * step;
    double x = xOf(t);
    svg += "<path d=\"M" + fmt(x) + " " + fmt(axisY) + "v5\" stroke=\"#000\"/>";
    svg += "<path d=\"M" + fmt(x) + " " + fmt(top) + "V" + fmt(axisY) +
           "\" stroke=\"#000\" stroke-opacity=\"0.08\"/>";
    svg += "<text x=\"" + fmt(x) + "\" y=\"" + fmt(axisY + 17) +
           "\" text-anchor=\"middle\">" +
           escapeXml(timeLabel(t, options.seconds, step)) + "</text>\n";
  }
  svg += "<text x=\"" + fmt(left - 28) + "\" y=\"" + fmt(axisY + 17) +
         "\" text-anchor=\"end\">time</text>\n";
  svg += "</g>\n";

  // Legend: microbatch colours, then the kinds.
  svg += "<g class=\"legend\">\n";
  svg += "<text x=\"" + fmt(left - 8) + "\" y=\"" + fmt(legendY - 8) +
         "\" text-anchor=\"end\">microbatch</text>\n";
  for (int m = 0; m < numMicrobatches; ++m) {
    double x = left + (m % perLine) * 44;
    double y = legendY - 20 + (m / perLine) * 22;
    svg += "<path d=\"" + box(x, y, 14, 14) + "\" fill=\"" +
           computeColours(ActionKind::Forward, m).first +
           "\" stroke=\"#333\" stroke-width=\"0.5\"/>";
    svg += "<path d=\"" + box(x + 14, y, 14, 14) + "\" fill=\"" +
           computeColours(ActionKind::Backward, m).first +
           "\" stroke=\"#333\" stroke-width=\"0.5\"/>";
    svg += "<text x=\"" + fmt(x + 31) + "\" y=\"" + fmt(y + 11) + "\">" +
           std::to_string(m) + "</text>\n";
  }
  for (const Key &key : keys) {
    double keyY = legendY + 22 * (legendLines + key.line) - 8;
    double x = key.x;
    if (&key == &keys.back()) {
      svg += "<path d=\"" + box(x, keyY + 5, 22, 4) + "\" fill=\"" + key.fill +
             "\"/><text x=\"" + fmt(x + 26) + "\" y=\"" + fmt(keyY + 11) +
             "\">" + key.label + "</text>\n";
      continue;
    }
    svg += "<path d=\"" + box(x, keyY, 14, 14) + "\" fill=\"" + key.fill +
           "\" stroke=\"#333\" stroke-width=\"0.5\"/>";
    if (key.hatched)
      svg += "<path d=\"" + box(x, keyY, 14, 14) + "\" fill=\"url(#hatch)\"/>";
    svg += "<text x=\"" + fmt(x + 18) + "\" y=\"" + fmt(keyY + 11) + "\">" +
           key.label + "</text>\n";
  }
  svg += "</g>\n</svg>\n";
  return svg;
}

} // namespace pipewave::sim

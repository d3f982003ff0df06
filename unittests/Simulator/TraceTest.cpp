//===- TraceTest.cpp - Tests of the Chrome trace and SVG timeline ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Trace.h"

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Support/Json.h"

#include "gtest/gtest.h"

#include <set>

using namespace pipewave;
using namespace pipewave::sim;
using namespace pipewave::json;

namespace {

struct Fixture {
  schedule::Program program;
  SimReport report;
  int computeActions = 0;
};

/// 1F1B, 4 stages, 6 microbatches, with latency, bandwidth and a
/// data-parallel first stage.
Fixture simulated() {
  Fixture fixture;
  fixture.program = *schedule::build1F1B(4, 6).program;
  CostTable costs = CostTable::uniform(4);
  for (StageCosts &stage : costs.stages) {
    stage.forward = 1e-3;
    stage.backward = 2e-3;
    stage.activationBytes = 4e6;
    stage.parameterBytes = 1e8;
    stage.stashBytes = 1e7;
  }
  Cluster cluster = Cluster::of(*findDevice("v100"), 4, 2);
  Placement placement;
  placement.devices = {{0, 1}, {2}, {3}, {4}};
  fixture.report = simulate(fixture.program, costs, cluster, placement);
  for (const schedule::RankProgram &rank : fixture.program.ranks)
    for (const schedule::Action &action : rank.actions)
      fixture.computeActions += schedule::isCompute(action.kind);
  return fixture;
}

TEST(TraceTest, ChromeTraceIsValidJson) {
  Fixture fixture = simulated();
  ASSERT_TRUE(fixture.report.error.empty()) << fixture.report.error;
  std::string text = chromeTrace(fixture.program, fixture.report);
  std::string error;
  std::optional<JsonValue> root = parseJson(text, &error);
  ASSERT_TRUE(root) << error;
  const JsonValue *events = root->find("traceEvents");
  ASSERT_TRUE(events && events->isArray());

  int compute = 0, comm = 0, allReduce = 0, processNames = 0;
  std::set<std::string> names;
  for (const JsonValue &event : events->array) {
    ASSERT_TRUE(event.isObject());
    const JsonValue *ph = event.find("ph");
    ASSERT_TRUE(ph && ph->isString());
    ASSERT_TRUE(event.find("pid") && event.find("pid")->isNumber());
    if (ph->string == "M") {
      processNames += event.find("name")->string == "process_name";
      continue;
    }
    ASSERT_EQ(ph->string, "X");
    for (const char *key : {"ts", "dur", "tid"}) {
      const JsonValue *value = event.find(key);
      ASSERT_TRUE(value && value->isNumber()) << key;
      EXPECT_GE(value->number, 0) << key;
    }
    const JsonValue *cname = event.find("cname");
    ASSERT_TRUE(cname && cname->isString() && !cname->string.empty());
    const std::string &category = event.find("cat")->string;
    names.insert(event.find("name")->string);
    if (category == "compute") {
      ++compute;
      EXPECT_EQ(event.find("tid")->number, 0);
    } else if (category == "comm") {
      ++comm;
      EXPECT_GT(event.find("tid")->number, 0);
    } else if (category == "allreduce") {
      ++allReduce;
    }
  }
  EXPECT_EQ(processNames, 4);
  EXPECT_EQ(compute, fixture.computeActions);
  EXPECT_EQ(comm, static_cast<int>(fixture.report.messages.size()));
  EXPECT_EQ(allReduce, 1); // stage 0's two devices
  EXPECT_TRUE(names.count("F s1 mb3"));
  EXPECT_TRUE(names.count("B s3 mb5"));
  EXPECT_TRUE(names.count("send act s0 mb2 -> r1"));
  EXPECT_TRUE(names.count("allreduce s0"));
}

/// Checks that `xml` is well formed enough for a browser: tags nest, every
/// attribute value is quoted, and there is one root element. Returns the
/// number of start tags named `count`.
int checkXml(const std::string &xml, const std::string &count,
             std::string &error) {
  std::vector<std::string> stack;
  int counted = 0, roots = 0;
  size_t pos = 0;
  while ((pos = xml.find('<', pos)) != std::string::npos) {
    if (xml.compare(pos, 5, "<?xml") == 0) {
      pos = xml.find("?>", pos);
      continue;
    }
    if (xml.compare(pos, 4, "<!--") == 0) {
      pos = xml.find("-->", pos);
      continue;
    }
    size_t end = pos + 1;
    char quote = 0;
    for (; end < xml.size(); ++end) {
      char c = xml[end];
      if (quote) {
        if (c == quote)
          quote = 0;
        else if (c == '<')
          return error = "'<' inside an attribute", -1;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      } else if (c == '<') {
        return error = "'<' inside a tag", -1;
      }
    }
    if (end >= xml.size())
      return error = "unterminated tag", -1;
    std::string tag = xml.substr(pos + 1, end - pos - 1);
    if (!tag.empty() && tag[0] == '/') {
      std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name)
        return error = "unexpected </" + name + ">", -1;
      stack.pop_back();
    } else {
      std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
      if (stack.empty())
        ++roots;
      counted += name == count;
      if (tag.back() != '/')
        stack.push_back(name);
      // Attributes: name="value" pairs only.
      size_t eq = 0;
      while ((eq = tag.find('=', eq)) != std::string::npos) {
        if (eq + 1 >= tag.size() || (tag[eq + 1] != '"' && tag[eq + 1] != '\''))
          return error = "unquoted attribute in <" + name + ">", -1;
        eq = tag.find(tag[eq + 1], eq + 2) + 1;
      }
    }
    pos = end + 1;
  }
  if (!stack.empty())
    return error = "unclosed <" + stack.back() + ">", -1;
  if (roots != 1)
    return error = "expected one root element", -1;
  return counted;
}

TEST(TraceTest, SvgHasOneRectPerComputeAction) {
  Fixture fixture = simulated();
  ASSERT_TRUE(fixture.report.error.empty()) << fixture.report.error;
  std::string svg = svgTimeline(fixture.program, fixture.report);
  std::string error;
  int rects = checkXml(svg, "rect", error);
  ASSERT_GE(rects, 0) << error;
  EXPECT_EQ(rects, fixture.computeActions);
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            std::string::npos);
  // Labels, legend, axis and the hatched weight-gradient pattern.
  EXPECT_NE(svg.find(">F3<"), std::string::npos);
  EXPECT_NE(svg.find("microbatch"), std::string::npos);
  EXPECT_NE(svg.find("class=\"axis\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"hatch\""), std::string::npos);
  EXPECT_NE(svg.find("F s1 mb3: "), std::string::npos);
}

TEST(TraceTest, SvgOfUnitCostRun) {
  schedule::Program program = *schedule::buildGPipe(3, 5).program;
  SimReport report =
      simulate(program, CostTable::uniform(3), Cluster::ideal(3));
  ASSERT_TRUE(report.error.empty());
  SvgOptions options;
  options.seconds = false;
  options.title = "gpipe <3 & 5>";
  std::string svg = svgTimeline(program, report, options);
  std::string error;
  EXPECT_EQ(checkXml(svg, "rect", error), 3 * 5 * 2) << error;
  EXPECT_NE(svg.find("gpipe &lt;3 &amp; 5&gt;"), std::string::npos);
}

} // namespace

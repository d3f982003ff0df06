//===- Profile.cpp - Per-layer profiles for the DAPPLE planner ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <queue>
#include <sstream>

namespace pipewave::planner {

double ModelProfile::totalForwardSeconds() const {
  double total = 0;
  for (const LayerProfile &layer : layers)
    total += layer.forwardSeconds;
  return total;
}

double ModelProfile::totalBackwardSeconds() const {
  double total = 0;
  for (const LayerProfile &layer : layers)
    total += layer.backwardSeconds;
  return total;
}

double ModelProfile::totalParameterBytes() const {
  double total = 0;
  for (const LayerProfile &layer : layers)
    total += layer.parameterBytes;
  return total;
}

ModelProfile makeChainProfile(std::string name, int profileBatch,
                              std::vector<LayerProfile> layers) {
  ModelProfile profile;
  profile.name = std::move(name);
  profile.profileBatch = profileBatch;
  profile.layers = std::move(layers);
  for (size_t i = 0; i + 1 < profile.layers.size(); ++i)
    profile.cutBytes.push_back(profile.layers[i].outputBytes);
  return profile;
}

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

bool parseNumber(std::string_view text, double &out) {
  std::string spelling(trim(text));
  if (spelling.empty())
    return false;
  char *end = nullptr;
  out = std::strtod(spelling.c_str(), &end);
  return end == spelling.c_str() + spelling.size() && std::isfinite(out);
}

/// "123.0" or "[1.0; 2.0]" -> the sum.
bool parseSize(std::string_view text, double &out) {
  text = trim(text);
  if (text.empty() || text.front() != '[')
    return parseNumber(text, out);
  if (text.back() != ']')
    return false;
  text = text.substr(1, text.size() - 2);
  out = 0;
  while (!text.empty()) {
    size_t semicolon = text.find(';');
    double part;
    if (!parseNumber(text.substr(0, semicolon), part))
      return false;
    out += part;
    if (semicolon == std::string_view::npos)
      break;
    text.remove_prefix(semicolon + 1);
  }
  return true;
}

struct Node {
  std::string id;
  LayerProfile layer;
};

} // namespace

std::optional<ModelProfile> parsePipeDreamProfile(std::string_view text,
                                                  int profileBatch,
                                                  std::string *error) {
  auto fail = [&](int line,
                  const std::string &message) -> std::optional<ModelProfile> {
    if (error)
      *error =
          (line > 0 ? "line " + std::to_string(line) + ": " : "") + message;
    return std::nullopt;
  };
  if (profileBatch < 1)
    return fail(0, "the profile batch size must be at least 1");

  std::vector<Node> nodes;
  std::map<std::string, int> indexOf;
  std::vector<std::pair<std::string, std::string>> edgeNames;
  std::vector<int> edgeLines;
  int lineNumber = 0;
  const std::string_view marker = " -- forward_compute_time=";
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size()
                                                         : newline + 1);
    ++lineNumber;
    std::string_view body = trim(line);
    if (body.empty())
      continue;
    size_t attributes = body.find(marker);
    if (attributes == std::string_view::npos) {
      // An edge: "nodeA -- nodeB".
      size_t dash = body.find(" -- ");
      if (dash == std::string_view::npos)
        return fail(lineNumber, "expected a node or an edge 'a -- b'");
      std::string from(trim(body.substr(0, dash)));
      std::string to(trim(body.substr(dash + 4)));
      if (from.empty() || to.empty() || to.find(' ') != std::string::npos)
        return fail(lineNumber, "expected an edge 'a -- b'");
      edgeNames.emplace_back(from, to);
      edgeLines.push_back(lineNumber);
      continue;
    }
    size_t dash = body.find(" -- ");
    Node node;
    node.id = std::string(trim(body.substr(0, dash)));
    node.layer.name =
        dash < attributes
            ? std::string(trim(body.substr(dash + 4, attributes - dash - 4)))
            : node.id;
    if (node.id.empty())
      return fail(lineNumber, "node without an id");
    if (indexOf.count(node.id))
      return fail(lineNumber, "duplicate node '" + node.id + "'");
    std::string_view rest = body.substr(attributes + 4);
    bool seen[4] = {false, false, false, false};
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view item = trim(rest.substr(0, comma));
      rest.remove_prefix(comma == std::string_view::npos ? rest.size()
                                                         : comma + 1);
      if (item.empty())
        continue;
      size_t equals = item.find('=');
      if (equals == std::string_view::npos)
        return fail(lineNumber,
                    "expected key=value, got '" + std::string(item) + "'");
      std::string_view key = trim(item.substr(0, equals));
      std::string_view value = item.substr(equals + 1);
      double number = 0;
      bool ok;
      int slot;
      if (key == "forward_compute_time") {
        ok = parseNumber(value, number);
        node.layer.forwardSeconds = number * 1e-3;
        slot = 0;
      } else if (key == "backward_compute_time") {
        ok = parseNumber(value, number);
        node.layer.backwardSeconds = number * 1e-3;
        slot = 1;
      } else if (key == "activation_size") {
        ok = parseSize(value, number);
        node.layer.outputBytes = number;
        slot = 2;
      } else if (key == "parameter_size") {
        ok = parseNumber(value, number);
        node.layer.parameterBytes = number;
        slot = 3;
      } else {
        continue; // Unknown attributes are ignored.
      }
      if (!ok || number < 0)
        return fail(lineNumber, "invalid value for " + std::string(key));
      seen[slot] = true;
    }
    for (int slot = 0; slot < 4; ++slot)
      if (!seen[slot])
        return fail(lineNumber, std::string("missing ") +
                                    (slot == 0   ? "forward_compute_time"
                                     : slot == 1 ? "backward_compute_time"
                                     : slot == 2 ? "activation_size"
                                                 : "parameter_size"));
    indexOf[node.id] = static_cast<int>(nodes.size());
    nodes.push_back(std::move(node));
  }
  if (nodes.empty())
    return fail(0, "the profile has no nodes");

  int n = static_cast<int>(nodes.size());
  std::vector<std::vector<int>> successors(n);
  std::vector<int> indegree(n, 0);
  for (size_t e = 0; e < edgeNames.size(); ++e) {
    auto from = indexOf.find(edgeNames[e].first);
    auto to = indexOf.find(edgeNames[e].second);
    if (from == indexOf.end() || to == indexOf.end())
      return fail(edgeLines[e],
                  "edge to an undefined node '" +
                      (from == indexOf.end() ? edgeNames[e].first
                                             : edgeNames[e].second) +
                      "'");
    successors[from->second].push_back(to->second);
    ++indegree[to->second];
  }

  // Kahn's algorithm, preferring file order among the ready nodes.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int v = 0; v < n; ++v)
    if (indegree[v] == 0)
      ready.push(v);
  std::vector<int> order, position(n, -1);
  while (!ready.empty()) {
    int v = ready.top();
    ready.pop();
    position[v] = static_cast<int>(order.size());
    order.push_back(v);
    for (int w : successors[v])
      if (--indegree[w] == 0)
        ready.push(w);
  }
  if (static_cast<int>(order.size()) != n)
    return fail(0, "the profile graph has a cycle");

  ModelProfile profile;
  profile.profileBatch = profileBatch;
  for (int v : order)
    profile.layers.push_back(nodes[v].layer);
  // A node's output crosses the cuts between its position and its last
  // consumer's.
  std::vector<double> delta(n + 1, 0);
  for (int v = 0; v < n; ++v) {
    int last = position[v];
    for (int w : successors[v])
      last = std::max(last, position[w]);
    if (last > position[v]) {
      delta[position[v]] += nodes[v].layer.outputBytes;
      delta[last] -= nodes[v].layer.outputBytes;
    }
  }
  double running = 0;
  for (int i = 0; i + 1 < n; ++i) {
    running += delta[i];
    profile.cutBytes.push_back(std::max(0.0, running));
  }
  return profile;
}

int profileBatchFromFileName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view name =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t at = name.rfind("-pbs-");
  if (at == std::string_view::npos)
    return 0;
  int value = 0;
  for (size_t i = at + 5;
       i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]));
       ++i)
    value = value * 10 + (name[i] - '0');
  return value;
}

std::optional<ModelProfile> loadPipeDreamProfile(const std::string &path,
                                                 int profileBatch,
                                                 std::string *error) {
  std::ifstream in(path);
  if (!in) {
    if (error)
      *error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  if (profileBatch == 0)
    profileBatch = profileBatchFromFileName(path);
  if (profileBatch < 1) {
    if (error)
      *error = "'" + path +
               "': give the profile batch size (the file name has no "
               "'-pbs-N')";
    return std::nullopt;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string message;
  std::optional<ModelProfile> profile =
      parsePipeDreamProfile(buffer.str(), profileBatch, &message);
  if (!profile) {
    if (error)
      *error = path + ": " + message;
    return std::nullopt;
  }
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.rfind('.');
  profile->name = dot == std::string::npos ? name : name.substr(0, dot);
  return profile;
}

} // namespace pipewave::planner

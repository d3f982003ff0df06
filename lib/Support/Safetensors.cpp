//===- Safetensors.cpp - The one safetensors header encoder ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Support/Safetensors.h"

#include "pipewave/Support/Json.h"

namespace pipewave::safetensors {

std::string encodeHeader(const std::vector<TensorInfo> &tensors,
                         const std::map<std::string, std::string> &metadata) {
  std::string json = "{";
  bool first = true;
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    bool firstKey = true;
    for (const auto &[key, value] : metadata) {
      json += (firstKey ? "" : ",") + json::jsonQuote(key) + ":" +
              json::jsonQuote(value);
      firstKey = false;
    }
    json += "}";
    first = false;
  }
  uint64_t offset = 0;
  for (const TensorInfo &tensor : tensors) {
    json += (first ? "" : ",") + json::jsonQuote(tensor.name) +
            ":{\"dtype\":\"" + tensor.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < tensor.shape.size(); ++i)
      json += (i ? "," : "") + std::to_string(tensor.shape[i]);
    json += "],\"data_offsets\":[" + std::to_string(offset) + "," +
            std::to_string(offset + tensor.bytes) + "]}";
    offset += tensor.bytes;
    first = false;
  }
  json += "}";
  // Pad with spaces so the data starts 8-byte aligned.
  while (json.size() % 8)
    json += ' ';
  std::string out(8, '\0');
  uint64_t length = json.size();
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  return out + json;
}

} // namespace pipewave::safetensors

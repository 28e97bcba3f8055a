#include "onnx/place.h"

#include "base/utf8.h"

namespace rung::onnx_import {

std::string quoted(std::string_view name) {
  constexpr std::size_t kShown = 120;
  std::string s = utf8::scrub(name.substr(0, kShown));
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) out += '?';  // control bytes would garble a terminal
    else out += c;
  }
  out += '"';
  if (name.size() > kShown) out += "...";
  return out;
}

std::string node_place(std::size_t index, std::string_view name, std::string_view op_type, std::int64_t opset) {
  return "graph.node[" + std::to_string(index) + "] " + quoted(name) + " (" + utf8::scrub(op_type.substr(0, 64)) +
         ", opset " + std::to_string(opset) + ")";
}

}  // namespace rung::onnx_import

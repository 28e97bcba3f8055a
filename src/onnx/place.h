// Names from a model file quoted in diagnostics: scrubbed to UTF-8 and cut to a readable
// length, so a hostile name can neither break JSON output nor flood it.
#pragma once

#include <string>
#include <string_view>

namespace rung::onnx_import {

std::string quoted(std::string_view name);  // "name", scrubbed, at most 120 bytes shown
// `graph.node[37] "name" (Op, opset 17)`
std::string node_place(std::size_t index, std::string_view name, std::string_view op_type, std::int64_t opset);

}  // namespace rung::onnx_import

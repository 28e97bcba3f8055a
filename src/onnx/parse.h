// Model bytes to a ModelProto under limits: a total-bytes limit, protobuf's recursion limit,
// and the whole input consumed (I0001 not parseable, I0002 a limit).
#pragma once

#include <optional>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "base/diagnostic.h"
#include "onnx/onnx_import.h"

namespace rung::onnx_import {

std::optional<::onnx::ModelProto> parse_model(std::string_view bytes, const Limits& limits, DiagnosticSink& diags);

}  // namespace rung::onnx_import

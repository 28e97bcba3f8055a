// rung's own checks of a parsed model, before the ONNX checker sees it and before anything is
// allocated for it: the IR version and opset imports (I0003), counts and lengths (I0002),
// the value kinds, element types and dims of the graph's inputs and outputs (I0007, I0006),
// and the names: every input defined before use, every name defined once (I0013).
#pragma once

#include <optional>

#include <onnx/onnx_pb.h>

#include "base/diagnostic.h"
#include "onnx/onnx_import.h"

namespace rung::onnx_import {

// The model's ai.onnx opset (0 when it imports none), or nullopt after reporting.
std::optional<std::int64_t> check_structure(const ::onnx::ModelProto& m, const Limits& limits, DiagnosticSink& diags);

}  // namespace rung::onnx_import

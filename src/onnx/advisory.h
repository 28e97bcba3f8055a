// libonnx's checker and shape inference, caught at the importer's edge. Advice, never the
// safety net: they run after rung's own checks (structure.h, tensor_data.h) and see only what
// those accepted. The checker's finding is I0010; what shape inference infers only
// cross-checks rung's shape rules afterwards (a disagreement is I0011, in import.cpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "base/diagnostic.h"

namespace rung::onnx_import {

bool run_checker(const ::onnx::ModelProto& m, DiagnosticSink& diags);

// What shape inference says of each value it typed: the element type and, per dim, the
// extent where it states one.
struct InferredType {
  std::int32_t elem_type = 0;
  std::vector<std::optional<std::int64_t>> dims;
};
std::map<std::string, InferredType> infer_shapes(const ::onnx::ModelProto& m, DiagnosticSink& diags);

}  // namespace rung::onnx_import

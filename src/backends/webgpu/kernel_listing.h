// The generated WGSL as text, for `rung show --rung kernel --backend webgpu`: of one op for
// given operand types (default attributes), or of every op node of a program's graph whose
// operand types are static. Generation uses the W3C default limits (no device needed), so
// the text is what a default device would run.
#pragma once

#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"

namespace rung::webgpu {

// C0018: a --type that does not parse. False when nothing could be generated.
bool op_kernel_text(const std::string& op, const std::vector<std::string>& types, std::string& out, DiagnosticSink& diags);
bool graph_kernel_text(const Graph& g, std::string& out, DiagnosticSink& diags);

}  // namespace rung::webgpu

// Numeric CSV files as tensors: one row per line, comma-separated numbers, no header (a
// first line that is not numeric is skipped as a header). Untrusted input: every field is
// parsed strictly; ragged rows and non-numbers are diagnostics (V0001..V0003) with line
// and column, never a crash.
#pragma once

#include <optional>
#include <string>

#include "base/diagnostic.h"
#include "ops/host_tensor.h"

namespace rung::csv {

// Reads a 2-D tensor of `dtype` (a float or integer dtype), rows x columns.
std::optional<ops::HostTensor> parse(SourceId source, const SourceMap& sources, DType dtype, DiagnosticSink& diags);
std::optional<ops::HostTensor> load(const std::string& path, SourceMap& sources, DType dtype, DiagnosticSink& diags);

}  // namespace rung::csv

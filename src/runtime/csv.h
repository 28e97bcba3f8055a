// Numeric CSV files as tensors: one row per line, comma-separated numbers. Untrusted input:
// every field is parsed strictly and every problem is a diagnostic with line and column,
// never a crash and never a dropped row:
//   V0001 a field that is not a number (or not an integer / out of range of the dtype)
//   V0002 a ragged row                   V0003 a dtype CSV cannot fill
//   V0004 a header that cannot be told from data: a names-only first row with no data row
//         after it (detection), or a declared header row missing
// Numbers: [+-] digits [. digits] or [+-] . digits, an optional exponent, inf, infinity, nan
// (any case). A UTF-8 byte order mark is skipped. Spaces and tabs around fields are ignored;
// blank lines are skipped.
//
// The first row is a header when declared (`read_csv(path, header: true)`), never when
// declared absent (`header: false`), and otherwise only when EVERY field of it is a name
// (a quoted field, or one that starts with a letter, `_` or a non-ASCII character and is
// not a number) and a data row follows. A first row that mixes names and numbers is data,
// so its non-numbers are V0001 errors: it is never dropped.
#pragma once

#include <optional>
#include <string>

#include "base/diagnostic.h"
#include "ops/host_tensor.h"

namespace rung::csv {

enum class Header { detect, present, absent };
// A BlockIR read's kind ("csv", "csv.header", "csv.noheader": `read_csv(..., header: ...)`).
Header header_of(std::string_view read_kind);

// Reads a 2-D tensor of `dtype` (a float or integer dtype), rows x columns.
std::optional<ops::HostTensor> parse(SourceId source, const SourceMap& sources, DType dtype, Header header, DiagnosticSink& diags);
std::optional<ops::HostTensor> load(const std::string& path, SourceMap& sources, DType dtype, Header header, DiagnosticSink& diags);

}  // namespace rung::csv

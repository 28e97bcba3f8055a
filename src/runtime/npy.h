// NumPy .npy files (format versions 1.0, 2.0 and 3.0), so users exchange tensors with
// Python. Reading treats the file as untrusted: header length, shape and data size are all
// checked, and every problem is a diagnostic (codes Y0001..Y0009) with a byte offset.
//
// dtypes: <f4 <f8 <f2 <i8 <i4 <i2 |i1 <u8 <u4 <u2 |u1 |b1 (and their big-endian forms on
// reading, which are byte-swapped). bf16 has no NumPy dtype: rung writes it as '<u2'
// holding the raw bits only when asked to (`bf16_as_u16`), and refuses it otherwise.
// Fortran-order arrays are refused (Y0005) rather than silently transposed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ops/host_tensor.h"

namespace rung::npy {

std::optional<ops::HostTensor> parse(std::string_view bytes, SourceId source, DiagnosticSink& diags);
std::optional<ops::HostTensor> load(const std::string& path, SourceMap& sources, DiagnosticSink& diags);

// Returns nullopt (with a diagnostic) for dtypes NumPy cannot represent (q8_0, q4_0, and
// bf16 unless bf16_as_u16).
std::optional<std::vector<std::uint8_t>> serialize(const ops::HostTensor& t, DiagnosticSink& diags,
                                                   bool bf16_as_u16 = false);
bool save(const std::string& path, const ops::HostTensor& t, DiagnosticSink& diags, bool bf16_as_u16 = false);

}  // namespace rung::npy

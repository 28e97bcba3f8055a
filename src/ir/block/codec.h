// The canonical binary encoding of BlockIR: the bytes the BlockIR hash is taken over and the
// payload of the .keg `blockir` section (docs/keg-format.md, section 8). One encoding for
// both, so a program read from a .keg re-encodes to the bytes it was read from and hashes
// to the hash its writer printed.
//
// Version 1 is the encoding hashed under the domain "rung/blockir/program\0"; a future
// version gets its own domain, so two encodings can never give one hash.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "base/canonical.h"
#include "base/diagnostic.h"
#include "ir/block/block.h"

namespace rung::block {

inline constexpr std::uint32_t kEncodingVersion = 1;
// Statements nest at most this deep in an encoded program (loops and ifs inside each other).
// The reader refuses deeper input before anything recurses on it; the writer refuses to
// write what the reader would refuse.
inline constexpr std::uint32_t kMaxNesting = 1024;

// Module, determinism, functions sorted by name (statements in order, slot types) and the
// hashes of the regions compute statements name. Not the spans.
void encode_program(const Program& p, CanonicalWriter& w);

// How deep the program's statements nest (a function body's statements are at depth 1).
std::uint32_t nesting_depth(const Program& p);

// Decodes an encoding-1 payload found at `file_offset` of `source` (untrusted bytes). Every
// count is bounded by the bytes left, every string checked as UTF-8, every code known,
// nesting bounded, and the bytes must be exactly the canonical encoding of what they decode
// to (sorted names, 0/1 flags, ...). Problems are K0022 with the byte offset. Each statement's
// span is its record in the file. The result's graph is empty: the caller supplies it.
std::optional<Program> decode_program(std::span<const std::uint8_t> payload, std::uint64_t file_offset, SourceId source,
                                      DiagnosticSink& diags);

}  // namespace rung::block

// A whole program in a .keg file: the GraphIR in the six graph sections, the BlockIR in the
// `blockir` section (kind 8), so every exported entry (loops, conditionals, prints, reads)
// runs from the file. The section (docs/keg-format.md, section 8):
//
//   u32  encoding version   1 (codec.h)
//   hash BlockIR hash       SHA3-256("rung/blockir/program\0" || encoding)
//   the encoding            codec.h, exactly the bytes hashed
//
// Reading is as strict as the graph sections: the encoding is decoded without trusting a
// count or recursing on file depth (K0022), the stored hash must be the content's (K0023),
// and the BlockIR verifier (B codes) runs against the file's graph, so every region a
// compute statement names exists with the types it is used at. Diagnostics point at the
// bytes of the statement concerned.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "ir/graph/keg.h"

namespace rung::block {

// The .keg bytes of `p` (p.graph and its BlockIR) plus `extra` sections (the exec plan).
// Refuses (K0024) a program the reader would refuse: statements nested deeper than
// kMaxNesting; and one that does not verify (its B diagnostics).
std::optional<std::vector<std::uint8_t>> write_program_keg(const Program& p, std::span<const KegAttachment> extra,
                                                           DiagnosticSink& diags);

// The file's blockir section, if it has one.
const KegAttachment* blockir_section(const KegFile& f);

// Decodes and checks the file's blockir section (which must exist) against `graph`, the
// file's validated graph, which the program then holds.
std::optional<Program> read_blockir(const KegFile& f, Graph graph, DiagnosticSink& diags);

// The BlockIR hash the section claims, without decoding it (nullopt: the frame is too short).
std::optional<Hash256> stored_blockir_hash(const KegAttachment& section);

}  // namespace rung::block

// Reading and writing .keg files: the serialised, content-addressed GraphIR.
//
// The writer is deterministic: the same graph (by fingerprint, plus the same set of stored
// nodes) gives the same bytes, whatever order it was built in. The reader treats its input
// as hostile: every offset, length, count and index is checked before use, nothing recurses
// on file-controlled depth, and every problem becomes a K-coded diagnostic with the byte
// offset where it was found. A file that reads cleanly is then validated (validator.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"

namespace rung {

// A section beyond the graph's six, carried as opaque bytes: the exec plan (kind 7), which
// the keg layer frames and checks (docs/keg-format.md), and the BlockIR (kind 8), whose
// whole content belongs to src/ir/block. The layer that made the payload decodes it.
struct KegAttachment {
  std::uint32_t kind = 0;
  std::vector<std::uint8_t> payload;
  std::uint64_t payload_offset = 0;  // reading: where the payload starts in the file
};

// `attachments`: sections to add (at most one per kind, kinds 7, 8 and 9). Without them the
// bytes are those of format 1.0; with an exec plan 1.1, with BlockIR 1.2.
std::vector<std::uint8_t> write_keg(const Graph& g, std::span<const KegAttachment> attachments = {});

struct KegSection {
  std::uint32_t kind = 0;
  std::uint32_t flags = 0;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  Hash256 checksum;
};

struct KegFile {
  std::uint16_t major = 0, minor = 0;
  Hash256 stored_fingerprint;
  std::vector<KegSection> sections;
  Graph graph;
  std::vector<Span> node_spans;    // byte span of each node record, for diagnostics
  std::vector<Span> region_spans;
  SourceId source = kNoSource;             // the file, for diagnostics pointing into it
  std::vector<KegAttachment> attachments;  // the sections beyond the graph's that this layer knows, in file order
  const KegAttachment* attachment(std::uint32_t kind) const {
    for (const auto& a : attachments)
      if (a.kind == kind) return &a;
    return nullptr;
  }
};

// Parses the container and rebuilds the graph with the hashes the file claims. Returns
// nullopt (with diagnostics) if the bytes are not a well-formed .keg file.
std::optional<KegFile> read_keg(std::span<const std::uint8_t> bytes, SourceId source, DiagnosticSink& diags);

// read_keg, then validate(), then compare the recomputed fingerprint with the header's.
// Returns nullopt on any error. `sources` gets the file so diagnostics can point into it.
std::optional<KegFile> load_keg(const std::string& path, SourceMap& sources, DiagnosticSink& diags,
                                const class OpSignatures* signatures = nullptr);
// The same for bytes in memory, named `name` in diagnostics.
std::optional<KegFile> load_keg_bytes(std::string name, std::string bytes, SourceMap& sources, DiagnosticSink& diags,
                                      const class OpSignatures* signatures = nullptr);

}  // namespace rung

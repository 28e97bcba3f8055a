#include "ir/block/keg_program.h"

#include <algorithm>

#include "base/canonical.h"
#include "ir/block/codec.h"
#include "ir/block/verify.h"
#include "ir/graph/keg_format.h"

namespace rung::block {
namespace {
constexpr std::size_t kFrameSize = 4 + 32;  // encoding version, BlockIR hash
}

std::optional<std::vector<std::uint8_t>> write_program_keg(const Program& p, std::span<const KegAttachment> extra,
                                                           DiagnosticSink& diags) {
  if (std::uint32_t depth = nesting_depth(p); depth > kMaxNesting) {
    diags.error("K0024", "`" + p.module + "` nests statements " + std::to_string(depth) + " levels deep; a .keg file holds at most " +
                             std::to_string(kMaxNesting))
        .note("flatten the deepest loops or conditionals (an `else if` chain nests one level per branch)");
    return std::nullopt;
  }
  if (!verify(p, diags)) return std::nullopt;
  CanonicalWriter w;
  w.u32(kEncodingVersion);
  w.hash(p.hash());
  encode_program(p, w);
  std::vector<KegAttachment> sections(extra.begin(), extra.end());
  sections.push_back({static_cast<std::uint32_t>(keg::SectionKind::blockir), w.take(), 0});
  return write_keg(p.graph, sections);
}

const KegAttachment* blockir_section(const KegFile& f) { return f.attachment(static_cast<std::uint32_t>(keg::SectionKind::blockir)); }

std::optional<Hash256> stored_blockir_hash(const KegAttachment& section) {
  if (section.payload.size() < kFrameSize) return std::nullopt;
  Hash256 h;
  std::copy(section.payload.begin() + 4, section.payload.begin() + kFrameSize, h.bytes.begin());
  return h;
}

std::optional<Program> read_blockir(const KegFile& f, Graph graph, DiagnosticSink& diags) {
  const KegAttachment& s = *blockir_section(f);
  auto at = [&](std::uint64_t off, std::uint64_t len) {
    return Span{f.source, static_cast<std::uint32_t>(s.payload_offset + off), static_cast<std::uint32_t>(s.payload_offset + off + len)};
  };
  ByteReader r(s.payload, s.payload_offset);
  std::uint32_t version = 0;
  Hash256 stored;
  if (!r.u32(version) || !r.hash(stored)) {
    diags.error("K0022", "section 'blockir' is " + std::to_string(s.payload.size()) + " bytes long, shorter than its " +
                             std::to_string(kFrameSize) + "-byte frame (encoding version, BlockIR hash)")
        .primary(at(0, s.payload.size()));
    return std::nullopt;
  }
  if (version != kEncodingVersion) {
    diags.error("K0022", "section 'blockir' has encoding version " + std::to_string(version) + "; this rung reads version " +
                             std::to_string(kEncodingVersion))
        .primary(at(0, 4));
    return std::nullopt;
  }
  auto p = decode_program(std::span(s.payload).subspan(kFrameSize), s.payload_offset + kFrameSize, f.source, diags);
  if (!p) return std::nullopt;
  if (Hash256 h = p->hash(); h != stored) {
    diags.error("K0023", "section 'blockir' claims a BlockIR hash its content does not have")
        .primary(at(4, 32))
        .note("stored:     " + stored.hex())
        .note("recomputed: " + h.hex());
    return std::nullopt;
  }
  p->graph = std::move(graph);
  if (!verify(*p, diags)) return std::nullopt;
  return p;
}

}  // namespace rung::block

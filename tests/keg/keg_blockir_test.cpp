// The blockir section: a program with control flow survives the .keg round trip with its
// hashes, old files without the section still load, and a damaged section is a coded
// diagnostic pointing into it, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ir/block/codec.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ir/block/samples.h"
#include "ir/graph/samples.h"
#include "ir/graph/validator.h"
#include "keg/keg_surgery.h"

namespace rung {
namespace {

using keg_surgery::Bytes;
using K = keg::SectionKind;

// What `rung run FILE.keg` reads: container, graph, then the BlockIR against the graph.
std::optional<block::Program> load(const Bytes& b, DiagnosticSink& d) {
  auto f = read_keg(b, 0, d);
  if (!f || !validate(f->graph, d)) return std::nullopt;
  if (f->graph.fingerprint() != f->stored_fingerprint) return std::nullopt;
  if (!block::blockir_section(*f)) return std::nullopt;
  return block::read_blockir(*f, f->graph, d);
}

Bytes write(const block::Program& p) {
  DiagnosticSink d;
  auto b = block::write_program_keg(p, {}, d);
  EXPECT_TRUE(b) << (d.empty() ? "" : d.all().front().message);
  return b ? *b : Bytes{};
}

}  // namespace

TEST(KegBlockIR, ProgramRoundTripsWithItsHashes) {
  block::Program p = block::sample_loop_program();
  EXPECT_TRUE(p.graph.exports().empty());  // the entry lives only in BlockIR
  Bytes b = write(p);
  EXPECT_EQ(keg_surgery::get_le(b, 6, 2), 2u);  // format 1.2
  auto entry = keg_surgery::find_entry(b, K::blockir);
  ASSERT_TRUE(entry);
  EXPECT_EQ(keg_surgery::get_le(b, *entry + 4, 4), 0u);  // not optional: an old reader refuses (K0013)
  DiagnosticSink d;
  auto q = load(b, d);
  ASSERT_TRUE(q) << d.all().front().message;
  EXPECT_EQ(q->hash(), p.hash());
  EXPECT_EQ(block::program_fingerprint(*q), block::program_fingerprint(p));
  ASSERT_TRUE(q->find("main"));
  EXPECT_TRUE(q->find("main")->exported);
  EXPECT_EQ(q->functions[0].body[2].kind, block::StmtKind::for_range);
  // Statements point at their own bytes in the file (for run-time diagnostics).
  const Span& span = q->functions[0].body[0].span;
  std::uint64_t section = keg_surgery::section_offset(b, K::blockir);
  EXPECT_GT(span.begin, section);
  EXPECT_LT(span.end, section + keg_surgery::section_length(b, K::blockir));
  // Rewriting what was read gives the same bytes: one program, one file.
  EXPECT_EQ(write(*q), b);
}

TEST(KegBlockIR, TheProgramFingerprintCoversTheBlockIR) {
  block::Program a = block::sample_loop_program(), b = a;
  b.functions[0].body[3].items[0].text = "y =";  // the same graph, another print
  EXPECT_EQ(a.graph.fingerprint(), b.graph.fingerprint());
  EXPECT_NE(block::program_fingerprint(a), block::program_fingerprint(b));
  block::Program c = a;  // the same statements, the loop runs twice per step
  c.functions[0].body[2].body.push_back(c.functions[0].body[2].body[0]);
  EXPECT_NE(block::program_fingerprint(a), block::program_fingerprint(c));
  EXPECT_EQ(block::program_fingerprint(a), block::program_fingerprint(block::sample_loop_program()));
  // Domain-separated from both inputs.
  EXPECT_NE(block::program_fingerprint(a), a.hash());
  EXPECT_NE(block::program_fingerprint(a), a.graph.fingerprint());
}

TEST(KegBlockIR, FilesWithoutTheSectionStillLoad) {
  Bytes b = write_keg(sample_mlp());
  DiagnosticSink d;
  auto f = read_keg(b, 0, d);
  ASSERT_TRUE(f);
  EXPECT_FALSE(block::blockir_section(*f));
  EXPECT_EQ(keg_surgery::get_le(b, 6, 2), 0u);
}

TEST(KegBlockIR, DamageIsACodedDiagnosticInsideTheSection) {
  const Bytes good = write(block::sample_loop_program());
  std::uint64_t begin = keg_surgery::section_offset(good, K::blockir);
  std::uint64_t end = begin + keg_surgery::section_length(good, K::blockir);
  {  // a cut section
    Bytes b = good;
    keg_surgery::put_le(b, *keg_surgery::find_entry(b, K::blockir) + 16, end - begin - 5, 8);
    keg_surgery::repair_checksums(b);
    DiagnosticSink d;
    EXPECT_FALSE(load(b, d));
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d.all().front().code, "K0022");
    auto at = d.all().front().primary_label()->span.begin;
    EXPECT_GE(at, begin);
    EXPECT_LE(at, end);
  }
  {  // a changed print text: decodes, but the stored hash is not the content's
    Bytes b = good;
    auto pos = std::search(b.begin() + static_cast<long>(begin), b.end(), std::begin("x ="), std::end("x =") - 1);
    ASSERT_NE(pos, b.end());
    *pos = 'y';
    keg_surgery::repair_checksums(b);
    DiagnosticSink d;
    EXPECT_FALSE(load(b, d));
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d.all().front().code, "K0023");
    EXPECT_EQ(d.all().front().primary_label()->span.begin, begin + 4);
  }
}

// `if c { if c { ... } }` nested `levels` deep in front of main's body.
block::Program nested(std::uint32_t levels) {
  block::Program p = block::sample_loop_program();
  auto& f = p.functions[0];
  f.slots.push_back({"c", tensor(DType::boolean, {}), false});
  block::Stmt s{.kind = block::StmtKind::if_else, .args = {static_cast<block::SlotId>(f.slots.size() - 1)}};
  for (std::uint32_t i = 1; i < levels; ++i) {
    block::Stmt outer{.kind = block::StmtKind::if_else, .args = s.args};
    outer.body.push_back(std::move(s));
    s = std::move(outer);
  }
  f.body.insert(f.body.begin(), std::move(s));
  return p;
}

TEST(KegBlockIR, NestingUpToTheLimitRoundTripsAndDeeperIsRefusedWhenWriting) {
  block::Program deepest = nested(block::kMaxNesting);
  EXPECT_EQ(block::nesting_depth(deepest), block::kMaxNesting);
  DiagnosticSink d;
  auto q = load(write(deepest), d);
  ASSERT_TRUE(q) << d.all().front().message;
  EXPECT_EQ(q->hash(), deepest.hash());
  DiagnosticSink w;
  EXPECT_FALSE(block::write_program_keg(nested(block::kMaxNesting + 1), {}, w));
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w.all().front().code, "K0024");
}

// Mutations of the section with checksums repaired: each is read cleanly or refused with a
// K or B diagnostic; nothing crashes (the sanitizer builds and the fuzzer go further).
TEST(KegBlockIR, MutatedSectionsNeverCrash) {
  const Bytes good = write(block::sample_loop_program());
  std::uint64_t begin = keg_surgery::section_offset(good, K::blockir);
  std::uint64_t len = keg_surgery::section_length(good, K::blockir);
  std::mt19937 rng(17);
  int refused = 0;
  for (int i = 0; i < 3000; ++i) {
    Bytes b = good;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      std::size_t at = begin + rng() % len;
      switch (rng() % 3) {
        case 0: b[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
        case 1: b[at] = static_cast<std::uint8_t>(rng()); break;
        default: b[at] = 0xFF; break;
      }
    }
    // Keep the stored hash honest half of the time, so edits reach the verifier too.
    if (i % 2) {
      DiagnosticSink scratch;
      auto f = read_keg(b, 0, scratch);
      if (f) {
        const KegAttachment& sec = *block::blockir_section(*f);
        auto p = block::decode_program(std::span(sec.payload).subspan(36), 0, 0, scratch);
        if (p) {
          Hash256 h = p->hash();
          std::copy(h.bytes.begin(), h.bytes.end(), b.begin() + static_cast<long>(begin + 4));
        }
      }
    }
    keg_surgery::repair_checksums(b);
    DiagnosticSink d;
    if (!load(b, d)) {
      ASSERT_FALSE(d.empty()) << "refused without a diagnostic, mutation " << i;
      char c = d.all().front().code[0];
      EXPECT_TRUE(c == 'K' || c == 'B') << d.all().front().code;
      ++refused;
    }
  }
  EXPECT_GT(refused, 1000);
}

}  // namespace rung

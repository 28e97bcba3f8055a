#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "ir/block/keg_program.h"
#include "ir/graph/builder.h"
#include "ir/graph/keg.h"
#include "ir/graph/samples.h"
#include "ir/graph/validator.h"
#include "keg/keg_surgery.h"

namespace rung {
namespace {

using keg_surgery::Bytes;

std::optional<KegFile> parse(const Bytes& b, DiagnosticSink& d) {
  auto f = read_keg(b, 0, d);
  if (!f) return f;
  if (!validate(f->graph, d)) return std::nullopt;
  return f;
}

Graph graph_in_order(bool reversed) {
  Graph g;
  GraphBuilder b(g);
  auto t = tensor(DType::f32, {Dim::symbol("N")});
  auto x = b.param("x", 0, t);
  ValueRef e, s;
  if (reversed) {
    s = b.op("sin", {x}, t);
    e = b.op("exp", {x}, t);
  } else {
    e = b.op("exp", {x}, t);
    s = b.op("sin", {x}, t);
  }
  b.export_region("f", {x}, {b.op("add", {e, s}, t, {{"alpha", 1.0}, {"tag", "z"}})});
  return g;
}

}  // namespace

TEST(Keg, StartsWithMagic) {
  Bytes b = write_keg(sample_mlp());
  ASSERT_GE(b.size(), 4u);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), std::string("KEG\0", 4));
}

TEST(Keg, RoundTripKeepsFingerprintAndEveryNode) {
  Graph g = sample_mlp();
  Bytes b = write_keg(g);
  DiagnosticSink d;
  auto f = parse(b, d);
  ASSERT_TRUE(f) << d.all().front().message;
  EXPECT_EQ(f->graph.fingerprint(), g.fingerprint());
  EXPECT_EQ(f->stored_fingerprint, g.fingerprint());
  EXPECT_EQ(f->graph.node_count(), g.node_count());
  EXPECT_EQ(f->graph.region_count(), g.region_count());
  for (const auto& n : g.nodes()) {
    auto id = f->graph.find_node(n.hash);
    ASSERT_TRUE(id);
    EXPECT_EQ(f->graph.node(*id).opcode, n.opcode);
    EXPECT_EQ(f->graph.node(*id).attrs, n.attrs);
  }
  // Writing what was read gives the same bytes.
  EXPECT_EQ(write_keg(f->graph), b);
}

TEST(Keg, AllAttributeKindsRoundTrip) {
  Graph g;
  GraphBuilder b(g);
  auto t = tensor(DType::bf16, {Dim::symbol("B"), Dim::fixed(3)}, MemSpace::unified);
  auto x = b.param("x", 0, t);
  AttrMap attrs{{"b", true},
                {"i", std::int64_t{-7}},
                {"r", -0.0},
                {"s", "Grüße"},
                {"is", std::vector<std::int64_t>{1, -2, 3}},
                {"rs", std::vector<double>{0.5, 1e300}},
                {"d", DType::q4_0},
                {"h", sha3_256("x")},
                {"y", Bytes{0, 1, 2, 255}},
                {"sh", Shape{Dim::symbol("T"), Dim::fixed(9)}}};
  b.export_region("f", {x}, {b.op("mystery", {x}, t, attrs)});
  DiagnosticSink d;
  auto f = parse(write_keg(g), d);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->graph.fingerprint(), g.fingerprint());
  EXPECT_EQ(f->graph.node(*f->graph.find_node(g.node(1).hash)).attrs, attrs);
}

TEST(Keg, BytesDoNotDependOnInsertionOrder) {
  Graph a = graph_in_order(false), b = graph_in_order(true);
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  EXPECT_EQ(write_keg(a), write_keg(b));
}

// The exec plan section: optional (flagged so), bound to the graph's fingerprint, its payload
// carried byte for byte; files without it keep the 1.0 bytes.
TEST(Keg, ExecPlanSectionRoundTrips) {
  Graph g = sample_mlp();
  const Bytes plain = write_keg(g);
  std::vector<KegAttachment> plan{{static_cast<std::uint32_t>(keg::SectionKind::exec_plan), Bytes{9, 8, 7, 0, 255}, 0}};
  Bytes b = write_keg(g, plan);
  EXPECT_EQ(keg_surgery::get_le(plain, 6, 2), 0u);  // minor version
  EXPECT_EQ(keg_surgery::get_le(b, 6, 2), 1u);
  auto entry = keg_surgery::find_entry(b, keg::SectionKind::exec_plan);
  ASSERT_TRUE(entry);
  EXPECT_EQ(keg_surgery::get_le(b, *entry + 4, 4), keg::kFlagOptional);
  DiagnosticSink d;
  auto f = parse(b, d);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->attachments.size(), 1u);
  const KegAttachment* a = f->attachment(static_cast<std::uint32_t>(keg::SectionKind::exec_plan));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->payload, plan[0].payload);
  EXPECT_EQ(a->payload_offset, keg_surgery::section_offset(b, keg::SectionKind::exec_plan) + keg::kExecPlanFrameSize);
  EXPECT_EQ(write_keg(f->graph, f->attachments), b);
  // Without the section the file still reads, with no attachment.
  auto p = parse(plain, d);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->attachments.empty());
  // A frame cut short is a truncated record with its offset.
  Bytes cut = b;
  keg_surgery::put_le(cut, *entry + 16, 10, 8);
  keg_surgery::repair_checksums(cut);
  DiagnosticSink d2;
  EXPECT_FALSE(parse(cut, d2));
  ASSERT_FALSE(d2.empty());
  EXPECT_EQ(d2.all().front().code, "K0007");
  EXPECT_EQ(d2.all().front().primary_label()->span.begin, keg_surgery::section_offset(b, keg::SectionKind::exec_plan) + 4);
}

TEST(Keg, EveryCorpusFileGivesItsNamedDiagnostic) {
  std::filesystem::path dir = std::filesystem::path(RUNG_SOURCE_DIR) / "tests/keg/corpus";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    std::ifstream in(entry.path(), std::ios::binary);
    Bytes b((std::istreambuf_iterator<char>(in)), {});
    SourceMap sources;
    DiagnosticSink d;
    auto f = load_keg(entry.path().string(), sources, d);
    // A file with a blockir section is a whole program: its BlockIR is read and verified too.
    if (f && block::blockir_section(*f) && !block::read_blockir(*f, f->graph, d)) f.reset();
    std::string expected = name.substr(0, name.find('-'));
    if (expected == "ok") {
      EXPECT_TRUE(f) << name;
    } else {
      EXPECT_FALSE(f) << name;
      ASSERT_FALSE(d.all().empty()) << name;
      EXPECT_EQ(d.all().front().code, expected) << name << ": " << d.all().front().message;
    }
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(Keg, ExampleMessageForASectionPastTheEnd) {
  Bytes b = write_keg(sample_mlp());
  keg_surgery::put_le(b, *keg_surgery::find_entry(b, keg::SectionKind::nodes) + 16, 9000, 8);
  DiagnosticSink d;
  EXPECT_FALSE(read_keg(b, 0, d));
  ASSERT_EQ(d.all().size(), 1u);
  EXPECT_EQ(d.all()[0].code, "K0003");
  EXPECT_EQ(d.all()[0].message, "section 'nodes' extends past end of file (offset 904, length 9000, file " +
                                    std::to_string(b.size()) + " bytes)");
}

TEST(Keg, ForwardReferencesAreCaughtByTheValidator) {
  Bytes b = write_keg(sample_mlp());
  // Point node 5's first input at node 11 (a later node).
  std::size_t node = keg_surgery::section_offset(b, keg::SectionKind::nodes) + 4;
  for (int i = 0; i < 5; ++i) {
    std::size_t outs = keg_surgery::get_le(b, node + 42, 4);
    std::size_t ins = keg_surgery::get_le(b, node + 46 + 4 * outs, 4);
    node += 50 + 4 * outs + 8 * ins;
  }
  std::size_t outs = keg_surgery::get_le(b, node + 42, 4);
  keg_surgery::put_le(b, node + 50 + 4 * outs, 11, 4);
  keg_surgery::repair_checksums(b);
  DiagnosticSink d;
  EXPECT_FALSE(parse(b, d));
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.all().front().code, "G0003");
}

TEST(Keg, SharedAttributesCannotExpandWithoutBound) {
  // 100 chained nodes sharing one 1 MiB attribute: the file stays small (the map is
  // stored once) but loading would copy it 100 times. The reader refuses it.
  Graph g;
  GraphBuilder b(g);
  auto t = tensor(DType::f32, {Dim::fixed(1)});
  ValueRef v = b.param("x", 0, t);
  AttrMap big{{"blob", Bytes(1 << 20, 7)}};
  for (int i = 0; i < 100; ++i) v = b.op("chain", {v}, t, big);
  b.export_region("f", {ValueRef{0, 0}}, {v});
  Bytes file = write_keg(g);
  EXPECT_LT(file.size(), 1200000u);
  DiagnosticSink d;
  EXPECT_FALSE(read_keg(file, 0, d));
  EXPECT_TRUE(d.contains("K0019"));
}

// Random damage, with and without repaired checksums (repair lets damage reach the section
// parsers). Every outcome must be either a clean load or diagnostics; never a crash.
TEST(Keg, RandomDamageNeverCrashes) {
  for (bool with_plan : {false, true}) {
  std::vector<KegAttachment> plan{{static_cast<std::uint32_t>(keg::SectionKind::exec_plan), Bytes(24, 3), 0}};
  const Bytes good = with_plan ? write_keg(sample_mlp(), plan) : write_keg(sample_mlp());
  std::mt19937_64 rng(12345);
  int rejected = 0, accepted = 0;
  for (int iter = 0; iter < 6000; ++iter) {
    Bytes b = good;
    switch (rng() % 5) {
      case 0: b[rng() % b.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
      case 1: b.resize(rng() % b.size()); break;
      case 2: for (int k = 0; k < 8; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng()); break;
      case 3: b.insert(b.begin() + static_cast<long>(rng() % b.size()), static_cast<std::uint8_t>(rng())); break;
      case 4: {
        std::size_t at = rng() % (b.size() - 4);
        keg_surgery::put_le(b, at, rng() % 3 == 0 ? 0xFFFFFFFFu : rng() % 64, 4);
        break;
      }
    }
    if (iter % 2) keg_surgery::repair_checksums(b);
    DiagnosticSink d;
    auto f = parse(b, d);
    if (f) {
      ++accepted;
      (void)f->graph.fingerprint();
    } else {
      ++rejected;
      EXPECT_TRUE(d.has_errors());
    }
  }
  EXPECT_GT(rejected, 5000);
  SUCCEED() << accepted << " accepted";
  }
}

}  // namespace rung

// Writes the malformed-.keg corpus into a folder: `keg_make_corpus tests/keg/corpus`.
// Each file is named after the first diagnostic code it must produce; keg_test checks
// that, and the fuzzer starts from these files. Re-run after a deliberate format change.
#include <cstdio>
#include <fstream>
#include <string>

#include "ir/block/codec.h"
#include "ir/block/keg_program.h"
#include "ir/block/samples.h"
#include "ir/graph/keg.h"
#include "ir/graph/samples.h"
#include "keg/keg_surgery.h"

using namespace rung;
using namespace rung::keg_surgery;
using K = keg::SectionKind;

namespace {
void save(const std::string& dir, const std::string& name, const Bytes& b) {
  std::ofstream(dir + "/" + name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: keg_make_corpus DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  const Bytes good = write_keg(sample_mlp());
  auto edit = [&](auto&& f, bool repair) {
    Bytes b = good;
    f(b);
    if (repair) repair_checksums(b);
    return b;
  };

  save(dir, "ok-sample-mlp.keg", good);
  save(dir, "K0001-empty.keg", {});
  save(dir, "K0001-bad-magic.keg", edit([](Bytes& b) { b[3] = '1'; }, false));
  save(dir, "K0001-header-truncated.keg", Bytes(good.begin(), good.begin() + 30));
  save(dir, "K0002-future-major-version.keg", edit([](Bytes& b) { put_le(b, 4, 2, 2); }, false));
  save(dir, "K0015-header-size-too-small.keg", edit([](Bytes& b) { put_le(b, 8, 8, 4); }, false));
  save(dir, "K0015-table-past-end.keg", edit([](Bytes& b) { put_le(b, 16, 1u << 30, 8); }, false));
  save(dir, "K0015-too-many-sections.keg", edit([](Bytes& b) { put_le(b, 12, 0xFFFFFFFF, 4); }, false));
  save(dir, "K0003-section-past-end.keg", edit([](Bytes& b) { put_le(b, *find_entry(b, K::nodes) + 16, 9000, 8); }, false));
  save(dir, "K0003-truncated-file.keg", Bytes(good.begin(), good.begin() + static_cast<long>(good.size() * 7 / 10)));
  save(dir, "K0004-checksum-mismatch.keg", edit([](Bytes& b) { b[section_offset(b, K::nodes) + 40] ^= 0x10; }, false));
  save(dir, "K0005-duplicate-section.keg", edit([](Bytes& b) { put_le(b, *find_entry(b, K::exports), 5, 4); }, true));
  save(dir, "K0006-missing-section.keg", edit([](Bytes& b) {
         std::size_t e = *find_entry(b, K::exports);
         put_le(b, e, 99, 4);
         put_le(b, e + 4, keg::kFlagOptional, 4);
       }, true));
  save(dir, "K0013-unknown-required-section.keg", edit([](Bytes& b) { put_le(b, *find_entry(b, K::exports), 77, 4); }, true));
  save(dir, "K0014-overlapping-sections.keg", edit([](Bytes& b) {
         put_le(b, *find_entry(b, K::regions) + 8, section_offset(b, K::nodes), 8);
       }, true));
  save(dir, "K0007-node-count-too-large.keg", edit([](Bytes& b) { put_le(b, section_offset(b, K::nodes), 0xFFFFFFFF, 4); }, true));
  save(dir, "K0007-truncated-record.keg", edit([](Bytes& b) {
         put_le(b, *find_entry(b, K::nodes) + 16, section_length(b, K::nodes) - 3, 8);
       }, true));
  // The first node's opcode string index (after 32-byte hash and u16 schema).
  save(dir, "K0008-string-index-out-of-range.keg", edit([](Bytes& b) { put_le(b, section_offset(b, K::nodes) + 4 + 34, 100000, 4); }, true));
  save(dir, "K0009-invalid-utf8.keg", edit([](Bytes& b) { b[section_offset(b, K::strings) + 8] = 0xFF; }, true));
  save(dir, "K0010-unknown-dtype.keg", edit([](Bytes& b) { b[section_offset(b, K::types) + 4] = 200; }, true));
  save(dir, "K0012-trailing-bytes.keg", edit([](Bytes& b) {
         b.insert(b.end(), {1, 2, 3});
         put_le(b, *find_entry(b, K::exports) + 16, section_length(b, K::exports) + 3, 8);
       }, true));
  save(dir, "K0017-exports-not-sorted.keg", edit([](Bytes& b) {
         std::size_t e = section_offset(b, K::exports) + 4;  // two entries of (name, region)
         std::uint64_t first = get_le(b, e, 8), second = get_le(b, e + 8, 8);
         put_le(b, e, second, 8);
         put_le(b, e + 8, first, 8);
       }, true));
  save(dir, "K0011-fingerprint-mismatch.keg", edit([](Bytes& b) { b[24] ^= 0xFF; }, false));
  // The optional exec plan section (kind 7): a frame the keg layer checks around an opaque payload.
  const std::vector<KegAttachment> plan{{static_cast<std::uint32_t>(K::exec_plan), Bytes{1, 2, 3, 4, 5, 6, 7, 8}, 0}};
  const Bytes with_plan = write_keg(sample_mlp(), plan);
  auto edit_plan = [&](auto&& f) {
    Bytes b = with_plan;
    f(b);
    repair_checksums(b);
    return b;
  };
  save(dir, "ok-sample-mlp-exec-plan.keg", with_plan);
  save(dir, "K0020-exec-plan-frame-version.keg", edit_plan([](Bytes& b) { put_le(b, section_offset(b, K::exec_plan), 9, 4); }));
  save(dir, "K0021-exec-plan-other-graph.keg", edit_plan([](Bytes& b) { b[section_offset(b, K::exec_plan) + 4 + 7] ^= 0x40; }));
  save(dir, "G0001-node-hash-mismatch.keg", edit([](Bytes& b) { b[section_offset(b, K::nodes) + 4 + 5] ^= 1; }, true));

  // The blockir section (kind 8): a program whose entry is a loop with a print.
  const block::Program loop = block::sample_loop_program();
  DiagnosticSink none;
  const Bytes with_blockir = *block::write_program_keg(loop, {}, none);
  // A blockir section as given, framed (version, hash) but not verified: for programs the
  // writer would refuse.
  auto raw_section = [](const block::Program& p, std::uint32_t version) {
    CanonicalWriter w;
    w.u32(version);
    w.hash(p.hash());
    block::encode_program(p, w);
    const std::vector<KegAttachment> s{{static_cast<std::uint32_t>(K::blockir), w.take(), 0}};
    return write_keg(p.graph, s);
  };
  auto edit_blockir = [&](auto&& f) {
    Bytes b = with_blockir;
    f(b);
    repair_checksums(b);
    return b;
  };
  const std::size_t frame = 4 + 32;
  // Where main's first statement starts: after the program encoded with an empty body.
  block::Program empty_body = loop;
  empty_body.functions[0].body.clear();
  CanonicalWriter prefix;
  block::encode_program(empty_body, prefix);
  const std::size_t first_stmt = frame + prefix.size();
  save(dir, "ok-sample-loop-blockir.keg", with_blockir);
  save(dir, "K0022-blockir-encoding-version.keg", raw_section(loop, 7));
  save(dir, "K0022-blockir-truncated.keg", edit_blockir([](Bytes& b) {
         put_le(b, *find_entry(b, K::blockir) + 16, section_length(b, K::blockir) - 3, 8);
       }));
  save(dir, "K0022-blockir-unknown-statement-kind.keg", edit_blockir([&](Bytes& b) { b[section_offset(b, K::blockir) + first_stmt] = 99; }));
  save(dir, "K0022-blockir-statement-count-too-large.keg", edit_blockir([&](Bytes& b) {
         put_le(b, section_offset(b, K::blockir) + first_stmt - 4, 0x7FFFFFFF, 4);
       }));
  // main's export flag (after module "demo", tier "debug", tolerance "exact", one function "main"): 2 is not a flag.
  save(dir, "K0022-blockir-not-canonical.keg", edit_blockir([&](Bytes& b) { b[section_offset(b, K::blockir) + frame + 38] = 2; }));
  {  // if true { if true { ... } } 1,025 levels deep
    block::Program deep = loop;
    auto& f = deep.functions[0];
    f.slots.push_back({"c", tensor(DType::boolean, {}), false});
    block::Stmt inner{.kind = block::StmtKind::if_else, .args = {static_cast<block::SlotId>(f.slots.size() - 1)}};
    for (std::uint32_t i = 0; i < block::kMaxNesting; ++i) {
      block::Stmt outer{.kind = block::StmtKind::if_else, .args = inner.args};
      outer.body.push_back(std::move(inner));
      inner = std::move(outer);
    }
    f.body.insert(f.body.begin(), std::move(inner));
    save(dir, "K0022-blockir-nesting-too-deep.keg", raw_section(deep, block::kEncodingVersion));
  }
  save(dir, "K0023-blockir-hash-mismatch.keg", edit_blockir([](Bytes& b) { b[section_offset(b, K::blockir) + 4 + 9] ^= 0x20; }));
  {  // a compute statement naming a region the graph does not have (the hash is the content's)
    block::Program lost = loop;
    lost.functions[0].body[2].body[0].region.bytes[0] ^= 1;
    save(dir, "B0002-blockir-region-missing.keg", raw_section(lost, block::kEncodingVersion));
  }
  {  // print without the io effect
    block::Program pure = loop;
    pure.functions[0].effects.clear();
    save(dir, "B0007-blockir-print-without-io.keg", raw_section(pure, block::kEncodingVersion));
  }
  std::printf("corpus written to %s\n", dir.c_str());
  return 0;
}

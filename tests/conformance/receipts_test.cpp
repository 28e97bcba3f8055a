// Receipts and the store: canonical round trip, content addressing, hostile store entries
// (corrupt, truncated, not a file) reported and never a crash, and the run-time check per
// ReceiptMode (require refuses, conform mints, ignore records "unverified", a failing
// kernel is refused).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/reference/reference_backend.h"
#include "broken_backend.h"
#include "conformance/exec_policy.h"
#include "conformance/receipt.h"
#include "conformance/suite.h"

namespace rung::conformance {
namespace {

namespace fs = std::filesystem;

struct TempStore {
  fs::path dir;
  TempStore() {
    dir = fs::temp_directory_path() / ("rung_receipts_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
  }
  ~TempStore() { fs::remove_all(dir); }
};

ConformanceReceipt sample() {
  ConformanceReceipt r;
  r.op = "add";
  r.op_id = 100;
  r.backend = "cpu";
  r.kernel_hash = "k1";
  r.profile = {"cpu", "test cpu", {{"features", "avx2 fma"}, {"threads", "2"}}};
  r.tier = ops::Tier::debug;
  r.cls = ops::TolClass::exact;
  r.cases = 160;
  r.seed = 9;
  r.pass = true;
  r.date = "2026-11-29T00:00:00Z";
  return r;
}

TEST(Receipt, RoundTripsCanonically) {
  ConformanceReceipt r = sample();
  auto bytes = r.encode();
  std::string err;
  auto back = ConformanceReceipt::decode(bytes, err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->encode(), bytes);
  EXPECT_EQ(back->id(), r.id());
  ConformanceReceipt other = r;
  other.kernel_hash = "k2";
  EXPECT_NE(other.id(), r.id());
}

TEST(Receipt, EveryTruncationAndBitFlipIsRejectedOrDecodes) {
  auto bytes = sample().encode();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::string err;
    EXPECT_FALSE(ConformanceReceipt::decode(std::span(bytes).first(n), err)) << n;
    EXPECT_NE(err.find("byte"), std::string::npos);
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto b = bytes;
    b[i] ^= 0x80;
    std::string err;
    (void)ConformanceReceipt::decode(b, err);  // must not crash; most flips are rejected
  }
}

TEST(Store, ContentAddressedAndCorruptionReported) {
  TempStore t;
  Store s(t.dir.string());
  DiagnosticSink d;
  auto bytes = sample().encode();
  auto id = s.put("receipts", bytes, d);
  ASSERT_TRUE(id);
  EXPECT_EQ(*id, sha3_256(bytes));
  EXPECT_TRUE(s.get("receipts", *id, d));
  auto r = s.resolve("receipts", id->hex().substr(0, 6), d);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, *id);
  // Flip a byte on disk: reported as corrupt, skipped by the index.
  {
    std::fstream f(s.path("receipts", *id), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(5);
    f.put('X');
  }
  DiagnosticSink d2;
  EXPECT_FALSE(s.get("receipts", *id, d2));
  EXPECT_TRUE(d2.contains("Q0002"));
  DiagnosticSink d3;
  EXPECT_EQ(ReceiptIndex::load(s, d3).size(), 0u);
  EXPECT_TRUE(d3.contains("Q0002"));
}

// Issue 17 item 6: processes conforming the same kernel at once on a fresh store, each with
// its own date, leave one receipt for the key (the first written), and it reads back.
TEST(Store, ConcurrentWritersLeaveOneReceiptPerKey) {
  TempStore t;
  Store s(t.dir.string());
  constexpr int kWriters = 8;
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> kids;
  for (int i = 0; i < kWriters; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      char c;
      ::close(go[1]);
      if (::read(go[0], &c, 1) != 0) std::_Exit(3);  // wait until every writer is started
      ConformanceReceipt r = sample();
      r.date = "2026-11-29T00:00:0" + std::to_string(i) + "Z";
      ReceiptWriter w(s);
      DiagnosticSink d;
      auto id = w.put(r, d);
      ConformanceReceipt other = sample();  // another key, written by every writer too
      other.op = "mul";
      other.date = r.date;
      auto id2 = w.put(other, d);
      std::_Exit(id && id2 ? 0 : 1);
    }
    kids.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);  // EOF: all start at once
  for (pid_t k : kids) {
    int st = 0;
    ASSERT_EQ(::waitpid(k, &st, 0), k);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(t.dir / "receipts")) files += e.path().filename().string() != ".lock";
  EXPECT_EQ(files, 2u);  // no temporaries left behind, no duplicates
  DiagnosticSink d;
  ReceiptIndex idx = ReceiptIndex::load(s, d);
  EXPECT_TRUE(d.empty());
  ASSERT_EQ(idx.size(), 2u);
  EXPECT_NE(idx.all()[0].second.key(), idx.all()[1].second.key());
  // A later writer of either key reuses what is there.
  ConformanceReceipt late = sample();
  late.date = "2026-12-01T00:00:00Z";
  ReceiptWriter w(s);
  auto id = w.put(late, d);
  ASSERT_TRUE(id);
  EXPECT_EQ(s.list("receipts").size(), 2u);
  EXPECT_NE(*id, late.id());
  // A different seed is different evidence: a receipt of its own.
  late.seed = 10;
  ASSERT_TRUE(w.put(late, d));
  EXPECT_EQ(s.list("receipts").size(), 3u);
}

// The Q0002 note says what becomes of a damaged entry, and that is what happens: a damaged
// receipt is ignored and a conformance run writes a new one; damaged stored content is
// written again, in place, by the next put of the same bytes.
TEST(Store, DamagedEntriesAreReplacedAsTheNoteSays) {
  TempStore t;
  Store s(t.dir.string());
  DiagnosticSink d;
  ConformanceReceipt r = sample();
  ReceiptWriter w1(s);
  auto id = w1.put(r, d);
  ASSERT_TRUE(id);
  fs::resize_file(s.path("receipts", *id), 10);
  DiagnosticSink d2;
  EXPECT_EQ(ReceiptIndex::load(s, d2).size(), 0u);
  ASSERT_TRUE(d2.contains("Q0002"));
  DiagnosticSink d3;
  EXPECT_FALSE(s.get("receipts", *id, d3));
  ASSERT_EQ(d3.all().size(), 1u);
  ASSERT_EQ(d3.all()[0].notes.size(), 1u);
  EXPECT_NE(d3.all()[0].notes[0].find("writes a new receipt"), std::string::npos) << d3.all()[0].notes[0];
  r.date = "2026-11-30T00:00:00Z";  // conformed again
  ReceiptWriter w2(s);
  auto fresh = w2.put(r, d);
  ASSERT_TRUE(fresh);
  EXPECT_NE(*fresh, *id);
  DiagnosticSink d4;
  ReceiptIndex idx = ReceiptIndex::load(s, d4);
  ASSERT_EQ(idx.size(), 1u);
  EXPECT_EQ(idx.all()[0].first, *fresh);

  std::vector<std::uint8_t> bytes = {1, 2, 3, 4, 5};
  auto tid = s.put("tensors", bytes, d);
  ASSERT_TRUE(tid);
  fs::resize_file(s.path("tensors", *tid), 2);
  DiagnosticSink d5;
  EXPECT_FALSE(s.get("tensors", *tid, d5));
  ASSERT_TRUE(d5.contains("Q0002"));
  EXPECT_NE(d5.all()[0].notes[0].find("writes it again"), std::string::npos);
  ASSERT_TRUE(s.put("tensors", bytes, d));
  DiagnosticSink d6;
  EXPECT_TRUE(s.get("tensors", *tid, d6));
  auto rid = s.put("records", bytes, d);  // a run record: its note says it is lost
  ASSERT_TRUE(rid);
  fs::resize_file(s.path("records", *rid), 2);
  DiagnosticSink d7;
  EXPECT_FALSE(s.get("records", *rid, d7));
  ASSERT_TRUE(d7.contains("Q0002"));
  EXPECT_NE(d7.all()[0].notes[0].find("cannot be re-created"), std::string::npos);
}

TEST(Store, HostileEntriesNeverCrash) {
  TempStore t;
  Store s(t.dir.string());
  fs::create_directories(t.dir / "receipts");
  Hash256 fake = sha3_256(std::string_view("x"));
  fs::create_directories(t.dir / "receipts" / fake.hex());            // a directory named like an entry
  Hash256 fifo = sha3_256(std::string_view("fifo"));
  ASSERT_EQ(::mkfifo((t.dir / "receipts" / fifo.hex()).c_str(), 0600), 0);  // a FIFO: reading would block
  std::string garbage = "not a receipt";
  Hash256 g = sha3_256(garbage);
  std::ofstream(t.dir / "receipts" / g.hex()) << garbage;                // hashes right, does not decode
  std::ofstream(t.dir / "receipts" / "README") << "ignored";
  DiagnosticSink d;
  ReceiptIndex idx = ReceiptIndex::load(s, d);
  EXPECT_EQ(idx.size(), 0u);
  EXPECT_TRUE(d.contains("Q0002"));
  EXPECT_TRUE(d.contains("Q0007"));
  DiagnosticSink d2;
  EXPECT_FALSE(s.resolve("receipts", "zz", d2));
  EXPECT_TRUE(d2.contains("Q0006"));
}

TEST(ReceiptCheck, RequireConformIgnore) {
  TempStore t;
  Store s(t.dir.string());
  testing::BrokenBackend b;
  std::vector<const ops::OpDef*> ops = {ops::op_registry().find("sub"), ops::op_registry().find("relu")};
  ConformOptions o;
  o.cases = 4;

  DiagnosticSink d1;
  EXPECT_FALSE(check_receipts(ops, b, ReceiptMode::require, s, o, d1));
  EXPECT_TRUE(d1.contains("Q0010"));

  DiagnosticSink d2;
  auto ign = check_receipts(ops, b, ReceiptMode::ignore, s, o, d2);
  ASSERT_TRUE(ign);
  for (const auto& u : *ign) EXPECT_EQ(u.status, "unverified");

  DiagnosticSink d3;
  auto conf = check_receipts(ops, b, ReceiptMode::conform, s, o, d3);
  ASSERT_TRUE(conf) << (d3.all().empty() ? "" : d3.all().front().message);
  for (const auto& u : *conf) {
    EXPECT_EQ(u.status, "conformed");
    EXPECT_EQ(u.receipt.size(), 64u);
  }
  // Now the receipts exist: require passes and names them.
  DiagnosticSink d4;
  auto req = check_receipts(ops, b, ReceiptMode::require, s, o, d4);
  ASSERT_TRUE(req);
  for (std::size_t i = 0; i < req->size(); ++i) {
    EXPECT_EQ((*req)[i].status, "receipt");
    EXPECT_EQ((*req)[i].receipt, (*conf)[i].receipt);
  }
  // A changed kernel (new hash) invalidates them.
  b.version = 2;
  DiagnosticSink d5;
  EXPECT_FALSE(check_receipts(ops, b, ReceiptMode::require, s, o, d5));
  EXPECT_TRUE(d5.contains("Q0010"));
}

TEST(ReceiptCheck, FailingKernelIsRefusedUnderConform) {
  TempStore t;
  Store s(t.dir.string());
  testing::BrokenBackend b;
  std::vector<const ops::OpDef*> ops = {ops::op_registry().find("add")};
  ConformOptions o;
  o.cases = 4;
  DiagnosticSink d;
  EXPECT_FALSE(check_receipts(ops, b, ReceiptMode::conform, s, o, d));
  EXPECT_TRUE(d.contains("Q0011"));
  EXPECT_TRUE(s.list("receipts").empty());  // a failing op mints nothing
}

TEST(ReceiptCheck, ReferenceIsTheOracle) {
  TempStore t;
  Store s(t.dir.string());
  auto ref = reference::make_backend(ops::Tier::debug);
  DiagnosticSink d;
  auto uses = check_receipts({ops::op_registry().find("add")}, *ref, ReceiptMode::require, s, {}, d);
  ASSERT_TRUE(uses);
  EXPECT_EQ((*uses)[0].status, "oracle");
}

TEST(Policy, PlacementRecordsItsReason) {
  auto ref = reference::make_backend(ops::Tier::debug);
  Placement host{"cpu", ref.get(), false, 0};
  Placement gpu{"cuda", ref.get(), true, 1 << 20};
  PolicyConfig cfg;
  cfg.min_device_elems = 1000;
  DiagnosticSink d;
  auto small = place_region("region r", 10, 40, gpu, &host, cfg, d);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->backend, "cpu");
  EXPECT_NE(small->reason.find("load threshold"), std::string::npos);
  auto big = place_region("region r", 1 << 19, 2 << 20, gpu, &host, cfg, d);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->backend, "cpu");
  EXPECT_NE(big->reason.find("memory budget"), std::string::npos);
  auto fits = place_region("region r", 5000, 20000, gpu, &host, cfg, d);
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->backend, "cuda");
  EXPECT_FALSE(place_region("region r", 1 << 19, 2 << 20, gpu, nullptr, cfg, d));
  EXPECT_TRUE(d.contains("Q0012"));
  auto on_host = place_region("region r", 10, 40, host, nullptr, cfg, d);
  ASSERT_TRUE(on_host);
  EXPECT_EQ(on_host->backend, "cpu");
}

}  // namespace
}  // namespace rung::conformance

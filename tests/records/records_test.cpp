// Run records end to end through the CLI: `rung run` writes a record, `rung record` shows
// it (prefix ids), `rung replay` reproduces it bit for bit, a changed argument file or a
// record whose outputs disagree with a re-run is refused (exit 1), a damaged record file is
// a diagnostic; a program reading a CSV through --data-dir replays, and refuses once the CSV
// changed. Plus the record codec on hostile bytes and format-1 records.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/wait.h>

#include "conformance/receipt.h"
#include "conformance/run_record.h"
#include "runtime/npy.h"

namespace rung::conformance {
namespace {

namespace fs = std::filesystem;

struct Cli {
  fs::path home;
  Cli() {
    home = fs::temp_directory_path() / ("rung_records_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(home);
    fs::create_directories(home);
  }
  ~Cli() { fs::remove_all(home); }
  // Runs `rung ARGS` with RUNG_HOME set; returns the exit code, stdout+stderr in `out`.
  int operator()(const std::string& args, std::string& out) const {
    std::string cmd = "RUNG_HOME='" + (home / "store").string() + "' '" RUNG_CLI "' " + args + " > '" + (home / "out.txt").string() + "' 2>&1";
    int rc = std::system(cmd.c_str());
    std::ifstream f(home / "out.txt");
    std::stringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  Store store() const { return Store((home / "store").string()); }
};

std::string write_inputs(const Cli& cli) {
  std::vector<float> x(3 * 8), w(8 * 4);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 2.5f;
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i % 5);
  DiagnosticSink d;
  npy::save((cli.home / "x.npy").string(), ops::HostTensor::from_f32({3, 8}, x), d);
  npy::save((cli.home / "w.npy").string(), ops::HostTensor::from_f32({8, 4}, w), d);
  return std::string(RUNG_SOURCE_DIR) + "/examples/center.workflow.json --arg x=" + (cli.home / "x.npy").string() +
         " --arg w=" + (cli.home / "w.npy").string();
}

std::string record_id_of(const std::string& run_output) {
  auto p = run_output.find("record       ");
  if (p == std::string::npos) return "";
  return run_output.substr(p + 13, 64);
}

TEST(RunRecords, RunRecordShowReplay) {
  Cli cli;
  std::string out;
  std::string run = "run " + write_inputs(cli);
  ASSERT_EQ(cli(run, out), 0) << out;
  std::string id = record_id_of(out);
  ASSERT_EQ(id.size(), 64u) << out;

  ASSERT_EQ(cli("record " + id.substr(0, 10), out), 0) << out;
  EXPECT_NE(out.find("replayable"), std::string::npos) << out;
  EXPECT_NE(out.find("execplan"), std::string::npos);
  EXPECT_NE(out.find("receipts"), std::string::npos);
  EXPECT_NE(out.find("decision"), std::string::npos);
  ASSERT_EQ(cli("record --list", out), 0) << out;
  EXPECT_NE(out.find(id.substr(0, 16)), std::string::npos) << out;
  ASSERT_EQ(cli("record --json " + id.substr(0, 8), out), 0) << out;
  EXPECT_NE(out.find("\"device_profile_hash\""), std::string::npos);

  ASSERT_EQ(cli("replay " + id.substr(0, 12), out), 0) << out;
  EXPECT_NE(out.find("bit-for-bit identical"), std::string::npos) << out;

  // An argument file changed since: replay refuses.
  {
    std::fstream f(cli.home / "x.npy", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }
  EXPECT_EQ(cli("replay " + id, out), 1) << out;
  EXPECT_NE(out.find("Q0021"), std::string::npos) << out;
}

// A program in one folder reading `table.csv` that lies in another, found through --data-dir.
std::string write_csv_program(const Cli& cli) {
  fs::create_directories(cli.home / "prog");
  fs::create_directories(cli.home / "data");
  std::ofstream(cli.home / "prog" / "sum.rung") << "module sum;\n\ntier debug;\ntolerance exact;\n\n"
                                                   "export fn main() -> f32[3] !io {\n"
                                                   "    let t: f32[2, 3] = read_csv(\"table.csv\");\n"
                                                   "    sum(t * 0.5, axes: [0])\n}\n";
  std::ofstream(cli.home / "data" / "table.csv") << "1,2,3\n4,5,6\n";
  return (cli.home / "prog" / "sum.rung").string();
}

TEST(RunRecords, DataDirAndReadFilesAreReplayed) {
  Cli cli;
  std::string out, program = write_csv_program(cli);
  ASSERT_EQ(cli("run --backend reference " + program, out), 1) << out;  // not found without --data-dir
  ASSERT_EQ(cli("run --backend reference " + program + " --data-dir " + (cli.home / "data").string(), out), 0) << out;
  std::string id = record_id_of(out);
  ASSERT_EQ(id.size(), 64u) << out;
  ASSERT_EQ(cli("record " + id, out), 0) << out;
  EXPECT_NE(out.find("data-dir    " + (cli.home / "data").string()), std::string::npos) << out;
  EXPECT_NE(out.find("read        " + (cli.home / "data" / "table.csv").string()), std::string::npos) << out;
  ASSERT_EQ(cli("replay " + id, out), 0) << out;
  EXPECT_NE(out.find("bit-for-bit identical"), std::string::npos) << out;

  // The CSV changed since: replay refuses before running.
  std::ofstream(cli.home / "data" / "table.csv") << "1,2,3\n4,5,7\n";
  EXPECT_EQ(cli("replay " + id, out), 1) << out;
  EXPECT_NE(out.find("Q0021"), std::string::npos) << out;
  EXPECT_NE(out.find("data file"), std::string::npos) << out;
}

TEST(RunRecords, RunOptionsRoundTripAndFormatOneStillDecodes) {
  RunRecord r;
  r.entry = "main";
  r.data_dirs = {"/data/a", "/data/b"};
  r.stream_option = "256";
  r.binding_limit_option = "128MiB";
  r.offload_threshold = 4096;
  r.reads.push_back({"/data/a/t.csv", sha3_256(std::string_view("1,2\n"))});
  std::string err;
  auto back = RunRecord::decode(r.encode(), err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->format, 4);
  EXPECT_FALSE(back->transfers);
  EXPECT_EQ(back->data_dirs, r.data_dirs);
  EXPECT_EQ(back->stream_option, "256");
  EXPECT_EQ(back->binding_limit_option, "128MiB");
  EXPECT_EQ(back->offload_threshold, 4096u);
  ASSERT_EQ(back->reads.size(), 1u);
  EXPECT_EQ(back->reads[0].file_hash, r.reads[0].file_hash);
  // A format-1 record (written before these fields) decodes, re-encodes to the same bytes (same id).
  RunRecord old;
  old.format = 1;
  old.entry = "main";
  auto v1 = old.encode();
  auto back1 = RunRecord::decode(v1, err);
  ASSERT_TRUE(back1) << err;
  EXPECT_EQ(back1->format, 1);
  EXPECT_TRUE(back1->data_dirs.empty());
  EXPECT_EQ(back1->encode(), v1);
  // Likewise a format-2 record (written before transfers were kept).
  RunRecord two = r;
  two.format = 2;
  auto v2 = two.encode();
  auto back2 = RunRecord::decode(v2, err);
  ASSERT_TRUE(back2) << err;
  EXPECT_EQ(back2->format, 2);
  EXPECT_EQ(back2->offload_threshold, 4096u);
  EXPECT_EQ(back2->encode(), v2);
}

TEST(RunRecords, DeviceTransfersRoundTrip) {
  RunRecord r;
  r.entry = "train";
  r.transfers = runtime::TransferCounts{1323660, 4, 17, 1};
  std::string err;
  auto back = RunRecord::decode(r.encode(), err);
  ASSERT_TRUE(back) << err;
  ASSERT_TRUE(back->transfers);
  EXPECT_EQ(back->transfers->to_device_bytes, 1323660u);
  EXPECT_EQ(back->transfers->from_device_bytes, 4u);
  EXPECT_EQ(back->transfers->uploads, 17u);
  EXPECT_EQ(back->transfers->downloads, 1u);
  EXPECT_NE(back->to_text().find("to device 1323660 bytes in 17 uploads"), std::string::npos) << back->to_text();
  EXPECT_EQ(back->to_json()["transfers"]["downloads"], 1);
  // Another transfer count is another record (the id covers it).
  RunRecord other = r;
  other.transfers->downloads = 2;
  EXPECT_NE(other.id(), r.id());
}

TEST(RunRecords, GeneratedKernelsRoundTripAndFormatThreeStillDecodes) {
  RunRecord r;
  r.entry = "main";
  r.transfers = runtime::TransferCounts{100, 8, 2, 1};
  r.generated_kernels = {{"block.fused.0", "b44f769423c3d975"}, {"block.fused.3", "op by op: a dtype the generator lacks"}};
  std::string err;
  auto back = RunRecord::decode(r.encode(), err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->format, 4);
  EXPECT_EQ(back->generated_kernels, r.generated_kernels);
  EXPECT_NE(back->to_text().find("kernel      block.fused.0 -> b44f769423c3d975"), std::string::npos) << back->to_text();
  EXPECT_EQ(back->to_json()["generated_kernels"]["block.fused.3"], "op by op: a dtype the generator lacks");
  // Another kernel is another record: the id covers what ran.
  RunRecord other = r;
  other.generated_kernels["block.fused.0"] = "0000000000000000";
  EXPECT_NE(other.id(), r.id());
  // A format-3 record (written before generated kernels were kept) decodes, says so, and
  // re-encodes to its own bytes (same id).
  RunRecord three = r;
  three.format = 3;
  three.generated_kernels.clear();
  auto v3 = three.encode();
  auto back3 = RunRecord::decode(v3, err);
  ASSERT_TRUE(back3) << err;
  EXPECT_EQ(back3->format, 3);
  ASSERT_TRUE(back3->transfers);
  EXPECT_EQ(back3->encode(), v3);
  EXPECT_NE(back3->to_text().find("not kept (record format 3)"), std::string::npos) << back3->to_text();
  // Truncated inside the kernel list: an error, not a crash.
  auto v4 = r.encode();
  v4.resize(v4.size() - 5);
  EXPECT_FALSE(RunRecord::decode(v4, err));
  EXPECT_NE(err.find("generated kernel"), std::string::npos) << err;
}

TEST(RunRecords, ReceiptsAreConformedThenReused) {
  Cli cli;
  std::string out, args = write_inputs(cli);
  ASSERT_EQ(cli("run --backend reference " + args, out), 0) << out;
  ASSERT_EQ(cli("record " + record_id_of(out), out), 0) << out;
  EXPECT_NE(out.find("oracle"), std::string::npos) << out;  // the reference needs no receipt
  ASSERT_EQ(cli("devices --json", out), 0) << out;
  if (out.find("\"cpu\"") == std::string::npos) GTEST_SKIP() << "no cpu backend in this build";
  ASSERT_EQ(cli("run --backend cpu --receipts=require " + args, out), 1) << out;  // no receipt yet
  EXPECT_NE(out.find("Q0010"), std::string::npos) << out;
  ASSERT_EQ(cli("run --backend cpu " + args, out), 0) << out;  // conform (default) mints them
  std::string first = record_id_of(out);
  ASSERT_EQ(cli("record " + first, out), 0) << out;
  EXPECT_NE(out.find("conformed"), std::string::npos) << out;
  ASSERT_EQ(cli("run --backend cpu --receipts=require " + args, out), 0) << out;  // now they exist
  ASSERT_EQ(cli("record " + record_id_of(out), out), 0) << out;
  EXPECT_NE(out.find("  matmul"), std::string::npos) << out;
  EXPECT_NE(out.find("receipt "), std::string::npos) << out;
}

TEST(RunRecords, ReplayDetectsADifferentResult) {
  Cli cli;
  std::string out;
  ASSERT_EQ(cli("run " + write_inputs(cli), out), 0) << out;
  std::string id = record_id_of(out);
  // A record claiming other output bits, stored properly: replay must disagree with it.
  Store s = cli.store();
  DiagnosticSink d;
  auto loaded = load_record(s, id, d);
  ASSERT_TRUE(loaded);
  RunRecord forged = loaded->second;
  forged.outputs[0].tensor_hash.bytes[0] ^= 1;
  auto fid = s.put("records", forged.encode(), d);
  ASSERT_TRUE(fid);
  EXPECT_EQ(cli("replay " + fid->hex(), out), 1) << out;
  EXPECT_NE(out.find("Q0022"), std::string::npos) << out;
  EXPECT_NE(out.find("DIFFERENT"), std::string::npos) << out;
}

TEST(RunRecords, DamagedRecordIsADiagnostic) {
  Cli cli;
  std::string out;
  ASSERT_EQ(cli("run " + write_inputs(cli), out), 0) << out;
  std::string id = record_id_of(out);
  fs::path p = cli.home / "store" / "records" / id;
  fs::resize_file(p, 20);
  EXPECT_EQ(cli("record " + id, out), 1);
  EXPECT_NE(out.find("Q0002"), std::string::npos) << out;
  EXPECT_EQ(cli("record nothex!", out), 1);
  EXPECT_NE(out.find("Q0006"), std::string::npos) << out;
  EXPECT_EQ(cli("record --list", out), 0) << out;  // the damaged entry is skipped with a warning
  EXPECT_NE(out.find("Q0008"), std::string::npos) << out;
}

TEST(RunRecords, ConvergentRunsKeepTheirOutputs) {
  RunRecord r;
  r.tier = "prod";
  r.tolerance = "default";
  set_reproducibility(r);
  EXPECT_FALSE(r.replayable);
  EXPECT_EQ(r.convergence_class, "default");
  r.tier = "debug";
  set_reproducibility(r);
  EXPECT_TRUE(r.replayable);
  ops::HostTensor t = ops::HostTensor::from_f32({2}, std::vector<float>{1.5f, -0.0f});
  std::string err;
  auto back = decode_tensor(encode_tensor(t), err);
  ASSERT_TRUE(back) << err;
  EXPECT_TRUE(back->identical(t));
}

TEST(RunRecords, CodecSurvivesHostileBytes) {
  RunRecord r;
  r.date = "2026-11-29T00:00:00Z";
  r.program_path = "/x.rung";
  r.entry = "main";
  r.args.push_back({"x", "/x.npy", {}, {}});
  r.outputs.push_back({"y", "f32[2]", {}, Hash256{}});
  r.decisions.push_back({"region a", "cpu", "why", 3});
  r.receipts.push_back({"add", "receipt", "ab"});
  r.execplan = Hash256{};
  auto bytes = r.encode();
  std::string err;
  auto back = RunRecord::decode(bytes, err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->encode(), bytes);
  for (std::size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(RunRecord::decode(std::span(bytes).first(n), err));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto b = bytes;
    b[i] = static_cast<std::uint8_t>(b[i] + 0x41);
    (void)RunRecord::decode(b, err);
  }
}

}  // namespace
}  // namespace rung::conformance

namespace rung::conformance {
namespace {

// Every receipt of a store, decoded (a damaged or undecodable one fails the test).
std::map<Hash256, int> receipts_per_key(const Store& s) {
  std::map<Hash256, int> keys;
  DiagnosticSink d;
  ReceiptIndex idx = ReceiptIndex::load(s, d);
  EXPECT_TRUE(d.empty()) << d.all().front().message;
  for (const auto& [id, r] : idx.all()) ++keys[r.key()];
  return keys;
}

// Issue 17 item 6: concurrent `rung run` and `rung conform` on a fresh store write exactly
// one receipt per key, each readable: as many receipts as one run alone writes.
TEST(Receipts, ConcurrentRunsOnAFreshStoreWriteOneReceiptPerKey) {
  Cli alone, many;
  std::string out, run = "run --backend cpu " + write_inputs(alone);
  ASSERT_EQ(alone(run, out), 0) << out;
  std::size_t expected = receipts_per_key(alone.store()).size();
  ASSERT_GT(expected, 0u) << out;
  std::string runs = "run --backend cpu " + write_inputs(many);
  std::string conform = "conform --backend cpu --ops add,relu --cases 4";
  std::string cmd = "export RUNG_HOME='" + (many.home / "store").string() + "'; rc=0; pids=;";
  for (int i = 0; i < 6; ++i)  // started at once, each its own process
    cmd += " '" RUNG_CLI "' " + (i % 2 ? conform : runs) + " > '" + (many.home / ("out" + std::to_string(i))).string() +
           "' 2>&1 & pids=\"$pids $!\";";
  cmd += " for p in $pids; do wait $p || rc=1; done; exit $rc";
  int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd;
  auto keys = receipts_per_key(many.store());
  EXPECT_GE(keys.size(), expected);
  for (const auto& [key, n] : keys) EXPECT_EQ(n, 1) << key.hex();
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(many.home / "store" / "receipts")) files += e.path().filename() != ".lock";
  EXPECT_EQ(files, keys.size());  // nothing else left in the folder (no temporaries)
  ASSERT_EQ(many("run --backend cpu --receipts=require " + write_inputs(many), out), 0) << out;
}

// The Q0002 note of a damaged receipt promises that the kernel counts as not conformed and
// that a conforming run writes a new receipt: both hold.
TEST(Receipts, ADamagedReceiptIsReplacedByTheNextConformingRun) {
  Cli cli;
  std::string out, args = " --backend cpu " + write_inputs(cli);
  ASSERT_EQ(cli("run" + args, out), 0) << out;
  Store s = cli.store();
  std::vector<Hash256> before = s.list("receipts");
  ASSERT_FALSE(before.empty());
  auto keys_before = receipts_per_key(s);
  fs::resize_file(s.path("receipts", before[0]), 7);
  EXPECT_EQ(cli("run --receipts=require" + args, out), 1) << out;
  EXPECT_NE(out.find("Q0002"), std::string::npos) << out;
  EXPECT_NE(out.find("writes a new receipt"), std::string::npos) << out;
  EXPECT_NE(out.find("Q0010"), std::string::npos) << out;
  ASSERT_EQ(cli("run --receipts=conform" + args, out), 0) << out;
  // The new receipt is a new file, or (written within the same second, so the same bytes)
  // the damaged file rewritten whole: either way every key has one readable receipt again.
  std::map<Hash256, int> keys_after;
  DiagnosticSink d;
  ReceiptIndex index = ReceiptIndex::load(s, d);
  for (const auto& [id, r] : index.all()) ++keys_after[r.key()];
  EXPECT_EQ(keys_after, keys_before);
  std::size_t files = s.list("receipts").size();
  EXPECT_TRUE(files == before.size() || files == before.size() + 1) << files;
  ASSERT_EQ(cli("run --receipts=require" + args, out), 0) << out;
}

// Issue 17 item 5 through the CLI: a header is declared or detected, never a data row dropped.
TEST(ReadCsv, HeaderDeclaredOrDetected) {
  Cli cli;
  std::ofstream(cli.home / "csv.rung") << "module csv;\n\ntier debug;\ntolerance exact;\n\n"
                                          "export fn main() -> f32 !io {\n"
                                          "    let a: f32[2, 2] = read_csv(\"bom.csv\");\n"
                                          "    let b: f32[1, 2] = read_csv(\"numbers.csv\", header: true);\n"
                                          "    let c: f32[1, 3] = read_csv(\"one.csv\");\n"
                                          "    let s = sum(a) + sum(b) * 10.0 + sum(c) * 100.0;\n"
                                          "    print(\"s\", s);\n    s\n}\n";
  std::ofstream(cli.home / "bom.csv") << "\xEF\xBB\xBF+1,.5\n2,3\n";
  std::ofstream(cli.home / "numbers.csv") << "7,8\n1,2\n";
  std::ofstream(cli.home / "one.csv") << "1,2,3\n";
  std::string out;
  ASSERT_EQ(cli("run --backend reference " + (cli.home / "csv.rung").string(), out), 0) << out;
  EXPECT_NE(out.find("s 636.5"), std::string::npos) << out;  // 6.5 + 3 * 10 + 6 * 100
  std::ofstream(cli.home / "one.csv") << "1,,3\n";
  EXPECT_EQ(cli("run --backend reference " + (cli.home / "csv.rung").string(), out), 1) << out;
  EXPECT_NE(out.find("V0001"), std::string::npos) << out;
  EXPECT_NE(out.find("one.csv:1:3"), std::string::npos) << out;
}

}  // namespace
}  // namespace rung::conformance

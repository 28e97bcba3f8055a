// Hostile models: every file tests/onnx/hostile/CODE_name.onnx (make_hostile.py) must fail to
// load with CODE as its first error, from its path and as bytes in memory, and nothing worse
// (a crash, a hang or a giant allocation fails the test run itself). The cases that need the
// file system are made here: external data that is a symlink out of the model's folder, a
// folder on the way that is a symlink, a FIFO (which must not block the import).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <rung/onnx.h>
#include <rung/rung.hpp>
#include <set>
#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace rung;

namespace {

const fs::path kHostile = fs::path(RUNG_SOURCE_DIR) / "tests/onnx/hostile";

std::vector<std::string> hostile_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kHostile)) {
    std::string n = e.path().filename().string();
    if (n.size() > 6 && n[0] == 'I' && e.path().extension() == ".onnx") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string first_error(const Diagnostics& d) {
  for (const auto& m : d.messages())
    if (m.severity == Severity::Error) return m.code;
  return "";
}

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

class OnnxHostile : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxHostile, FailsWithItsCode) {
  std::string code = GetParam().substr(0, 5);
  auto m = Module::load(Source::file((kHostile / (GetParam() + ".onnx")).string()));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(first_error(m.diagnostics()), code) << m.diagnostics().text();
  for (const auto& msg : m.diagnostics().messages()) EXPECT_FALSE(msg.text.empty());
  // The same bytes without a folder: refused as well (external data then always is, I0008).
  std::string bytes = read_all(kHostile / (GetParam() + ".onnx"));
  auto mem = Module::load(Source::bytes("hostile.onnx", std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), SourceKind::onnx));
  ASSERT_FALSE(mem.ok());
  std::string got = first_error(mem.diagnostics());
  EXPECT_TRUE(got == code || (got == "I0008" && (code == "I0009"))) << mem.diagnostics().text();
}

INSTANTIATE_TEST_SUITE_P(Files, OnnxHostile, ::testing::ValuesIn(hostile_files()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(OnnxHostileSet, EveryCodeHasAFile) {
  std::set<std::string> codes;
  for (const auto& f : hostile_files()) codes.insert(f.substr(0, 5));
  for (int i = 1; i <= 14; ++i) {
    char code[8];
    std::snprintf(code, sizeof code, "I%04d", i);
    EXPECT_TRUE(codes.count(code)) << code << " has no file in tests/onnx/hostile";
  }
}

struct TempDir {
  fs::path dir;
  TempDir() {
    static int n = 0;
    dir = fs::temp_directory_path() / ("rung-onnx-hostile-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

Result<Module> load_copy(const TempDir& t, const char* model) {
  fs::copy_file(kHostile / model, t.dir / "model.onnx");
  return Module::load(Source::file((t.dir / "model.onnx").string()));
}

TEST(OnnxExternal, ReadsDataBelowTheFolder) {
  TempDir t;
  fs::copy_file(kHostile / "data.bin", t.dir / "data.bin");
  auto m = load_copy(t, "ext_data.onnx");
  ASSERT_TRUE(m.ok()) << m.diagnostics().text();
  auto p = Program::compile(*m, CompileOptions{"debug", "exact", std::nullopt});
  ASSERT_TRUE(p.ok()) << p.diagnostics().text();
  SessionOptions so;
  so.receipts = Receipts::ignore;
  so.write_records = false;
  auto s = Session::open(*p, so);
  ASSERT_TRUE(s.ok());
  std::vector<std::uint8_t> zeros(8, 0);
  auto x = Tensor::from_bytes(DType::f32, {2}, zeros);
  auto r = s->run("main", {{"x", *x, ""}});
  ASSERT_TRUE(r.ok()) << r.diagnostics().text();
  const float* y = static_cast<const float*>(r->outputs[0].tensor.data());
  EXPECT_EQ(y[0], 1.0f);  // data.bin holds [1, 2]
  EXPECT_EQ(y[1], 2.0f);
}

TEST(OnnxExternal, SymlinkOutIsRefused) {
  TempDir t;
  fs::create_symlink("/etc/passwd", t.dir / "data.bin");
  auto m = load_copy(t, "ext_data.onnx");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(first_error(m.diagnostics()), "I0008") << m.diagnostics().text();
  EXPECT_NE(m.diagnostics().text().find("symbolic link"), std::string::npos) << m.diagnostics().text();
}

TEST(OnnxExternal, SymlinkedFolderIsRefused) {
  TempDir t, outside;
  fs::copy_file(kHostile / "data.bin", outside.dir / "data.bin");
  fs::create_directory_symlink(outside.dir, t.dir / "sub");
  auto m = load_copy(t, "ext_sub_data.onnx");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(first_error(m.diagnostics()), "I0008") << m.diagnostics().text();
}

TEST(OnnxExternal, RealSubfolderIsRead) {
  TempDir t;
  fs::create_directory(t.dir / "sub");
  fs::copy_file(kHostile / "data.bin", t.dir / "sub/data.bin");
  auto m = load_copy(t, "ext_sub_data.onnx");
  EXPECT_TRUE(m.ok()) << m.diagnostics().text();
}

TEST(OnnxExternal, FifoIsRefusedWithoutBlocking) {
  TempDir t;
  ASSERT_EQ(::mkfifo((t.dir / "data.bin").c_str(), 0600), 0);
  auto m = load_copy(t, "ext_data.onnx");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(first_error(m.diagnostics()), "I0008") << m.diagnostics().text();
  EXPECT_NE(m.diagnostics().text().find("not a regular file"), std::string::npos) << m.diagnostics().text();
}

TEST(OnnxExternal, WeightBudgetIsAnOption) {
  TempDir t;
  fs::copy_file(kHostile / "data.bin", t.dir / "data.bin");
  fs::copy_file(kHostile / "ext_data.onnx", t.dir / "model.onnx");
  LoadOptions lo;
  lo.max_weight_bytes = 4;  // data.bin's tensor is 8 bytes
  auto m = Module::load(Source::file((t.dir / "model.onnx").string()), lo);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(first_error(m.diagnostics()), "I0014") << m.diagnostics().text();
}

}  // namespace

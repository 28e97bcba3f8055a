// The C ABI through librung.so (include/rung.h only: no C++ API, no src/ header), as a C caller
// meets it. Each boundary code has a case; zero-copy is proven by data pointers and release
// counts, not asserted.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rung.h"

extern "C" size_t rung_capi_test_c_table_size(void);
extern "C" uint32_t rung_capi_test_c_version(void);

namespace {

namespace fs = std::filesystem;

const RungApi* api() {
  static const RungApi* a = rung_get_api(RUNG_API_VERSION);
  return a;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A status, checked and released: its code and the first diagnostic's code.
struct Outcome {
  RungStatusCode code = RUNG_OK;
  std::string diag, message, json;
};
Outcome take(RungStatus* s) {
  Outcome o;
  o.code = api()->StatusCode(s);
  o.message = api()->StatusMessage(s);
  o.json = api()->StatusDiagnosticsJson(s);
  if (api()->StatusDiagnosticCount(s) > 0) {
    const char* code = nullptr;
    RungStatus* e = api()->StatusDiagnostic(s, 0, &code, nullptr, nullptr, nullptr, nullptr, nullptr);
    EXPECT_EQ(e, nullptr);
    if (code) o.diag = code;
  }
  api()->ReleaseStatus(s);
  return o;
}

#define EXPECT_OK(call)                                  \
  do {                                                   \
    Outcome o_ = take(call);                             \
    EXPECT_EQ(o_.code, RUNG_OK) << #call << ": " << o_.message; \
  } while (0)
#define ASSERT_OK(call)                                  \
  do {                                                   \
    Outcome o_ = take(call);                             \
    ASSERT_EQ(o_.code, RUNG_OK) << #call << ": " << o_.message; \
  } while (0)
#define EXPECT_FAILS(call, want_code, want_diag)                                     \
  do {                                                                               \
    Outcome o_ = take(call);                                                         \
    EXPECT_EQ(o_.code, want_code) << #call << ": " << o_.message;                    \
    EXPECT_EQ(o_.diag, want_diag) << #call << ": " << o_.message;                    \
  } while (0)

const std::string kSource = RUNG_SOURCE_DIR;
const std::string kCenter = kSource + "/examples/center.workflow.json";

// The CLI's hashes for center.workflow.json on the inputs below (`rung run ... --arg x=x.npy
// --arg w=w.npy`; tests/consumer makes the same files and compares with the CLI itself).
const char kCenterFingerprint[] = "520f7cf396c9ea82c4be1f4e68d61c14459a0c88ee9fa58f553f785f91445a9c";
const char kCenterY[] = "e8e35702ea72415a8b1a27f278b42463b580e9254be157796a22097f6b7b0e44";
const char kCenterMeans[] = "943e6fb29027530fa872182871a9d93421ac55b723a53970eaa5a4426ce4cb3f";

std::vector<float> center_x() {  // 3 x 8: 0, 0.5, 1, ...
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = 0.5f * static_cast<float>(i);
  return v;
}
std::vector<float> center_w() {  // 8 x 4: (i - 16) / 8
  std::vector<float> v(32);
  for (int i = 0; i < 32; ++i) v[i] = static_cast<float>(i - 16) / 8.0f;
  return v;
}

struct Fixture : ::testing::Test {
  fs::path home;
  std::vector<RungModule*> modules;
  std::vector<RungProgram*> programs;
  std::vector<RungSession*> sessions;
  std::vector<RungTensor*> tensors;
  std::vector<RungRunResult*> results;

  void SetUp() override {
    ASSERT_NE(api(), nullptr);
    home = fs::temp_directory_path() / ("rung-capi-test-" + std::to_string(::getpid()));
    fs::create_directories(home);
  }
  void TearDown() override {
    for (auto* r : results) api()->ReleaseRunResult(r);
    for (auto* t : tensors) api()->ReleaseTensor(t);
    for (auto* s : sessions) api()->ReleaseSession(s);
    for (auto* p : programs) api()->ReleaseProgram(p);
    for (auto* m : modules) api()->ReleaseModule(m);
    std::error_code ec;
    fs::remove_all(home, ec);
  }

  RungModule* load_file(const std::string& path) {
    RungModule* m = nullptr;
    Outcome o = take(api()->ModuleLoadFile(path.c_str(), &m));
    EXPECT_EQ(o.code, RUNG_OK) << o.message;
    if (m) modules.push_back(m);
    return m;
  }
  RungModule* load_text(const std::string& text, const char* name = "test.rung") {
    RungModule* m = nullptr;
    Outcome o = take(api()->ModuleLoadBytes(name, text.data(), text.size(), RUNG_SOURCE_RUNG, &m));
    EXPECT_EQ(o.code, RUNG_OK) << o.message;
    if (m) modules.push_back(m);
    return m;
  }
  RungProgram* compile(RungModule* m, const RungCompileOptions* options = nullptr) {
    RungProgram* p = nullptr;
    Outcome o = take(api()->ProgramCompile(m, options, &p));
    EXPECT_EQ(o.code, RUNG_OK) << o.message;
    if (p) programs.push_back(p);
    return p;
  }
  RungSession* open(RungProgram* p, const char* backend = "cpu", bool records = false) {
    RungSessionOptions* so = nullptr;
    EXPECT_OK(api()->CreateSessionOptions(&so));
    EXPECT_OK(api()->SessionOptionsSetBackend(so, backend));
    EXPECT_OK(api()->SessionOptionsSetHome(so, home.c_str()));
    EXPECT_OK(api()->SessionOptionsSetReceipts(so, RUNG_RECEIPTS_IGNORE));
    EXPECT_OK(api()->SessionOptionsSetWriteRecords(so, records ? 1 : 0));
    EXPECT_OK(api()->SessionOptionsSetSetting(so, "RUNG_CPU_THREADS", "2"));
    RungSession* s = nullptr;
    Outcome o = take(api()->SessionOpen(p, so, &s));
    EXPECT_EQ(o.code, RUNG_OK) << o.message;
    api()->ReleaseSessionOptions(so);
    if (s) sessions.push_back(s);
    return s;
  }
  RungTensor* copy_f32(const std::vector<float>& v, std::vector<int64_t> shape) {
    RungTensor* t = nullptr;
    EXPECT_OK(api()->TensorCreateCopy(RUNG_F32, static_cast<int32_t>(shape.size()), shape.data(), nullptr, v.data(), &t));
    if (t) tensors.push_back(t);
    return t;
  }
  std::string hash(RungTensor* t) {
    const char* h = nullptr;
    EXPECT_OK(api()->TensorHash(t, &h));
    return h ? h : "";
  }
  RungRunResult* run(RungSession* s, std::vector<const char*> names, std::vector<RungTensor*> ins, Outcome* failure = nullptr,
                     const RungRunOptions* ro = nullptr, const char* entry = nullptr) {
    RungRunResult* r = nullptr;
    std::vector<const RungTensor*> cins(ins.begin(), ins.end());
    Outcome o = take(api()->SessionRun(s, entry, names.size(), names.data(), cins.data(), ro, &r));
    if (failure) *failure = o;
    else EXPECT_EQ(o.code, RUNG_OK) << o.message;
    if (r) results.push_back(r);
    return r;
  }
  RungTensor* output(RungRunResult* r, const char* name) {
    RungTensor* t = nullptr;
    EXPECT_OK(api()->RunResultOutputByName(r, name, &t));
    if (t) tensors.push_back(t);
    return t;
  }
};

using CApi = Fixture;

// --- the table ---

TEST(CApiTable, VersionsAndTheVersionString) {
  EXPECT_EQ(rung_get_api(0), nullptr);
  EXPECT_EQ(rung_get_api(RUNG_API_VERSION + 1), nullptr);  // M0010: a newer caller gets no table
  ASSERT_NE(rung_get_api(RUNG_API_VERSION), nullptr);
  EXPECT_EQ(rung_get_api(1), rung_get_api(RUNG_API_VERSION));
  EXPECT_NE(std::string(rung_version_string()).find("C ABI 1"), std::string::npos) << rung_version_string();
  EXPECT_EQ(rung_capi_test_c_version(), static_cast<uint32_t>(RUNG_API_VERSION));
  EXPECT_EQ(rung_capi_test_c_table_size(), sizeof(RungApi));
}

// The struct, its table and src/capi/api_entries.txt agree: same names in the same order, each
// added no later than RUNG_API_VERSION and in non-decreasing version order (so a new version's
// entries come after the old ones), one pointer each and none NULL.
TEST(CApiTable, MatchesTheCommittedEntryList) {
  std::vector<std::pair<std::string, int>> listed;
  std::istringstream list(read(kSource + "/src/capi/api_entries.txt"));
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string name;
    int since = 0;
    ASSERT_TRUE(static_cast<bool>(ls >> name >> since)) << line;
    listed.emplace_back(name, since);
  }
  std::string header = read(kSource + "/include/rung.h");
  auto a = header.find("typedef struct RungApi {"), b = header.find("} RungApi;");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  std::string body = header.substr(a, b - a);
  std::vector<std::string> fields;
  std::regex member(R"(\(\s*\*\s*(\w+)\s*\)\s*\()");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), member); it != std::sregex_iterator(); ++it)
    fields.push_back((*it)[1]);
  ASSERT_EQ(fields.size(), listed.size()) << "include/rung.h and src/capi/api_entries.txt list different entries";
  int last = 1;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ(fields[i], listed[i].first) << "entry " << i;
    EXPECT_LE(listed[i].second, RUNG_API_VERSION) << listed[i].first;
    EXPECT_GE(listed[i].second, last) << listed[i].first << ": entries of a later version come after";
    last = listed[i].second;
  }
  ASSERT_EQ(sizeof(RungApi), fields.size() * sizeof(void (*)()));
  const RungApi* t = api();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    void (*fn)() = nullptr;
    std::memcpy(&fn, reinterpret_cast<const char*>(t) + i * sizeof fn, sizeof fn);
    EXPECT_NE(fn, nullptr) << fields[i];
  }
  // Spot checks of the offsets a compiled caller uses.
  EXPECT_EQ(offsetof(RungApi, StatusCode), 0u);
  EXPECT_EQ(offsetof(RungApi, DTypeName), (fields.size() - 1) * sizeof(void*));
}

// src/capi stands on the public API only: its includes are <system>, "rung.h", "rung/..." and
// its own "capi/...".
TEST(CApiTable, TheImplementationIncludesOnlyPublicHeaders) {
  std::regex inc(R"(^\s*#\s*include\s*"([^"]+)\")");
  int files = 0;
  for (const auto& e : fs::directory_iterator(kSource + "/src/capi")) {
    auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".h") continue;
    ++files;
    std::istringstream in(read(e.path()));
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      std::smatch m;
      if (!std::regex_search(line, m, inc)) continue;
      std::string h = m[1];
      EXPECT_TRUE(h == "rung.h" || h.rfind("rung/", 0) == 0 || h.rfind("capi/", 0) == 0)
          << e.path().string() << ":" << n << " includes a private header \"" << h << "\"";
    }
  }
  EXPECT_GT(files, 3);
}

// --- statuses ---

TEST(CApiStatus, NullIsSuccess) {
  EXPECT_EQ(api()->StatusCode(nullptr), RUNG_OK);
  EXPECT_STREQ(api()->StatusMessage(nullptr), "");
  EXPECT_EQ(api()->StatusDiagnosticCount(nullptr), 0u);
  EXPECT_STREQ(api()->StatusDiagnosticsJson(nullptr), "[]");
  api()->ReleaseStatus(nullptr);
}

TEST_F(CApi, StatusCarriesDiagnosticsWithLocations) {
  RungModule* m = nullptr;
  std::string bad = "module m;\n\nexport fn f(x: f32[2]) -> f32[2] {\n    x +\n}\n";
  RungStatus* s = api()->ModuleLoadBytes("bad.rung", bad.data(), bad.size(), RUNG_SOURCE_RUNG, &m);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(m, nullptr);  // out-parameters are set only on success
  EXPECT_EQ(api()->StatusCode(s), RUNG_DIAGNOSTICS);
  ASSERT_GE(api()->StatusDiagnosticCount(s), 1u);
  const char *code = nullptr, *message = nullptr, *file = nullptr;
  int32_t severity = -1;
  uint32_t line = 0, column = 0;
  EXPECT_OK(api()->StatusDiagnostic(s, 0, &code, &severity, &message, &file, &line, &column));
  EXPECT_EQ(code[0], 'E') << code;
  EXPECT_EQ(severity, RUNG_SEVERITY_ERROR);
  EXPECT_STREQ(file, "bad.rung");
  EXPECT_GE(line, 4u);
  EXPECT_GT(column, 0u);
  EXPECT_NE(std::string(api()->StatusMessage(s)).find(code), std::string::npos);
  std::string json = api()->StatusDiagnosticsJson(s);
  EXPECT_EQ(json.front(), '[');
  EXPECT_NE(json.find(code), std::string::npos);
  // An index past the end is a status of its own, not a crash.
  EXPECT_FAILS(api()->StatusDiagnostic(s, 99, &code, nullptr, nullptr, nullptr, nullptr, nullptr), RUNG_INVALID_ARGUMENT,
               "M0007");
  api()->ReleaseStatus(s);
}

TEST(CApiStatus, AReleasedStatusIsReportedNotRead) {
  RungStatus* s = api()->ModuleLoadFile(nullptr, nullptr);
  ASSERT_NE(s, nullptr);
  api()->ReleaseStatus(s);
  EXPECT_EQ(api()->StatusCode(s), RUNG_INVALID_ARGUMENT);
  EXPECT_NE(std::string(api()->StatusMessage(s)).find("M0007"), std::string::npos);
  EXPECT_EQ(api()->StatusDiagnosticCount(s), 0u);
  EXPECT_FAILS(api()->StatusDiagnostic(s, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr), RUNG_INVALID_ARGUMENT,
               "M0007");
  api()->ReleaseStatus(s);  // twice: nothing happens
}

// --- NULL pointers and bad handles (M0007) ---

TEST_F(CApi, NullPointersAreInvalidArguments) {
  RungModule* m = nullptr;
  EXPECT_FAILS(api()->ModuleLoadFile(nullptr, &m), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ModuleLoadFile(kCenter.c_str(), nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ModuleLoadBytes("x.rung", nullptr, 10, RUNG_SOURCE_RUNG, &m), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ModuleLoadBytes(nullptr, "", 0, RUNG_SOURCE_RUNG, &m), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ModuleLoadBytes("x", "", 0, 7, &m), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ModuleLoadBytes("x", "", 0, RUNG_SOURCE_ONNX + 1, &m), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ModuleName(nullptr, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ProgramCompile(nullptr, nullptr, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->SessionOpen(nullptr, nullptr, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->SessionRun(nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->CreateCompileOptions(nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->CreateSessionOptions(nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->CreateRunOptions(nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->TensorHash(nullptr, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->TensorFromDLPack(nullptr, RUNG_COPY_NEVER, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->DTypeName(RUNG_F32, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_EQ(m, nullptr);

  RungModule* center = load_file(kCenter);
  ASSERT_NE(center, nullptr);
  RungProgram* p = compile(center);
  ASSERT_NE(p, nullptr);
  EXPECT_FAILS(api()->ProgramCompile(center, nullptr, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ProgramFingerprint(p, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  RungSession* s = open(p);
  ASSERT_NE(s, nullptr);
  RungTensor* x = copy_f32(center_x(), {3, 8});
  const RungTensor* ins[] = {x};
  const char* names[] = {"x"};
  const char* null_name[] = {nullptr};
  RungRunResult* r = nullptr;
  EXPECT_FAILS(api()->SessionRun(s, nullptr, 1, nullptr, ins, nullptr, &r), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->SessionRun(s, nullptr, 1, names, nullptr, nullptr, &r), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->SessionRun(s, nullptr, 1, null_name, ins, nullptr, &r), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->SessionRun(s, nullptr, 1, names, ins, nullptr, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  const RungTensor* null_in[] = {nullptr};
  EXPECT_FAILS(api()->SessionRun(s, nullptr, 1, names, null_in, nullptr, &r), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_EQ(r, nullptr);
}

TEST_F(CApi, ReleasedForgedAndMistypedHandlesAreReportedNotRead) {
  RungModule* m = load_file(kCenter);
  ASSERT_NE(m, nullptr);
  modules.clear();
  api()->ReleaseModule(m);
  const char* name = nullptr;
  Outcome o = take(api()->ModuleName(m, &name));
  EXPECT_EQ(o.code, RUNG_INVALID_ARGUMENT);
  EXPECT_EQ(o.diag, "M0007");
  EXPECT_NE(o.message.find("released RungModule"), std::string::npos) << o.message;
  EXPECT_EQ(name, nullptr);
  RungProgram* p = nullptr;
  EXPECT_FAILS(api()->ProgramCompile(m, nullptr, &p), RUNG_INVALID_ARGUMENT, "M0007");
  api()->ReleaseModule(m);  // a second release: nothing happens

  // A slot reused by a new handle does not bring the old one back to life.
  RungModule* again = load_file(kCenter);
  ASSERT_NE(again, nullptr);
  EXPECT_NE(again, m);
  EXPECT_FAILS(api()->ModuleName(m, &name), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_OK(api()->ModuleName(again, &name));
  EXPECT_STREQ(name, "center_and_project");

  // Forged values and a handle of another type.
  o = take(api()->ModuleName(reinterpret_cast<RungModule*>(static_cast<std::uintptr_t>(0x1234)), &name));
  EXPECT_EQ(o.code, RUNG_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("never issued"), std::string::npos) << o.message;
  EXPECT_FAILS(api()->ModuleName(reinterpret_cast<RungModule*>(&o), &name), RUNG_INVALID_ARGUMENT, "M0007");
  RungTensor* t = copy_f32({1, 2}, {2});
  o = take(api()->ModuleName(reinterpret_cast<RungModule*>(t), &name));
  EXPECT_EQ(o.code, RUNG_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("RungTensor handle where a RungModule"), std::string::npos) << o.message;
  api()->ReleaseModule(reinterpret_cast<RungModule*>(t));  // the wrong release does not release the tensor
  EXPECT_EQ(hash(t).size(), 64u);

  // A released tensor as a run input.
  RungProgram* prog = compile(again);
  RungSession* s = open(prog);
  RungTensor* x = copy_f32(center_x(), {3, 8});
  RungTensor* w = copy_f32(center_w(), {8, 4});
  tensors.pop_back();
  api()->ReleaseTensor(w);
  Outcome f;
  EXPECT_EQ(run(s, {"x", "w"}, {x, w}, &f), nullptr);
  EXPECT_EQ(f.code, RUNG_INVALID_ARGUMENT);
  EXPECT_NE(f.message.find("input `w`: a released RungTensor"), std::string::npos) << f.message;
}

// --- loading and compiling ---

TEST_F(CApi, LoadErrorsAreDiagnostics) {
  RungModule* m = nullptr;
  EXPECT_FAILS(api()->ModuleLoadFile("/nonexistent/dir/p.rung", &m), RUNG_DIAGNOSTICS, "C0001");
  EXPECT_FAILS(api()->ModuleLoadFile((kSource + "/README.md").c_str(), &m), RUNG_DIAGNOSTICS, "C0011");
  // A .keg from bytes that are not one.
  EXPECT_FAILS(api()->ModuleLoadBytes("x.keg", "garbage", 7, RUNG_SOURCE_KEG, &m), RUNG_DIAGNOSTICS, "K0001");
  EXPECT_EQ(m, nullptr);
  // A bad tier name: C0012.
  RungModule* center = load_file(kCenter);
  RungCompileOptions* co = nullptr;
  ASSERT_OK(api()->CreateCompileOptions(&co));
  EXPECT_OK(api()->CompileOptionsSetTier(co, "debgu"));
  RungProgram* p = nullptr;
  EXPECT_FAILS(api()->ProgramCompile(center, co, &p), RUNG_DIAGNOSTICS, "C0012");
  EXPECT_EQ(p, nullptr);
  // An override: compiles, with warning C0016 kept on the program.
  EXPECT_OK(api()->CompileOptionsSetTier(co, "prod"));
  EXPECT_OK(api()->CompileOptionsSetTolerance(co, "default"));
  ASSERT_OK(api()->ProgramCompile(center, co, &p));
  const char* tier = nullptr;
  const char* warnings = nullptr;
  EXPECT_OK(api()->ProgramTier(p, &tier));
  EXPECT_STREQ(tier, "prod");
  EXPECT_OK(api()->ProgramWarningsJson(p, &warnings));
  EXPECT_NE(std::string(warnings).find("C0016"), std::string::npos) << warnings;
  api()->ReleaseProgram(p);
  api()->ReleaseCompileOptions(co);
}

TEST_F(CApi, EntriesListTheirParametersAndResults) {
  RungProgram* p = compile(load_file(kCenter));
  ASSERT_NE(p, nullptr);
  uint64_t n = 0;
  EXPECT_OK(api()->ProgramEntryCount(p, &n));
  ASSERT_EQ(n, 1u);
  const char* name = nullptr;
  EXPECT_OK(api()->ProgramEntryName(p, 0, &name));
  EXPECT_STREQ(name, "center_and_project");
  EXPECT_OK(api()->ProgramEntryParamCount(p, 0, &n));
  ASSERT_EQ(n, 2u);
  const char* type = nullptr;
  RungDType dt = 0;
  EXPECT_OK(api()->ProgramEntryParam(p, 0, 0, &name, &type, &dt));
  EXPECT_STREQ(name, "x");
  EXPECT_STREQ(type, "f32[N, 8]");
  EXPECT_EQ(dt, RUNG_F32);
  EXPECT_OK(api()->ProgramEntryParam(p, 0, 1, &name, &type, nullptr));
  EXPECT_STREQ(name, "w");
  EXPECT_STREQ(type, "f32[8, 4]");
  EXPECT_OK(api()->ProgramEntryResultCount(p, 0, &n));
  ASSERT_EQ(n, 2u);
  EXPECT_OK(api()->ProgramEntryResult(p, 0, 0, &name, &type, nullptr));
  EXPECT_STREQ(name, "y");
  EXPECT_OK(api()->ProgramEntryResult(p, 0, 1, &name, nullptr, nullptr));
  EXPECT_STREQ(name, "column_means");
  EXPECT_FAILS(api()->ProgramEntryParam(p, 0, 2, &name, &type, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->ProgramEntryName(p, 1, &name), RUNG_INVALID_ARGUMENT, "M0007");
  const char* fp = nullptr;
  EXPECT_OK(api()->ProgramFingerprint(p, &fp));
  EXPECT_STREQ(fp, kCenterFingerprint);
}

// --- running ---

TEST_F(CApi, CenterGivesTheCliHashes) {
  RungProgram* p = compile(load_file(kCenter));
  RungSession* s = open(p, "cpu", /*records=*/true);
  ASSERT_NE(s, nullptr);
  RungRunResult* r = run(s, {"x", "w"}, {copy_f32(center_x(), {3, 8}), copy_f32(center_w(), {8, 4})});
  ASSERT_NE(r, nullptr);
  uint64_t n = 0;
  EXPECT_OK(api()->RunResultOutputCount(r, &n));
  ASSERT_EQ(n, 2u);
  RungTensor* y = nullptr;
  const char* name = nullptr;
  EXPECT_OK(api()->RunResultOutput(r, 0, &name, &y));
  tensors.push_back(y);
  EXPECT_STREQ(name, "y");
  EXPECT_EQ(hash(y), kCenterY);
  EXPECT_EQ(hash(output(r, "column_means")), kCenterMeans);
  int32_t ndim = 0;
  const int64_t* shape = nullptr;
  uint64_t bytes = 0;
  RungDType dt = 0;
  EXPECT_OK(api()->TensorNDim(y, &ndim));
  EXPECT_OK(api()->TensorShape(y, &shape));
  EXPECT_OK(api()->TensorByteSize(y, &bytes));
  EXPECT_OK(api()->TensorDType(y, &dt));
  ASSERT_EQ(ndim, 2);
  EXPECT_EQ(shape[0], 3);
  EXPECT_EQ(shape[1], 4);
  EXPECT_EQ(bytes, 48u);
  EXPECT_EQ(dt, RUNG_F32);
  const char* id = nullptr;
  const char* json = nullptr;
  EXPECT_OK(api()->RunResultRecordId(r, &id));
  EXPECT_EQ(std::strlen(id), 64u);
  EXPECT_OK(api()->RunResultRecordJson(r, &json));
  EXPECT_NE(std::string(json).find(kCenterY), std::string::npos);
  EXPECT_FAILS(api()->RunResultOutputByName(r, "z", &y), RUNG_INVALID_ARGUMENT, "M0001");
  EXPECT_FAILS(api()->RunResultOutput(r, 2, nullptr, &y), RUNG_INVALID_ARGUMENT, "M0007");

  // The reference backend gives the same bits (tier debug).
  RungSession* ref = open(p, "reference");
  RungRunResult* r2 = run(ref, {"x", "w"}, {copy_f32(center_x(), {3, 8}), copy_f32(center_w(), {8, 4})});
  ASSERT_NE(r2, nullptr);
  EXPECT_EQ(hash(output(r2, "y")), kCenterY);
  const char* backend = nullptr;
  EXPECT_OK(api()->SessionBackend(ref, &backend));
  EXPECT_STREQ(backend, "reference");
}

// An ONNX model handed over as bytes (RUNG_SOURCE_ONNX) imports and runs: Add of [2,3,4] and [3,1].
TEST_F(CApi, AnOnnxModelLoadsFromBytes) {
  std::ifstream f(kSource + "/tests/onnx/cases/add/model.onnx", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  RungModule* m = nullptr;
  Outcome o = take(api()->ModuleLoadBytes("add.onnx", bytes.data(), bytes.size(), RUNG_SOURCE_ONNX, &m));
#ifndef RUNG_TEST_HAS_ONNX
  EXPECT_EQ(o.code, RUNG_DIAGNOSTICS) << o.message;  // built without the importer: a coded refusal
  return;
#endif
  ASSERT_EQ(o.code, RUNG_OK) << o.message;
  modules.push_back(m);
  RungCompileOptions* co = nullptr;  // an imported model declares no tier: the caller chooses
  ASSERT_OK(api()->CreateCompileOptions(&co));
  EXPECT_OK(api()->CompileOptionsSetTier(co, "debug"));
  RungProgram* p = compile(m, co);
  api()->ReleaseCompileOptions(co);
  RungSession* s = open(p);
  ASSERT_NE(s, nullptr);
  std::vector<float> a(24), b = {-1.0f, 0.5f, 2.25f};
  for (int i = 0; i < 24; ++i) a[i] = 0.125f * static_cast<float>(i) - 1.0f;
  RungRunResult* r = run(s, {"a", "b"}, {copy_f32(a, {2, 3, 4}), copy_f32(b, {3, 1})});
  ASSERT_NE(r, nullptr);
  RungTensor* y = output(r, "y");
  const void* data = nullptr;
  ASSERT_OK(api()->TensorData(y, &data));
  const float* got = static_cast<const float*>(data);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(got[i], a[i] + b[(i / 4) % 3]) << i;
  // Truncated bytes are the importer's coded diagnostic, not a crash.
  EXPECT_FAILS(api()->ModuleLoadBytes("cut.onnx", bytes.data(), bytes.size() / 2, RUNG_SOURCE_ONNX, &m), RUNG_DIAGNOSTICS,
               "I0001");
}

TEST_F(CApi, AnUnknownBackendIsNotAvailable) {
  RungProgram* p = compile(load_file(kCenter));
  RungSessionOptions* so = nullptr;
  ASSERT_OK(api()->CreateSessionOptions(&so));
  EXPECT_OK(api()->SessionOptionsSetBackend(so, "tpu"));
  EXPECT_OK(api()->SessionOptionsSetHome(so, home.c_str()));
  RungSession* s = nullptr;
  EXPECT_FAILS(api()->SessionOpen(p, so, &s), RUNG_NOT_AVAILABLE, "C0015");
  EXPECT_EQ(s, nullptr);
  EXPECT_FAILS(api()->SessionOptionsSetReceipts(so, 9), RUNG_INVALID_ARGUMENT, "M0007");
  api()->ReleaseSessionOptions(so);
}

// M0001 .. M0005 at the run's boundary, and the same session serving a correct call after
// each (calls after an error work).
TEST_F(CApi, WrongInputsAreCodedAndTheSessionGoesOn) {
  RungProgram* p = compile(load_file(kCenter));
  RungSession* s = open(p);
  ASSERT_NE(s, nullptr);
  RungTensor* x = copy_f32(center_x(), {3, 8});
  RungTensor* w = copy_f32(center_w(), {8, 4});
  Outcome f;
  EXPECT_EQ(run(s, {"x", "w", "z"}, {x, w, w}, &f), nullptr);
  EXPECT_EQ(f.code, RUNG_INVALID_ARGUMENT);
  EXPECT_EQ(f.diag, "M0001");
  EXPECT_EQ(run(s, {"x"}, {x}, &f), nullptr);
  EXPECT_EQ(f.diag, "M0002");
  std::vector<double> xd(24, 1.0);
  int64_t xs[] = {3, 8};
  RungTensor* x64 = nullptr;
  ASSERT_OK(api()->TensorCreateCopy(RUNG_F64, 2, xs, nullptr, xd.data(), &x64));
  tensors.push_back(x64);
  EXPECT_EQ(run(s, {"x", "w"}, {x64, w}, &f), nullptr);
  EXPECT_EQ(f.code, RUNG_INVALID_ARGUMENT);
  EXPECT_EQ(f.diag, "M0003");
  RungTensor* w83 = copy_f32(std::vector<float>(24, 1.0f), {8, 3});
  EXPECT_EQ(run(s, {"x", "w"}, {x, w83}, &f), nullptr);
  EXPECT_EQ(f.diag, "M0004");
  RungTensor* x1 = copy_f32(std::vector<float>(8, 1.0f), {8});
  EXPECT_EQ(run(s, {"x", "w"}, {x1, w}, &f), nullptr);
  EXPECT_EQ(f.diag, "M0004");
  // After every refusal the session still runs.
  RungRunResult* r = run(s, {"x", "w"}, {x, w});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(hash(output(r, "y")), kCenterY);

  // M0005: one symbolic dim bound to two extents.
  RungProgram* add = compile(load_text("module a;\n\ntier debug;\ntolerance exact;\n\n"
                                       "export fn add(a: f32[N], b: f32[N]) -> f32[N] {\n    a + b\n}\n"));
  RungSession* sa = open(add);
  ASSERT_NE(sa, nullptr);
  EXPECT_EQ(run(sa, {"a", "b"}, {copy_f32({1, 2, 3}, {3}), copy_f32({1, 2, 3, 4}, {4})}, &f), nullptr);
  EXPECT_EQ(f.code, RUNG_INVALID_ARGUMENT);
  EXPECT_EQ(f.diag, "M0005");
  // An unknown entry: X0004 (a diagnostic of the program, not of the call's arguments).
  EXPECT_EQ(run(sa, {"a", "b"}, {copy_f32({1}, {1}), copy_f32({1}, {1})}, &f, nullptr, "sub"), nullptr);
  EXPECT_EQ(f.diag, "X0004");
  EXPECT_NE(run(sa, {"a", "b"}, {copy_f32({1}, {1}), copy_f32({2}, {1})}), nullptr);
}

// --- tensors ---

TEST_F(CApi, TensorDescriptionsAreChecked) {
  RungTensor* t = nullptr;
  int64_t shape[] = {2, 3};
  float data[6] = {0, 1, 2, 3, 4, 5};
  EXPECT_FAILS(api()->TensorCreateCopy(0, 2, shape, nullptr, data, &t), RUNG_INVALID_ARGUMENT, "M0003");
  EXPECT_FAILS(api()->TensorCreateCopy(99, 2, shape, nullptr, data, &t), RUNG_INVALID_ARGUMENT, "M0003");
  EXPECT_FAILS(api()->TensorCreateCopy(RUNG_F32, -1, shape, nullptr, data, &t), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->TensorCreateCopy(RUNG_F32, 2, nullptr, nullptr, data, &t), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->TensorCreateCopy(RUNG_F32, 2, shape, nullptr, nullptr, &t), RUNG_INVALID_ARGUMENT, "M0007");
  int64_t negative[] = {2, -3};
  EXPECT_FAILS(api()->TensorCreateCopy(RUNG_F32, 2, negative, nullptr, data, &t), RUNG_INVALID_ARGUMENT, "M0007");
  int64_t huge[] = {INT64_MAX / 2, INT64_MAX / 2};
  EXPECT_FAILS(api()->TensorCreateCopy(RUNG_F32, 2, huge, nullptr, data, &t), RUNG_INVALID_ARGUMENT, "M0007");
  int64_t q_bad[] = {33};  // q8_0 counts come in blocks of 32
  EXPECT_FAILS(api()->TensorCreateCopy(RUNG_Q8_0, 1, q_bad, nullptr, data, &t), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_EQ(t, nullptr);

  // 0-d, an empty dimension (no data needed), bool.
  float one = 1.5f;
  ASSERT_OK(api()->TensorCreateCopy(RUNG_F32, 0, nullptr, nullptr, &one, &t));
  tensors.push_back(t);
  int32_t ndim = -1;
  uint64_t bytes = 0;
  EXPECT_OK(api()->TensorNDim(t, &ndim));
  EXPECT_OK(api()->TensorByteSize(t, &bytes));
  EXPECT_EQ(ndim, 0);
  EXPECT_EQ(bytes, 4u);
  int64_t empty[] = {0, 5};
  ASSERT_OK(api()->TensorCreateCopy(RUNG_F32, 2, empty, nullptr, nullptr, &t));
  tensors.push_back(t);
  EXPECT_OK(api()->TensorByteSize(t, &bytes));
  EXPECT_EQ(bytes, 0u);
  uint8_t flags[] = {1, 0, 1};
  int64_t three[] = {3};
  ASSERT_OK(api()->TensorCreateCopy(RUNG_BOOL, 1, three, nullptr, flags, &t));
  tensors.push_back(t);
  RungDType dt = 0;
  EXPECT_OK(api()->TensorDType(t, &dt));
  EXPECT_EQ(dt, RUNG_BOOL);
  const char* name = nullptr;
  EXPECT_OK(api()->DTypeName(dt, &name));
  EXPECT_STREQ(name, "bool");
  EXPECT_FAILS(api()->DTypeName(16, &name), RUNG_INVALID_ARGUMENT, "M0003");
}

// Non-contiguous memory: copied by TensorCreateCopy (strides walked, negative ones too),
// refused by TensorCreateBorrowed (M0006), whose release then runs at once.
TEST_F(CApi, StridedMemoryIsCopiedOrRefused) {
  // A 3 x 2 transposed view of a row-major 2 x 3 buffer.
  float buf[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[] = {3, 2};
  int64_t strides[] = {1, 3};
  RungTensor* t = nullptr;
  ASSERT_OK(api()->TensorCreateCopy(RUNG_F32, 2, shape, strides, buf, &t));
  tensors.push_back(t);
  const void* data = nullptr;
  ASSERT_OK(api()->TensorData(t, &data));
  EXPECT_NE(data, static_cast<const void*>(buf));
  const float* f = static_cast<const float*>(data);
  EXPECT_EQ(std::vector<float>(f, f + 6), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  int32_t borrowed = 1;
  EXPECT_OK(api()->TensorIsBorrowed(t, &borrowed));
  EXPECT_EQ(borrowed, 0);

  // Negative strides: the last element first.
  int64_t six[] = {6};
  int64_t back[] = {-1};
  ASSERT_OK(api()->TensorCreateCopy(RUNG_F32, 1, six, back, buf + 5, &t));
  tensors.push_back(t);
  ASSERT_OK(api()->TensorData(t, &data));
  f = static_cast<const float*>(data);
  EXPECT_EQ(std::vector<float>(f, f + 6), (std::vector<float>{5, 4, 3, 2, 1, 0}));

  int released = 0;
  auto count = [](void* c) { ++*static_cast<int*>(c); };
  RungTensor* b = nullptr;
  EXPECT_FAILS(api()->TensorCreateBorrowed(RUNG_F32, 2, shape, strides, buf, count, &released, &b), RUNG_REFUSED, "M0006");
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(released, 1);  // called once whatever the outcome
  // Every other refusal calls it once too (here a NULL out-parameter, a bad dtype).
  EXPECT_FAILS(api()->TensorCreateBorrowed(RUNG_F32, 2, shape, nullptr, buf, count, &released, nullptr),
               RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_FAILS(api()->TensorCreateBorrowed(77, 2, shape, nullptr, buf, count, &released, &b), RUNG_INVALID_ARGUMENT, "M0003");
  EXPECT_EQ(released, 3);
  // Row-major strides given explicitly (any stride on an extent-1 dim) are compact: borrowed.
  int64_t s13[] = {1, 3};
  int64_t st[] = {99, 1};
  ASSERT_OK(api()->TensorCreateBorrowed(RUNG_F32, 2, s13, st, buf, count, &released, &b));
  EXPECT_OK(api()->TensorData(b, &data));
  EXPECT_EQ(data, static_cast<const void*>(buf));
  api()->ReleaseTensor(b);
  EXPECT_EQ(released, 4);
}

// Zero-copy: a borrowed input's bytes are read in place (the data pointer is the caller's,
// the run counts it borrowed), and its release runs exactly once, after the last use.
TEST_F(CApi, BorrowedInputsAreNotCopiedAndReleasedOnce) {
  RungProgram* p = compile(load_file(kCenter));
  RungSession* s = open(p);
  ASSERT_NE(s, nullptr);
  std::vector<float> xv = center_x(), wv = center_w();
  int64_t xs[] = {3, 8}, ws[] = {8, 4};
  std::atomic<int> released{0};
  auto count = [](void* c) { ++*static_cast<std::atomic<int>*>(c); };
  RungTensor *x = nullptr, *w = nullptr;
  ASSERT_OK(api()->TensorCreateBorrowed(RUNG_F32, 2, xs, nullptr, xv.data(), count, &released, &x));
  ASSERT_OK(api()->TensorCreateBorrowed(RUNG_F32, 2, ws, nullptr, wv.data(), count, &released, &w));
  const void* data = nullptr;
  EXPECT_OK(api()->TensorData(x, &data));
  EXPECT_EQ(data, static_cast<const void*>(xv.data()));
  int32_t borrowed = 0;
  EXPECT_OK(api()->TensorIsBorrowed(x, &borrowed));
  EXPECT_EQ(borrowed, 1);

  RungRunResult* r = nullptr;
  for (int i = 0; i < 2; ++i) {  // twice: the session keeps nothing of the first run's inputs
    r = run(s, {"x", "w"}, {x, w});
    ASSERT_NE(r, nullptr);
    uint64_t nb = 0, nc = 9, bc = 9;
    EXPECT_OK(api()->RunResultInputStats(r, &nb, &nc, &bc));
    EXPECT_EQ(nb, 2u);
    EXPECT_EQ(nc, 0u);
    EXPECT_EQ(bc, 0u);
    EXPECT_EQ(hash(output(r, "y")), kCenterY);
  }
  EXPECT_EQ(released.load(), 0);
  EXPECT_OK(api()->TensorData(x, &data));
  EXPECT_EQ(data, static_cast<const void*>(xv.data()));  // still the caller's bytes: never copied
  api()->ReleaseTensor(x);
  api()->ReleaseTensor(w);
  for (auto* rr : results) api()->ReleaseRunResult(rr);
  results.clear();
  EXPECT_EQ(released.load(), 2);  // once each, once nothing holds them
  api()->ReleaseTensor(x);
  EXPECT_EQ(released.load(), 2);
}

// Zero-copy through a run and out again: an identity entry's output is the borrowed input's
// bytes (the same data pointer), it leaves as DLPack over those bytes, and the caller's release
// waits for the last holder: the DLPack export, after every handle is gone.
TEST_F(CApi, AnIdentityRunHandsTheCallersBytesBack) {
  RungProgram* p = compile(load_text("module i;\n\ntier debug;\ntolerance exact;\n\n"
                                     "export fn id(x: f32[N]) -> f32[N] {\n    x\n}\n"));
  RungSession* s = open(p);
  ASSERT_NE(s, nullptr);
  std::vector<float> v = {1, 2, 3, 4};
  int64_t n[] = {4};
  int released = 0;
  auto count = [](void* c) { ++*static_cast<int*>(c); };
  RungTensor* x = nullptr;
  ASSERT_OK(api()->TensorCreateBorrowed(RUNG_F32, 1, n, nullptr, v.data(), count, &released, &x));
  tensors.push_back(x);
  RungRunResult* r = run(s, {"x"}, {x});
  ASSERT_NE(r, nullptr);
  RungTensor* y = output(r, "result");
  ASSERT_NE(y, nullptr);
  const void* data = nullptr;
  EXPECT_OK(api()->TensorData(y, &data));
  EXPECT_EQ(data, static_cast<const void*>(v.data()));
  RungDLManagedTensorVersioned* dl = nullptr;
  ASSERT_OK(api()->TensorToDLPack(y, &dl));
  EXPECT_EQ(dl->dl_tensor.data, data);
  EXPECT_EQ(static_cast<const float*>(dl->dl_tensor.data)[3], 4.0f);
  // Everything released but the DLPack export.
  for (auto* t : tensors) api()->ReleaseTensor(t);
  tensors.clear();
  for (auto* rr : results) api()->ReleaseRunResult(rr);
  results.clear();
  EXPECT_EQ(released, 0);
  EXPECT_EQ(static_cast<const float*>(dl->dl_tensor.data)[0], 1.0f);  // the export keeps its bytes alive
  dl->deleter(dl);
  EXPECT_EQ(released, 1);
}

// --- DLPack ---

struct Producer {
  std::vector<float> data;
  std::vector<int64_t> shape, strides;
  RungDLManagedTensorVersioned managed{};
  RungDLManagedTensor legacy{};
  int deleted = 0;
};
void producer_delete(RungDLManagedTensorVersioned* m) { ++static_cast<Producer*>(m->manager_ctx)->deleted; }
void producer_delete_legacy(RungDLManagedTensor* m) { ++static_cast<Producer*>(m->manager_ctx)->deleted; }

void fill(Producer& p, RungDLTensor& t) {
  t.data = p.data.data();
  t.device = {RUNG_DL_CPU, 0};
  t.ndim = static_cast<int32_t>(p.shape.size());
  t.dtype = {RUNG_DL_FLOAT, 32, 1};
  t.shape = p.shape.data();
  t.strides = p.strides.empty() ? nullptr : p.strides.data();
  t.byte_offset = 0;
}
RungDLManagedTensorVersioned* versioned(Producer& p) {
  p.managed.version = {1, 0};
  p.managed.manager_ctx = &p;
  p.managed.deleter = producer_delete;
  p.managed.flags = 0;
  fill(p, p.managed.dl_tensor);
  return &p.managed;
}
RungDLManagedTensor* legacy(Producer& p) {
  p.legacy.manager_ctx = &p;
  p.legacy.deleter = producer_delete_legacy;
  fill(p, p.legacy.dl_tensor);
  return &p.legacy;
}

TEST_F(CApi, DLPackExportIsReadOnlyAndSharesTheBytes) {
  RungTensor* t = copy_f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const void* data = nullptr;
  ASSERT_OK(api()->TensorData(t, &data));
  RungDLManagedTensorVersioned* dl = nullptr;
  ASSERT_OK(api()->TensorToDLPack(t, &dl));
  EXPECT_EQ(dl->version.major, 1u);
  EXPECT_EQ(dl->flags & RUNG_DL_FLAG_READ_ONLY, RUNG_DL_FLAG_READ_ONLY);
  EXPECT_EQ(dl->dl_tensor.data, data);
  EXPECT_EQ(dl->dl_tensor.ndim, 2);
  EXPECT_EQ(dl->dl_tensor.shape[0], 2);
  EXPECT_EQ(dl->dl_tensor.shape[1], 3);
  EXPECT_EQ(dl->dl_tensor.strides, nullptr);
  EXPECT_EQ(dl->dl_tensor.dtype.code, RUNG_DL_FLOAT);
  EXPECT_EQ(dl->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(dl->dl_tensor.device.device_type, RUNG_DL_CPU);
  // Back into rung: borrowed, same bytes; the export is given back (its deleter) when the
  // imported tensor goes, and the original tensor is unaffected.
  RungTensor* back = nullptr;
  ASSERT_OK(api()->TensorFromDLPack(dl, RUNG_COPY_NEVER, &back));
  const void* data2 = nullptr;
  EXPECT_OK(api()->TensorData(back, &data2));
  EXPECT_EQ(data2, data);
  int32_t borrowed = 0;
  EXPECT_OK(api()->TensorIsBorrowed(back, &borrowed));
  EXPECT_EQ(borrowed, 1);
  EXPECT_EQ(hash(back), hash(t));
  api()->ReleaseTensor(back);  // runs the export's deleter (ASan: no leak, no double free)

  RungDLManagedTensor* old = nullptr;
  ASSERT_OK(api()->TensorToDLPackLegacy(t, &old));
  EXPECT_EQ(old->dl_tensor.data, data);
  ASSERT_OK(api()->TensorFromDLPackLegacy(old, RUNG_COPY_NEVER, &back));
  EXPECT_EQ(hash(back), hash(t));
  api()->ReleaseTensor(back);

  // Block-quantized tensors have no DLPack form: M0009.
  std::vector<uint8_t> q(34, 0);
  int64_t n32[] = {32};
  RungTensor* qt = nullptr;
  ASSERT_OK(api()->TensorCreateCopy(RUNG_Q8_0, 1, n32, nullptr, q.data(), &qt));
  tensors.push_back(qt);
  EXPECT_FAILS(api()->TensorToDLPack(qt, &dl), RUNG_NOT_AVAILABLE, "M0009");
}

TEST_F(CApi, DLPackImportBorrowsCopiesOrRefusesAndAlwaysCallsTheDeleterOnce) {
  // Compact: borrowed; the deleter runs when the tensor goes.
  Producer a{{1, 2, 3, 4, 5, 6}, {2, 3}, {}};
  RungTensor* t = nullptr;
  ASSERT_OK(api()->TensorFromDLPack(versioned(a), RUNG_COPY_NEVER, &t));
  const void* data = nullptr;
  EXPECT_OK(api()->TensorData(t, &data));
  EXPECT_EQ(data, static_cast<const void*>(a.data.data()));
  EXPECT_EQ(a.deleted, 0);
  api()->ReleaseTensor(t);
  EXPECT_EQ(a.deleted, 1);

  // Strided (a transposed view), copy allowed: copied row-major, the deleter runs at once.
  Producer b{{0, 1, 2, 3, 4, 5}, {3, 2}, {1, 3}};
  ASSERT_OK(api()->TensorFromDLPack(versioned(b), RUNG_COPY_IF_NEEDED, &t));
  EXPECT_EQ(b.deleted, 1);
  EXPECT_OK(api()->TensorData(t, &data));
  EXPECT_NE(data, static_cast<const void*>(b.data.data()));
  const float* f = static_cast<const float*>(data);
  EXPECT_EQ(std::vector<float>(f, f + 6), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  int32_t borrowed = 1;
  EXPECT_OK(api()->TensorIsBorrowed(t, &borrowed));
  EXPECT_EQ(borrowed, 0);
  api()->ReleaseTensor(t);
  EXPECT_EQ(b.deleted, 1);

  // Strided, copy refused: M0006; legacy struct alike.
  Producer c{{0, 1, 2, 3, 4, 5}, {3, 2}, {1, 3}};
  EXPECT_FAILS(api()->TensorFromDLPack(versioned(c), RUNG_COPY_NEVER, &t), RUNG_REFUSED, "M0006");
  EXPECT_EQ(c.deleted, 1);
  Producer d{{0, 1, 2, 3, 4, 5}, {3, 2}, {1, 3}};
  EXPECT_FAILS(api()->TensorFromDLPackLegacy(legacy(d), RUNG_COPY_NEVER, &t), RUNG_REFUSED, "M0006");
  EXPECT_EQ(d.deleted, 1);

  // An unknown major version: nothing read, only the deleter called (M0009).
  Producer e{{1}, {1}, {}};
  RungDLManagedTensorVersioned* m = versioned(e);
  m->version.major = 2;
  m->dl_tensor.ndim = -5;  // never looked at
  EXPECT_FAILS(api()->TensorFromDLPack(m, RUNG_COPY_IF_NEEDED, &t), RUNG_NOT_AVAILABLE, "M0009");
  EXPECT_EQ(e.deleted, 1);

  // Memory of another device: M0008. A dtype with lanes, or one rung lacks: M0003.
  Producer g{{1, 2}, {2}, {}};
  m = versioned(g);
  m->dl_tensor.device = {RUNG_DL_CUDA, 0};
  EXPECT_FAILS(api()->TensorFromDLPack(m, RUNG_COPY_IF_NEEDED, &t), RUNG_NOT_AVAILABLE, "M0008");
  EXPECT_EQ(g.deleted, 1);
  Producer h{{1, 2}, {2}, {}};
  m = versioned(h);
  m->dl_tensor.dtype = {RUNG_DL_FLOAT, 32, 4};
  EXPECT_FAILS(api()->TensorFromDLPack(m, RUNG_COPY_IF_NEEDED, &t), RUNG_INVALID_ARGUMENT, "M0003");
  EXPECT_EQ(h.deleted, 1);
  // A NULL out-parameter: still taken over.
  Producer k{{1, 2}, {2}, {}};
  EXPECT_FAILS(api()->TensorFromDLPack(versioned(k), RUNG_COPY_IF_NEEDED, nullptr), RUNG_INVALID_ARGUMENT, "M0007");
  EXPECT_EQ(k.deleted, 1);
  // A NULL deleter is allowed (the producer keeps the memory alive itself).
  Producer z{{7, 8}, {2}, {}};
  m = versioned(z);
  m->deleter = nullptr;
  ASSERT_OK(api()->TensorFromDLPack(m, RUNG_COPY_NEVER, &t));
  api()->ReleaseTensor(t);
  EXPECT_EQ(z.deleted, 0);
}

// --- threads and cancellation ---

const char kLoop[] =
    "module loop;\n\ntier debug;\ntolerance exact;\n\n"
    "export fn count(x: f32[4]) -> f32[4] !{io} {\n"
    "    let mut y = x;\n"
    "    for i in 0..3 {\n"
    "        print(\"step\", i);\n"
    "        y = y + 1.0;\n"
    "    }\n"
    "    y\n"
    "}\n";

// A second thread calling a session that is mid-run gets M0011 (REFUSED), not undefined
// behaviour. The print callback runs on the running thread, so the other call is made while
// the run is certainly in progress.
TEST_F(CApi, AConcurrentCallIsRefused) {
  RungProgram* p = compile(load_text(kLoop));
  ASSERT_NE(p, nullptr);
  RungSessionOptions* so = nullptr;
  ASSERT_OK(api()->CreateSessionOptions(&so));
  EXPECT_OK(api()->SessionOptionsSetHome(so, home.c_str()));
  EXPECT_OK(api()->SessionOptionsSetReceipts(so, RUNG_RECEIPTS_IGNORE));
  EXPECT_OK(api()->SessionOptionsSetWriteRecords(so, 0));
  struct Ctx {
    RungSession* session = nullptr;
    RungTensor* x = nullptr;
    int prints = 0;
    Outcome other;
    std::thread::id thread;
  } ctx;
  auto on_print = [](void* c, const char* text, uint64_t length) {
    auto* k = static_cast<Ctx*>(c);
    EXPECT_EQ(std::strlen(text), length);
    k->thread = std::this_thread::get_id();
    if (k->prints++ != 0) return;
    std::thread other([k] {
      const char* names[] = {"x"};
      const RungTensor* ins[] = {k->x};
      RungRunResult* r = nullptr;
      k->other = take(api()->SessionRun(k->session, nullptr, 1, names, ins, nullptr, &r));
      api()->ReleaseRunResult(r);
    });
    other.join();
  };
  EXPECT_OK(api()->SessionOptionsSetPrint(so, on_print, &ctx));
  RungSession* s = nullptr;
  ASSERT_OK(api()->SessionOpen(p, so, &s));
  api()->ReleaseSessionOptions(so);
  sessions.push_back(s);
  ctx.session = s;
  ctx.x = copy_f32({1, 2, 3, 4}, {4});
  RungRunResult* r = run(s, {"x"}, {ctx.x});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(ctx.prints, 3);
  EXPECT_EQ(ctx.thread, std::this_thread::get_id());  // callbacks run on the calling thread
  EXPECT_EQ(ctx.other.code, RUNG_REFUSED) << ctx.other.message;
  EXPECT_EQ(ctx.other.diag, "M0011");
}

// RunOptionsCancel from inside the run (any thread may call it): the run stops with M0012.
TEST_F(CApi, ACancelledRunSaysSo) {
  RungProgram* p = compile(load_text(kLoop));
  RungRunOptions* ro = nullptr;
  ASSERT_OK(api()->CreateRunOptions(&ro));
  RungSessionOptions* so = nullptr;
  ASSERT_OK(api()->CreateSessionOptions(&so));
  EXPECT_OK(api()->SessionOptionsSetHome(so, home.c_str()));
  EXPECT_OK(api()->SessionOptionsSetReceipts(so, RUNG_RECEIPTS_IGNORE));
  EXPECT_OK(api()->SessionOptionsSetWriteRecords(so, 0));
  RungRunOptions* to_cancel = ro;  // NULL once released: the second run's prints cancel nothing
  auto cancel = [](void* c, const char*, uint64_t) {
    if (auto* o = *static_cast<RungRunOptions**>(c)) EXPECT_OK(api()->RunOptionsCancel(o));
  };
  EXPECT_OK(api()->SessionOptionsSetPrint(so, cancel, &to_cancel));
  RungSession* s = nullptr;
  ASSERT_OK(api()->SessionOpen(p, so, &s));
  api()->ReleaseSessionOptions(so);
  sessions.push_back(s);
  Outcome f;
  EXPECT_EQ(run(s, {"x"}, {copy_f32({1, 2, 3, 4}, {4})}, &f, ro), nullptr);
  EXPECT_EQ(f.code, RUNG_CANCELLED) << f.message;
  EXPECT_EQ(f.diag, "M0012");
  api()->ReleaseRunOptions(ro);
  to_cancel = nullptr;
  // Without the options the session runs to the end.
  EXPECT_NE(run(s, {"x"}, {copy_f32({1, 2, 3, 4}, {4})}), nullptr);
}

// Programs and tensors are shared by threads; each thread has its own session.
TEST_F(CApi, ThreadsShareAProgramWithASessionEach) {
  RungProgram* p = compile(load_file(kCenter));
  RungTensor* x = copy_f32(center_x(), {3, 8});
  RungTensor* w = copy_f32(center_w(), {8, 4});
  std::vector<std::string> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      RungSessionOptions* so = nullptr;
      take(api()->CreateSessionOptions(&so));
      take(api()->SessionOptionsSetHome(so, home.c_str()));
      take(api()->SessionOptionsSetReceipts(so, RUNG_RECEIPTS_IGNORE));
      take(api()->SessionOptionsSetWriteRecords(so, 0));
      take(api()->SessionOptionsSetSetting(so, "RUNG_CPU_THREADS", "1"));
      RungSession* s = nullptr;
      Outcome o = take(api()->SessionOpen(p, so, &s));
      api()->ReleaseSessionOptions(so);
      if (o.code != RUNG_OK) return;
      const char* names[] = {"x", "w"};
      const RungTensor* ins[] = {x, w};
      RungRunResult* r = nullptr;
      if (take(api()->SessionRun(s, nullptr, 2, names, ins, nullptr, &r)).code == RUNG_OK) {
        RungTensor* y = nullptr;
        const char* h = nullptr;
        take(api()->RunResultOutputByName(r, "y", &y));
        take(api()->TensorHash(y, &h));
        if (h) got[i] = h;
        api()->ReleaseTensor(y);
      }
      api()->ReleaseRunResult(r);
      api()->ReleaseSession(s);
    });
  for (auto& t : threads) t.join();
  for (const auto& h : got) EXPECT_EQ(h, kCenterY);
}

}  // namespace

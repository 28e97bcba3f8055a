// The public C++ API (include/rung/) as a user calls it: load, compile, open, run; inputs
// borrowed without a copy; every boundary mistake a coded diagnostic; the same bits as the CLI.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <rung/record.h>
#include <rung/rung.hpp>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace rung;

namespace {

const char* kSource = R"(module scale;

tier debug;
tolerance exact;

export fn main(x: f32[N, 3], w: f32[3]) -> f32[N, 3] {
    x * w + 1.0
}
)";

struct TempHome {
  fs::path dir;
  TempHome() {
    dir = fs::temp_directory_path() / ("rung-api-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::create_directories(dir);
  }
  ~TempHome() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  Environment env() const {
    Environment e;
    e.home = (dir / "store").string();
    return e;
  }
};

Program compile_text(const std::string& text, CompileOptions co = {}) {
  auto m = Module::load(Source::text("scale.rung", text));
  EXPECT_TRUE(m.ok()) << m.diagnostics().text();
  auto p = Program::compile(*m, co);
  EXPECT_TRUE(p.ok()) << p.diagnostics().text();
  return *p;
}

SessionOptions options(const TempHome& home, std::string backend = "cpu") {
  SessionOptions so;
  so.backend = std::move(backend);
  so.environment = home.env();
  so.receipts = Receipts::ignore;
  return so;
}

Tensor f32(std::vector<std::int64_t> shape, std::vector<float> values) {
  std::vector<std::uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  auto t = Tensor::from_bytes(DType::f32, std::move(shape), std::move(bytes));
  EXPECT_TRUE(t.ok()) << t.diagnostics().text();
  return *t;
}

std::vector<float> values(const Tensor& t) {
  std::vector<float> v(t.numel());
  std::memcpy(v.data(), t.data(), v.size() * 4);
  return v;
}

}  // namespace

TEST(Api, LoadCompileRunFromSourceText) {
  TempHome home;
  Program p = compile_text(kSource);
  EXPECT_EQ(p.module_name(), "scale");
  EXPECT_EQ(p.tier(), "debug");
  ASSERT_EQ(p.entries().size(), 1u);
  EXPECT_EQ(p.entries()[0].params[0].type, "f32[N, 3]");
  EXPECT_EQ(p.entries()[0].params[0].shape, (std::vector<std::int64_t>{-1, 3}));
  auto s = Session::open(p, options(home));
  ASSERT_TRUE(s.ok()) << s.diagnostics().text();
  auto r = s->run("", {{"x", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"w", f32({3}, {2, 0.5f, -1})}});
  ASSERT_TRUE(r.ok()) << r.diagnostics().text();
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].tensor.type(), "f32[2, 3]");
  EXPECT_EQ(values(r->outputs[0].tensor), (std::vector<float>{3, 2, -2, 9, 3.5f, -5}));
  EXPECT_EQ(r->fingerprint, p.fingerprint());
  EXPECT_EQ(r->tier, "debug");
  EXPECT_FALSE(r->record.id.empty());  // written to the store
  auto found = find_record(home.env(), r->record.id.substr(0, 12));
  ASSERT_TRUE(found.ok()) << found.diagnostics().text();
  EXPECT_EQ(found->entry, "main");
  EXPECT_EQ(found->program, "scale.rung");
}

TEST(Api, ASessionServesManyRunsWithTheSameBits) {
  TempHome home;
  Program p = compile_text(kSource);
  auto so = options(home);
  so.write_records = false;
  auto s = Session::open(p, so);
  ASSERT_TRUE(s.ok());
  Inputs in{{"x", f32({1, 3}, {1, 2, 3})}, {"w", f32({3}, {1, 1, 1})}};
  std::string first;
  for (int i = 0; i < 5; ++i) {
    auto r = s->run("main", in);
    ASSERT_TRUE(r.ok()) << r.diagnostics().text();
    if (i == 0) first = r->outputs[0].tensor.hash();
    EXPECT_EQ(r->outputs[0].tensor.hash(), first);
    EXPECT_TRUE(r->record.id.empty());
  }
}

TEST(Api, BorrowedInputsAreNotCopiedAndReleasedOnce) {
  TempHome home;
  Program p = compile_text(kSource);
  auto s = Session::open(p, options(home));
  ASSERT_TRUE(s.ok());
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<std::int64_t> shape = {2, 3};
  int released = 0;
  {
    auto t = Tensor::borrow({DType::f32, shape, {}, x.data()}, [&] { ++released; });
    ASSERT_TRUE(t.ok()) << t.diagnostics().text();
    EXPECT_EQ(t->data(), x.data());  // the caller's memory itself
    EXPECT_TRUE(t->borrowed());
    auto r = s->run("main", {{"x", *t}, {"w", f32({3}, {1, 1, 1})}});
    ASSERT_TRUE(r.ok()) << r.diagnostics().text();
    EXPECT_EQ(r->stats.inputs_borrowed, 1u);
    EXPECT_EQ(r->stats.inputs_copied, 0u);
    EXPECT_EQ(values(r->outputs[0].tensor), (std::vector<float>{2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(x, (std::vector<float>{1, 2, 3, 4, 5, 6}));  // never written
    EXPECT_EQ(released, 0);  // still referenced by `t`
  }
  EXPECT_EQ(released, 1);
}

TEST(Api, StridedViewsAreCopiedOrRefused) {
  std::vector<float> m = {1, 2, 3, 4, 5, 6};  // 2x3 row-major; its transpose is strided
  std::vector<std::int64_t> shape = {3, 2}, strides = {1, 3};
  TensorView v{DType::f32, shape, strides, m.data()};
  auto refused = Tensor::borrow(v);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.diagnostics().contains("M0006")) << refused.diagnostics().text();
  auto copied = Tensor::copy(v);
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(values(*copied), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  std::vector<std::int64_t> reversed = {-1};
  std::vector<std::int64_t> three = {3};
  auto rev = Tensor::copy({DType::f32, three, reversed, m.data() + 2});
  ASSERT_TRUE(rev.ok());
  EXPECT_EQ(values(*rev), (std::vector<float>{3, 2, 1}));
}

TEST(Api, BoundaryMistakesAreCodedDiagnostics) {
  TempHome home;
  Program p = compile_text(kSource);
  auto s = Session::open(p, options(home));
  ASSERT_TRUE(s.ok());
  auto code_of = [&](const Inputs& in) {
    auto r = s->run("main", in);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string("ok") : r.diagnostics().messages().front().code;
  };
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6}), w = f32({3}, {1, 1, 1});
  EXPECT_EQ(code_of({{"x", x}, {"v", w}}), "M0001");
  EXPECT_EQ(code_of({{"x", x}}), "M0002");
  auto x64 = Tensor::from_bytes(DType::f64, {2, 3}, std::vector<std::uint8_t>(48));
  EXPECT_EQ(code_of({{"x", *x64}, {"w", w}}), "M0003");
  EXPECT_EQ(code_of({{"x", x}, {"w", f32({4}, {1, 1, 1, 1})}}), "M0004");
  EXPECT_EQ(code_of({{"x", f32({6}, {1, 2, 3, 4, 5, 6})}, {"w", w}}), "M0004");
  std::vector<std::int64_t> neg = {-2};
  auto bad = Tensor::copy({DType::f32, neg, {}, nullptr});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.diagnostics().contains("M0007"));
  std::vector<std::int64_t> four = {4};
  auto null = Tensor::borrow({DType::f32, four, {}, nullptr});
  ASSERT_FALSE(null.ok());
  EXPECT_TRUE(null.diagnostics().contains("M0007"));
  auto wrong_len = Tensor::from_bytes(DType::f32, {2}, std::vector<std::uint8_t>(7));
  EXPECT_TRUE(wrong_len.diagnostics().contains("M0007"));
  auto gpu = Tensor::borrow({DType::f32, four, {}, w.data(), {DeviceKind::cuda, 0}});
  EXPECT_TRUE(gpu.diagnostics().contains("M0008"));
  // After errors the session still runs.
  auto ok = s->run("main", {{"x", x}, {"w", w}});
  EXPECT_TRUE(ok.ok()) << ok.diagnostics().text();
}

TEST(Api, SourceErrorsCarryALocation) {
  auto m = Module::load(Source::text("broken.rung", "module b;\ntier debug;\n\nexport fn main() -> f32 {\n    undefined_name\n}\n"));
  ASSERT_FALSE(m.ok());
  const Message& e = m.diagnostics().messages().front();
  EXPECT_EQ(e.severity, Severity::Error);
  ASSERT_TRUE(e.location.has_value());
  EXPECT_EQ(e.location->file, "broken.rung");
  EXPECT_EQ(e.location->line, 5u);
  EXPECT_NE(m.diagnostics().text().find("undefined_name"), std::string::npos);
  EXPECT_NE(m.diagnostics().json().find("\"line\": 5"), std::string::npos);
}

TEST(Api, DeterminismIsNeverDefaulted) {
  TempHome home;
  // A bare graph declares no tier: the caller must give one.
  fs::path keg = home.dir / "bare.keg";
  {
    auto m = Module::load(Source::text("s.rung", kSource));
    ASSERT_TRUE(m.ok());
  }
  auto unknown = Program::compile(*Module::load(Source::text("s.rung", kSource)), {std::string("debg")});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(unknown.diagnostics().contains("C0012"));
  EXPECT_NE(unknown.diagnostics().text().find("did you mean `debug`"), std::string::npos);
  auto over = Program::compile(*Module::load(Source::text("s.rung", kSource)), {std::string("prod")});
  ASSERT_TRUE(over.ok());
  EXPECT_TRUE(over.diagnostics().contains("C0016"));  // said, never silent
  EXPECT_EQ(over->tier(), "prod");
}

TEST(Api, EntryChoiceIsChecked) {
  Program p = compile_text(kSource);
  EXPECT_TRUE(p.entry("").ok());
  auto typo = p.entry("mainn");
  ASSERT_FALSE(typo.ok());
  EXPECT_TRUE(typo.diagnostics().contains("X0004"));
  EXPECT_NE(typo.diagnostics().text().find("did you mean `main`"), std::string::npos);
}

TEST(Api, CancelStopsALongRun) {
  TempHome home;
  const char* loop = R"(module spin;

tier debug;
tolerance exact;

export fn main() -> f32 {
    let mut acc: f32 = 0.0;
    for i in 0..100000000 {
        acc = acc + 1.0;
    }
    acc
}
)";
  Program p = compile_text(loop);
  auto s = Session::open(p, options(home));
  ASSERT_TRUE(s.ok()) << s.diagnostics().text();
  std::atomic<bool> cancel{false};
  RunOptions ro;
  ro.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  auto r = s->run("main", {}, ro);
  stopper.join();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.diagnostics().contains("M0012")) << r.diagnostics().text();
}

TEST(Api, AConcurrentCallOnOneSessionIsRefused) {
  TempHome home;
  const char* loop = R"(module spin;

tier debug;
tolerance exact;

export fn main() -> f32 {
    let mut acc: f32 = 0.0;
    for i in 0..100000000 {
        acc = acc + 1.0;
    }
    acc
}
)";
  Program p = compile_text(loop);
  auto s = Session::open(p, options(home));
  ASSERT_TRUE(s.ok());
  std::atomic<bool> cancel{false};
  RunOptions ro;
  ro.cancel = &cancel;
  auto first = std::async(std::launch::async, [&] { return s->run("main", {}, ro); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto second = s->run("main", {});
  cancel = true;
  first.get();
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.diagnostics().contains("M0011"));
}

TEST(Api, ProgramPrintsAndLoopProgressReachTheCallbacks) {
  TempHome home;
  const char* src = R"(module talk;

tier debug;
tolerance exact;

export fn main() -> f32 !io {
    print("hello", 2.0);
    3.0
}
)";
  Program p = compile_text(src);
  auto so = options(home);
  std::string printed;
  so.print = [&](std::string_view t) { printed += t; };
  auto s = Session::open(p, so);
  ASSERT_TRUE(s.ok()) << s.diagnostics().text();
  auto r = s->run("main", {});
  ASSERT_TRUE(r.ok()) << r.diagnostics().text();
  EXPECT_NE(printed.find("hello"), std::string::npos) << printed;
  EXPECT_EQ(printed.back(), '\n');
}

// Same program, same inputs: the C++ API gives the output hash and fingerprint `rung run` prints.
TEST(Api, SameBitsAsTheCli) {
  TempHome home;
  fs::path prog = home.dir / "scale.rung";
  std::ofstream(prog) << kSource;
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6}), w = f32({3}, {2, 0.5f, -1});
  ASSERT_TRUE(x.save_npy((home.dir / "x.npy").string()).ok());
  ASSERT_TRUE(w.save_npy((home.dir / "w.npy").string()).ok());
  auto m = Module::load(Source::file(prog.string()));
  ASSERT_TRUE(m.ok());
  auto p = Program::compile(*m, {});
  auto s = Session::open(*p, options(home));
  auto r = s->run("main", {{"x", x}, {"w", w}});
  ASSERT_TRUE(r.ok()) << r.diagnostics().text();
  std::string out = (home.dir / "cli.txt").string();
  std::string cmd = "RUNG_HOME='" + (home.dir / "store").string() + "' '" RUNG_CLI "' run --backend cpu --receipts ignore '" +
                    prog.string() + "' --arg x='" + (home.dir / "x.npy").string() + "' --arg w='" +
                    (home.dir / "w.npy").string() + "' > '" + out + "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream f(out);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("fingerprint  " + r->fingerprint), std::string::npos) << text;
  EXPECT_NE(text.find("sha3 " + r->outputs[0].tensor.hash()), std::string::npos) << text;
}

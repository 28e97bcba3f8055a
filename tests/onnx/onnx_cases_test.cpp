// Each ONNX handler against NumPy: every folder of tests/onnx/cases (make_cases.py) holds a
// model, its inputs and the outputs NumPy computes; rung imports the model through the public
// API, runs it on the reference and cpu backends in tier debug, and must give the same dtype,
// shape and values (integers and bools exactly; floats within the node tests' rule, tightened
// to rtol 1e-5: the decompositions follow the ONNX reference's order of operations). A case's
// bind_NAME.npy is bound to the graph input NAME at import (LoadOptions::bind).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <rung/onnx.h>
#include <rung/rung.hpp>

namespace fs = std::filesystem;
using namespace rung;

namespace {

const fs::path kCases = fs::path(RUNG_SOURCE_DIR) / "tests/onnx/cases";

std::vector<std::string> case_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kCases))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

double element(const Tensor& t, std::size_t i) {
  if (t.dtype() == DType::f32) {
    float v;
    std::memcpy(&v, static_cast<const char*>(t.data()) + 4 * i, 4);
    return v;
  }
  double v;
  std::memcpy(&v, static_cast<const char*>(t.data()) + 8 * i, 8);
  return v;
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(dtype_name(got.dtype()), dtype_name(want.dtype())) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (want.dtype() != DType::f32 && want.dtype() != DType::f64) {
    ASSERT_EQ(got.byte_size(), want.byte_size()) << what;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.byte_size()), 0) << what << ": values differ";
    return;
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(want.numel()); ++i) {
    double g = element(got, i), w = element(want, i);
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << "[" << i << "]: got " << g << ", want NaN";
      continue;
    }
    if (g == w) continue;  // equal infinities too (their difference is NaN)
    EXPECT_LE(std::fabs(g - w), 1e-6 + 1e-5 * std::fabs(w)) << what << "[" << i << "]: got " << g << ", want " << w;
  }
}

class OnnxCase : public ::testing::TestWithParam<std::string> {};

// The case's bind_NAME.npy files as LoadOptions::bind.
LoadOptions bindings_of(const fs::path& dir) {
  LoadOptions lo;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("bind_", 0) == 0) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto t = Tensor::load_npy(f.string());
    EXPECT_TRUE(t.ok()) << t.diagnostics().text();
    if (t) lo.bind.emplace_back(f.stem().string().substr(5), *t);
  }
  return lo;
}

Tensor i64s(std::vector<std::int64_t> v) {
  std::vector<std::uint8_t> bytes(v.size() * 8);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return *Tensor::from_bytes(DType::i64, {static_cast<std::int64_t>(v.size())}, std::move(bytes));
}

TEST_P(OnnxCase, MatchesNumpy) {
  fs::path dir = kCases / GetParam();
  auto m = Module::load(Source::file((dir / "model.onnx").string()), bindings_of(dir));
  ASSERT_TRUE(m.ok()) << m.diagnostics().text();
  EXPECT_EQ(m->kind(), SourceKind::onnx);
  EXPECT_TRUE(m->declared_tier().empty());  // an ONNX model declares no determinism
  auto p = Program::compile(*m, CompileOptions{"debug", "exact", std::nullopt});
  ASSERT_TRUE(p.ok()) << p.diagnostics().text();
  auto entry = p->entry();
  ASSERT_TRUE(entry.ok()) << entry.diagnostics().text();
  EXPECT_EQ(entry->name, "main");
  Inputs inputs;
  for (std::size_t k = 0; k < entry->params.size(); ++k) {
    auto t = Tensor::load_npy((dir / ("in_" + std::to_string(k) + ".npy")).string());
    ASSERT_TRUE(t.ok()) << t.diagnostics().text();
    inputs.push_back({entry->params[k].name, *t, ""});
  }
  for (const char* backend : {"reference", "cpu"}) {
    SessionOptions so;
    so.backend = backend;
    so.receipts = Receipts::ignore;
    so.write_records = false;
    auto s = Session::open(*p, so);
    ASSERT_TRUE(s.ok()) << s.diagnostics().text();
    auto r = s->run("main", inputs);
    ASSERT_TRUE(r.ok()) << backend << ": " << r.diagnostics().text();
    ASSERT_EQ(r->outputs.size(), entry->results.size());
    for (std::size_t k = 0; k < r->outputs.size(); ++k) {
      auto want = Tensor::load_npy((dir / ("out_" + std::to_string(k) + ".npy")).string());
      ASSERT_TRUE(want.ok()) << want.diagnostics().text();
      expect_close(r->outputs[k].tensor, *want, std::string(backend) + " output " + r->outputs[k].name);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, OnnxCase, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(OnnxImport, EveryCaseFolderIsAHandlerInTheList) {
  // The committed cases cover the handler table: each op in --list-ops has a case folder
  // whose name starts with the op's name in lower case.
  auto names = case_names();
  for (const auto& h : onnx_handlers()) {
    std::string op = h.op_type;
    std::transform(op.begin(), op.end(), op.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    bool found = std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n.rfind(op, 0) == 0; });
    EXPECT_TRUE(found) << h.op_type << " has no case in tests/onnx/cases";
  }
}

TEST(OnnxImport, SymbolicDimsStaySymbols) {
  auto m = Module::load(Source::file((kCases / "symbolic_batch/model.onnx").string()));
  ASSERT_TRUE(m.ok()) << m.diagnostics().text();
  auto f = m->functions();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].params[0].type, "f32[batch, 3]");
  EXPECT_EQ(f[0].results[0].type, "f32[batch]");
  EXPECT_EQ(f[0].results[0].name, "y");  // the ONNX output's name
}

TEST(OnnxImport, DimsBoundAtImportBecomeExtents) {
  LoadOptions lo;
  lo.dims = {"batch=5"};
  auto m = Module::load(Source::file((kCases / "symbolic_batch/model.onnx").string()), lo);
  ASSERT_TRUE(m.ok()) << m.diagnostics().text();
  EXPECT_EQ(m->functions()[0].params[0].type, "f32[5, 3]");
  EXPECT_EQ(m->functions()[0].results[0].type, "f32[5]");
  lo.dims = {"nobody=3"};  // a binding no input uses: said, not ignored
  auto w = Module::load(Source::file((kCases / "symbolic_batch/model.onnx").string()), lo);
  ASSERT_TRUE(w.ok()) << w.diagnostics().text();
  EXPECT_TRUE(w.diagnostics().contains("I0012"));
  lo.dims = {"batch"};
  auto bad = Module::load(Source::file((kCases / "symbolic_batch/model.onnx").string()), lo);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.diagnostics().contains("C0020")) << bad.diagnostics().text();
}

TEST(OnnxImport, BoundInputsAreConstantsNotParameters) {
  auto m = Module::load(Source::file((kCases / "slice_bound/model.onnx").string()), bindings_of(kCases / "slice_bound"));
  ASSERT_TRUE(m.ok()) << m.diagnostics().text();
  auto f = m->functions();
  ASSERT_EQ(f[0].params.size(), 1u);
  EXPECT_EQ(f[0].params[0].name, "x");
  EXPECT_EQ(f[0].results[0].type, "f32[2, 3]");
}

TEST(OnnxImport, AShapeOperandFromAGraphInputIsI0012NamingTheInputToBind) {
  auto model = Source::file((kCases / "reshape_bound/model.onnx").string());
  auto m = Module::load(model);
  ASSERT_FALSE(m.ok());
  const auto& all = m.diagnostics().messages();
  auto it = std::find_if(all.begin(), all.end(), [](const Message& d) { return d.code == "I0012"; });
  ASSERT_NE(it, all.end()) << m.diagnostics().text();
  const Message& e = *it;
  EXPECT_NE(e.text.find("graph.node[0] \"Reshape_0\""), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("computed at run time from the graph input \"s\""), std::string::npos) << e.text;
  bool suggested = std::any_of(e.notes.begin(), e.notes.end(), [](const std::string& n) {
    return n.rfind("bind the graph input \"s\" at import: --bind s=FILE.npy", 0) == 0;
  });
  EXPECT_TRUE(suggested) << m.diagnostics().text();
  // Through an Add that cannot fold: the input it comes from is named, then the next one.
  auto slice = Source::file((kCases / "slice_bound/model.onnx").string());
  auto s = Module::load(slice);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.diagnostics().text().find("starts (input 1) is computed at run time from the graph input \"st0\""), std::string::npos)
      << s.diagnostics().text();
  LoadOptions lo;
  lo.bind.emplace_back("st0", i64s({0, 1}));
  auto half = Module::load(slice, lo);
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.diagnostics().text().find("ends (input 2) is computed at run time from the graph input \"en\""), std::string::npos)
      << half.diagnostics().text();
}

TEST(OnnxImport, BindingsAreCheckedAgainstTheDeclaredInputs) {
  auto model = Source::file((kCases / "reshape_bound/model.onnx").string());
  auto refused = [&](std::vector<std::pair<std::string, Tensor>> bind, const char* code, const char* says) {
    LoadOptions lo;
    lo.bind = std::move(bind);
    auto m = Module::load(model, lo);
    ASSERT_FALSE(m.ok()) << says;
    ASSERT_TRUE(m.diagnostics().contains(code)) << m.diagnostics().text();
    EXPECT_NE(m.diagnostics().text().find(says), std::string::npos) << m.diagnostics().text();
  };
  refused({{"shape", i64s({4, -1})}}, "I0013", "--bind \"shape\": the graph has no input of that name");
  refused({{"s", i64s({4, -1})}, {"s", i64s({4, -1})}}, "I0013", "the input is bound twice");
  refused({{"s", i64s({4, -1, 1})}}, "I0011", "the value is i64[3], the input is declared i64[2]");
  std::vector<std::uint8_t> f32(8);
  refused({{"s", *Tensor::from_bytes(DType::f32, {2}, f32)}}, "I0011", "the value is f32[2], the input is declared i64");
  // An initializer also listed as an input keeps the model's value.
  LoadOptions lo;
  lo.bind.emplace_back("s", i64s({4, 6}));
  auto d = Module::load(Source::file((kCases / "reshape_default/model.onnx").string()), lo);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.diagnostics().text().find("graph.input[1] \"s\" is also an initializer"), std::string::npos) << d.diagnostics().text();
  // --bind is for .onnx models only.
  auto keg = Module::load(Source::text("m.rung", "module m;\n"), lo);
  ASSERT_FALSE(keg.ok());
  EXPECT_TRUE(keg.diagnostics().contains("C0020")) << keg.diagnostics().text();
}

TEST(OnnxImport, ImportWritesAKegWithProvenance) {
  fs::path out = fs::temp_directory_path() / ("rung-onnx-import-" + std::to_string(::getpid()) + ".keg");
  OnnxImportOptions o;
  o.output = out.string();
  auto r = import_onnx(Source::file((kCases / "gemm/model.onnx").string()), o);
  ASSERT_TRUE(r.ok()) << r.diagnostics().text();
  EXPECT_EQ(r->ir_version, 8);
  EXPECT_EQ(r->producer, "make_cases.py 1");
  ASSERT_EQ(r->opsets.size(), 1u);
  EXPECT_EQ(r->opsets[0], (std::pair<std::string, std::int64_t>{"ai.onnx", 17}));
  EXPECT_NE(r->provenance.find("\"format\":\"onnx\""), std::string::npos) << r->provenance;
  // The .keg runs like the model, and a program saved from it keeps the provenance.
  auto m = Module::load(Source::file(out.string()));
  ASSERT_TRUE(m.ok()) << m.diagnostics().text();
  auto p = Program::compile(*m, CompileOptions{"debug", "exact", std::nullopt});
  ASSERT_TRUE(p.ok()) << p.diagnostics().text();
  EXPECT_EQ(p->graph_fingerprint(), r->graph_fingerprint);
  auto bytes = p->serialize();
  ASSERT_TRUE(bytes.ok());
  std::string text(bytes->begin(), bytes->end());
  EXPECT_NE(text.find("\"producer\":\"make_cases.py\""), std::string::npos);
  fs::remove(out);
}

TEST(OnnxImport, SameBytesSameFingerprint) {
  // Importing is deterministic: the same model twice gives the same program.
  auto a = Module::load(Source::file((kCases / "layernormalization/model.onnx").string()));
  auto b = Module::load(Source::file((kCases / "layernormalization/model.onnx").string()));
  ASSERT_TRUE(a.ok() && b.ok());
  auto pa = Program::compile(*a, CompileOptions{"debug", "exact", std::nullopt});
  auto pb = Program::compile(*b, CompileOptions{"debug", "exact", std::nullopt});
  ASSERT_TRUE(pa.ok() && pb.ok());
  EXPECT_EQ(pa->fingerprint(), pb->fingerprint());
}

}  // namespace

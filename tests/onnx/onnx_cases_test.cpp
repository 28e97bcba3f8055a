// Each ONNX handler against NumPy: every folder of tests/onnx/cases (make_cases.py) holds a
// model, its inputs and the outputs NumPy computes; rung imports the model through the public
// API, runs it on the reference and cpu backends in tier debug, and must give the same dtype,
// shape and values (integers and bools exactly; floats within the node tests' rule, tightened
// to rtol 1e-5: the decompositions follow the ONNX reference's order of operations).
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
    EXPECT_LE(std::fabs(g - w), 1e-6 + 1e-5 * std::fabs(w)) << what << "[" << i << "]: got " << g << ", want " << w;
  }
}

class OnnxCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxCase, MatchesNumpy) {
  fs::path dir = kCases / GetParam();
  auto m = Module::load(Source::file((dir / "model.onnx").string()));
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

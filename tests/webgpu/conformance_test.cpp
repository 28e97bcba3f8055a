// WebGPU conformance on the adapter the environment gives (SwiftShader in CI: the CMake file
// sets RUNG_WEBGPU_ADAPTER=swiftshader). Every op of the registry either has a WGSL kernel
// and a sample case here, checked against the reference within the class WebGPU promises
// (backend.h: the op's prod class in debug), and checked bit-stable run to run; or it is in
// the declared list of missing kernels, which must equal the registry's answer. No adapter
// is a failure, never a skip.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>

#include "adapter_settings.h"
#include "backends/webgpu/backend.h"
#include "ir/graph/type_parse.h"
#include "op_cases.h"
#include "ops/compare.h"
#include "ops/evaluate.h"

namespace rung::webgpu {
namespace {

// Ops without a WebGPU kernel, and why (docs/backend-webgpu.md repeats this list).
const std::map<std::string, std::string> kMissing = {};

runtime::OpBackend* backend() {
  static std::unique_ptr<runtime::OpBackend> b = [] {
    DiagnosticSink d;
    auto be = make_webgpu_backend(ops::Tier::prod, d, test_adapter_settings());
    for (const auto& x : d.all()) ADD_FAILURE() << x.code << ": " << x.message;
    return be;
  }();
  return b.get();
}

struct Maker {
  std::mt19937 rng{20261129};

  ops::HostTensor random(DType t, const ops::Extents& shape, bool positive, std::int64_t bound, bool small = false,
                         bool sparse = false) {
    ops::HostTensor h(t, shape);
    std::uniform_real_distribution<float> f(positive ? 0.05f : small ? -0.5f : -3.0f, small ? 0.5f : 3.0f);
    std::uniform_int_distribution<std::int64_t> n(bound > 0 ? 0 : -100, bound > 0 ? bound - 1 : 100);
    for (std::uint64_t i = 0; i < h.numel(); ++i) {
      if (t == DType::boolean) h.store_bool(i, (rng() & 1) != 0);
      else if (t == DType::f32 || t == DType::f16 || t == DType::bf16) h.store_f32(i, f(rng));
      else h.store_int(i, static_cast<std::uint64_t>(n(rng)));
      if (sparse) {  // two thirds zeros (+0 and -0, both dropped by csr_from_dense), a few NaN (kept)
        std::uint32_t r = rng() % 30;
        if (r < 10) h.store_f32(i, 0.0f);
        else if (r < 20) h.store_f32(i, -0.0f);
        else if (r == 20) h.store_f32(i, std::nanf(""));
      }
    }
    return h;
  }

  // Appends the operands a spec stands for.
  void make(const std::string& spec, std::vector<ops::HostTensor>& out) {
    if (spec == "pows") {
      float p[2] = {0.729f, 0.997003f};
      out.push_back(ops::HostTensor::from_f32({2}, p));
      return;
    }
    std::string s = spec;
    bool positive = false, small = false, sparse = false;
    std::int64_t bound = 0;
    std::size_t br = s.find('[');
    std::string head = s.substr(0, br), dims = br == std::string::npos ? "" : s.substr(br);
    if (auto p = head.find('+'); p != std::string::npos) {
      positive = true;
      head.erase(p, 1);
    }
    if (auto p = head.find('~'); p != std::string::npos) {
      small = true;
      head.erase(p, 1);
    }
    if (auto p = head.find('%'); p != std::string::npos) {
      sparse = true;
      head.erase(p, 1);
    }
    if (auto p = head.find('<'); p != std::string::npos) {
      bound = std::stoll(head.substr(p + 1));
      head.erase(p);
    }
    std::string err;
    if (head == "csr") {
      auto tt = parse_type("f32" + dims, err);
      std::uint64_t M = tt->shape[0].extent(), K = tt->shape[1].extent();
      std::vector<std::int64_t> indptr{0}, indices;
      for (std::uint64_t r = 0; r < M; ++r) {
        for (std::uint64_t c = 0; c < K; ++c)
          if ((rng() % 3) == 0) indices.push_back(static_cast<std::int64_t>(c));
        indptr.push_back(static_cast<std::int64_t>(indices.size()));
      }
      out.push_back(ops::HostTensor::from_i64({indptr.size()}, indptr));
      out.push_back(ops::HostTensor::from_i64({indices.size()}, indices));
      out.push_back(random(DType::f32, {indices.size()}, false, 0));
      return;
    }
    if (head == "q8_0" || head == "q4_0") {
      auto tt = parse_type("f32" + dims, err);
      ops::Extents ext;
      for (const auto& d : tt->shape) ext.push_back(d.extent());
      ops::HostTensor x = random(DType::f32, ext, false, 0);
      DiagnosticSink d;
      auto q = ops::evaluate("quantize", std::span(&x, 1), {{"to", head == "q8_0" ? DType::q8_0 : DType::q4_0}}, d);
      out.push_back((*q)[0]);
      return;
    }
    auto tt = parse_type(head + dims, err);
    ASSERT_TRUE(tt) << spec << ": " << err;
    ops::Extents ext;
    for (const auto& d : tt->shape) ext.push_back(d.extent());
    out.push_back(random(tt->dtype, ext, positive, bound, small, sparse));
  }
};

TEST(WebGpu, AdapterIsRealAndDescribed) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr) << "no WebGPU adapter: SwiftShader (chromium-common) and libwebgpu_wrapper.so (scripts/setup.sh) are required";
  auto p = b->profile();
  EXPECT_EQ(p.backend, "webgpu");
  EXPECT_FALSE(p.device.empty());
  EXPECT_NE(p.facts.at("api_backend"), "null");
  EXPECT_EQ(p.facts.at("bit_exact_across_devices"), "no");
  std::printf("adapter: %s\n", p.to_string().c_str());
}

TEST(WebGpu, MissingKernelsAreExactlyTheDeclaredOnes) {
  ASSERT_NE(backend(), nullptr);
  std::set<std::string> missing;
  for (const auto* op : ops::op_registry().missing_kernels(ops::Backend::webgpu)) missing.insert(op->name);
  std::set<std::string> declared;
  for (const auto& [name, why] : kMissing) declared.insert(name);
  EXPECT_EQ(missing, declared);
}

TEST(WebGpu, EveryOpWithAKernelHasACase) {
  std::set<std::string> with_case;
  for (const auto& c : testing::op_cases()) with_case.insert(c.op);
  for (const auto* op : ops::op_registry().all())
    if (!kMissing.count(op->name)) {
      EXPECT_TRUE(with_case.count(op->name)) << op->name << " has a WebGPU kernel but no conformance case";
    }
}

// Cases [first, last) of `all` (eight tests keep op_cases under the CI's per-test budget).
void check_cases(const std::vector<testing::OpCase>& all, std::size_t part, std::size_t parts) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr);
  Maker mk;
  int passed = 0, failed = 0;
  std::size_t first = all.size() * part / parts, last = all.size() * (part + 1) / parts;
  for (std::size_t ci = first; ci < last; ++ci) {
    const auto& c = all[ci];
    auto t0 = std::chrono::steady_clock::now();
    const ops::OpDef* op = ops::op_registry().find(c.op);
    ASSERT_NE(op, nullptr) << c.op;
    std::vector<ops::HostTensor> in;
    for (const auto& s : c.inputs) mk.make(s, in);
    DiagnosticSink rd, wd, wd2;
    ops::EvalOptions eo;
    eo.tier = ops::Tier::prod;
    auto ref = ops::evaluate(*op, in, c.attrs, rd, eo);
    ASSERT_TRUE(ref) << c.op << ": reference refused: " << (rd.empty() ? "" : rd.all()[0].message);
    auto got = b->run_op(*op, in, c.attrs, wd);
    std::string name = c.op + (c.label.empty() ? "" : " (" + c.label + ")");
    if (!got) {
      ADD_FAILURE() << name << ": WebGPU failed: " << (wd.empty() ? "?" : wd.all()[0].code + " " + wd.all()[0].message);
      ++failed;
      continue;
    }
    ASSERT_EQ(got->size(), ref->size()) << name;
    ops::TolClass cls = tolerance_class(*op, ops::Tier::debug);
    bool ok = true;
    for (std::size_t i = 0; i < ref->size(); ++i) {
      ops::Verdict v = ops::compare((*got)[i], (*ref)[i], cls, ops::Tier::prod);
      if (!v.pass) {
        ok = false;
        ADD_FAILURE() << name << " output " << i << ": " << v.summary();
      }
    }
    // Fixed order: the same device gives the same bits run to run.
    auto again = b->run_op(*op, in, c.attrs, wd2);
    ASSERT_TRUE(again) << name;
    for (std::size_t i = 0; i < got->size(); ++i) EXPECT_TRUE((*again)[i].identical((*got)[i])) << name << ": not bit-stable";
    ok ? ++passed : ++failed;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms > 2000) std::printf("  slow case: %s took %.0f ms\n", name.c_str(), ms);
  }
  std::printf("webgpu conformance part %zu/%zu: %d passed, %d failed (class: each op's prod class)\n", part + 1, parts, passed, failed);
}

TEST(WebGpu, EveryOpAgreesWithTheReferencePart1) { check_cases(testing::op_cases(), 0, 8); }
TEST(WebGpu, EveryOpAgreesWithTheReferencePart2) { check_cases(testing::op_cases(), 1, 8); }
TEST(WebGpu, EveryOpAgreesWithTheReferencePart3) { check_cases(testing::op_cases(), 2, 8); }
TEST(WebGpu, EveryOpAgreesWithTheReferencePart4) { check_cases(testing::op_cases(), 3, 8); }
TEST(WebGpu, EveryOpAgreesWithTheReferencePart5) { check_cases(testing::op_cases(), 4, 8); }
TEST(WebGpu, EveryOpAgreesWithTheReferencePart6) { check_cases(testing::op_cases(), 5, 8); }
TEST(WebGpu, EveryOpAgreesWithTheReferencePart7) { check_cases(testing::op_cases(), 6, 8); }
TEST(WebGpu, EveryOpAgreesWithTheReferencePart8) { check_cases(testing::op_cases(), 7, 8); }
TEST(WebGpu, ZeroExtentsAgreeWithTheReference) { check_cases(testing::zero_extent_cases(), 0, 1); }
// Unsigned targets with ignore_index (the WGSL literal once read `2uu` and did not compile).
TEST(WebGpu, CrossEntropyUnsignedTargetsWithIgnoreIndex) {
  check_cases({{"cross_entropy", {"f32[5,7]", "u32<7[5]"}, {{"ignore_index", std::int64_t{2}}}, "u32 targets"},
               {"cross_entropy", {"f32[5,7]", "u8<7[5]"}, {{"ignore_index", std::int64_t{0}}, {"reduction", "none"}}, "u8 targets"}},
              0, 1);
}

TEST(WebGpu, BadIndicesAreRefusedLikeTheReference) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr);
  const ops::OpDef* op = ops::op_registry().find("gather");
  std::vector<ops::HostTensor> in;
  float x[6] = {1, 2, 3, 4, 5, 6};
  std::int64_t idx[2] = {1, 7};
  in.push_back(ops::HostTensor::from_f32({3, 2}, x));
  in.push_back(ops::HostTensor::from_i64({2}, idx));
  DiagnosticSink d;
  EXPECT_FALSE(b->run_op(*op, in, {}, d));
  EXPECT_TRUE(d.contains("N0012"));
}

// u64 has 32 bits on the device: a negative signed value cast to u64 (2^64 + v) is refused
// with A0010, never returned as 2^32 + v; non-negative values give the reference's bits.
TEST(WebGpu, SignedToU64CastRefusesNegativesAndKeepsTheRest) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr);
  const ops::OpDef* op = ops::op_registry().find("cast");
  AttrMap attrs{{"to", DType::u64}};
  auto ints = [](DType t, std::vector<std::int64_t> v) {
    ops::HostTensor h(t, {static_cast<std::uint64_t>(v.size())});
    for (std::size_t i = 0; i < v.size(); ++i) h.store_int(i, static_cast<std::uint64_t>(v[i]));
    return h;
  };
  for (DType t : {DType::i16, DType::i32}) {
    std::vector<ops::HostTensor> neg = {ints(t, {3, -1, 0})};
    DiagnosticSink d;
    EXPECT_FALSE(b->run_op(*op, neg, attrs, d));
    EXPECT_TRUE(d.contains("A0010"));
    std::vector<ops::HostTensor> pos = {ints(t, {3, 0, 32767})};
    DiagnosticSink d2, rd;
    auto got = b->run_op(*op, pos, attrs, d2);
    auto ref = ops::evaluate(*op, pos, attrs, rd);
    ASSERT_TRUE(got && ref);
    EXPECT_TRUE((*got)[0].identical((*ref)[0]));
  }
}

// add and sub on i64/u64 (held in 32 bits): a result the 32 bits cannot hold is A0010, never
// a value wrapped at the wrong width; results that fit are the reference's.
TEST(WebGpu, WideIntegerAddRefusesOverflowAndKeepsTheRest) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr);
  auto ints = [](DType t, std::vector<std::int64_t> v) {
    ops::HostTensor h(t, {static_cast<std::uint64_t>(v.size())});
    for (std::size_t i = 0; i < v.size(); ++i) h.store_int(i, static_cast<std::uint64_t>(v[i]));
    return h;
  };
  struct Case {
    const char* op;
    DType t;
    std::vector<std::int64_t> a, b;
    bool fits;
  };
  const std::int64_t top = 2147483647, bottom = -2147483648LL;
  for (const Case& c : {Case{"add", DType::i64, {top, 1}, {1, 2}, false}, Case{"sub", DType::i64, {bottom, 5}, {1, 7}, false},
                        Case{"add", DType::i64, {top - 1, -4}, {1, bottom + 4}, true},
                        Case{"sub", DType::u64, {3, 9}, {4, 1}, false}, Case{"add", DType::u64, {4294967294LL, 0}, {1, 0}, true}}) {
    const ops::OpDef* op = ops::op_registry().find(c.op);
    std::vector<ops::HostTensor> in = {ints(c.t, c.a), ints(c.t, c.b)};
    DiagnosticSink d, rd;
    auto got = b->run_op(*op, in, {}, d);
    if (!c.fits) {
      EXPECT_FALSE(got) << c.op << " " << dtype_name(c.t);
      EXPECT_TRUE(d.contains("A0010")) << (d.empty() ? std::string() : d.last().code + " " + d.last().message);
      continue;
    }
    auto ref = ops::evaluate(*op, in, {}, rd);
    ASSERT_TRUE(got && ref) << (d.empty() ? std::string() : d.last().code + " " + d.last().message);
    EXPECT_TRUE((*got)[0].identical((*ref)[0])) << c.op << " " << dtype_name(c.t);
  }
}

// csr_from_coo validates in its first program: a bad row is N0012 before any count is read.
TEST(WebGpu, CooOutOfRangeIsRefusedLikeTheReference) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr);
  const ops::OpDef* op = ops::op_registry().find("csr_from_coo");
  std::int64_t rows[3] = {0, 3, 1}, cols[3] = {1, 0, 1};
  float v[3] = {1, 2, 3};
  std::vector<ops::HostTensor> in = {ops::HostTensor::from_i64({3}, rows), ops::HostTensor::from_i64({3}, cols),
                                     ops::HostTensor::from_f32({3}, v)};
  AttrMap attrs{{"n_rows", std::int64_t{3}}, {"n_cols", std::int64_t{2}}};
  DiagnosticSink d, rd;
  EXPECT_FALSE(b->run_op(*op, in, attrs, d));
  EXPECT_TRUE(d.contains("N0012"));
  EXPECT_FALSE(ops::evaluate(*op, in, attrs, rd));
}

// An all-zero matrix has nnz = 0: empty indices and values, indptr all zero.
TEST(WebGpu, CsrFromDenseOfZerosIsEmpty) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr);
  const ops::OpDef* op = ops::op_registry().find("csr_from_dense");
  float z[6] = {0, -0.0f, 0, 0, 0, -0.0f};
  std::vector<ops::HostTensor> in = {ops::HostTensor::from_f32({2, 3}, z)};
  DiagnosticSink d;
  auto got = b->run_op(*op, in, {}, d);
  ASSERT_TRUE(got) << (d.empty() ? "" : d.all()[0].message);
  EXPECT_EQ((*got)[1].numel(), 0u);
  EXPECT_EQ((*got)[2].numel(), 0u);
  for (std::uint64_t r = 0; r < 3; ++r) EXPECT_EQ((*got)[0].load_i64(r), 0);
}

}  // namespace
}  // namespace rung::webgpu

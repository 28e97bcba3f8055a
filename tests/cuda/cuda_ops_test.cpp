// The CUDA backend against the reference: every op the backend implements, on awkward
// shapes and special values, must give the reference's bits in tier debug (0 differing
// bits), and matmul in tier fast must stay inside its tolerance class. Without a GPU the
// device tests skip loudly and the factory's diagnostic is checked instead.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "backends/reference/reference_backend.h"
#include "conformance/receipt.h"
#include "cuda_cases.h"
#include "ops/compare.h"
#include "ir/graph/builder.h"
#include "ops/evaluate.h"
#include "runtime/backend_registry.h"

namespace rung {
namespace {

std::unique_ptr<runtime::OpBackend> make(ops::Tier tier, DiagnosticSink& d) {
  return runtime::backend_registry().create("cuda", tier, d, {});
}

#define REQUIRE_GPU(backend)                                                                             \
  DiagnosticSink diags_;                                                                                 \
  auto backend = make(ops::Tier::debug, diags_);                                                         \
  if (!backend) {                                                                                        \
    std::fprintf(stderr, "\n*** SKIPPED: no CUDA device here; the GPU suite did not run ***\n");         \
    GTEST_SKIP() << "no CUDA device: " << (diags_.all().empty() ? "" : diags_.all()[0].message);         \
  }

TEST(Cuda, FactoryWithoutDeviceNamesAlternatives) {
  DiagnosticSink d;
  auto b = make(ops::Tier::debug, d);
  if (b) {
    EXPECT_EQ(b->profile().backend, "cuda");
    EXPECT_FALSE(b->profile().device.empty());
    EXPECT_TRUE(b->profile().facts.count("sm_count"));
    std::printf("device profile: %s\n", b->profile().to_string().c_str());
    return;
  }
  ASSERT_TRUE(d.contains("U0001"));
  bool names_reference = false;
  for (const auto& n : d.all()[0].notes) names_reference |= n.find("reference") != std::string::npos;
  EXPECT_TRUE(names_reference);
}

TEST(Cuda, RegistryKnowsItsKernels) {
  runtime::backend_registry();  // registers the cuda kernels
  const ops::OpDef* add = ops::op_registry().find("add");
  ASSERT_NE(add, nullptr);
  EXPECT_NE(ops::op_registry().kernel(add->id, ops::Backend::cuda), nullptr);
  auto missing = ops::op_registry().missing_kernels(ops::Backend::cuda);
  std::printf("ops without a cuda kernel: %zu of %zu\n", missing.size(), ops::op_registry().size());
  for (const ops::OpDef* op : missing) ADD_FAILURE() << "no cuda kernel for `" << op->name << "`";
}

// The suite's cases mean what their labels say: the reference evaluates every case except
// those labelled "(refused)", which it must refuse (the GPU must then refuse too). Needs no GPU.
TEST(Cuda, CasesAreWhatTheySay) {
  for (const auto& c : cuda_test::all_cases()) {
    DiagnosticSink d;
    auto ref = ops::evaluate(c.op, c.inputs, c.attrs, d);
    bool refused = c.label.find("(refused)") != std::string::npos;
    EXPECT_EQ(!ref, refused) << c.label << ": " << (d.all().empty() ? "" : d.all()[0].code + " " + d.all()[0].message);
  }
}

TEST(Cuda, EveryOpBitIdenticalToReference) {
  REQUIRE_GPU(backend);
  auto cases = cuda_test::all_cases();
  int failed = 0, compared = 0;
  std::uint64_t elements = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& c : cases) {
    const ops::OpDef* def = ops::op_registry().find(c.op);
    ASSERT_NE(def, nullptr) << c.op;
    DiagnosticSink dr, dc;
    auto ref = ops::evaluate(*def, c.inputs, c.attrs, dr);
    auto got = backend->run_op(*def, c.inputs, c.attrs, dc);
    if (!ref) {
      EXPECT_FALSE(got) << c.label << ": the reference refused, the GPU did not";
      continue;
    }
    if (!got) {
      ++failed;
      ADD_FAILURE() << c.label << ": cuda failed: " << (dc.all().empty() ? "?" : dc.all()[0].code + " " + dc.all()[0].message);
      continue;
    }
    ASSERT_EQ(got->size(), ref->size()) << c.label;
    for (std::size_t i = 0; i < ref->size(); ++i) {
      ++compared;
      elements += (*ref)[i].numel();
      if ((*got)[i].identical((*ref)[i])) continue;
      ++failed;
      auto v = ops::compare((*got)[i], (*ref)[i], ops::TolClass::exact, ops::Tier::debug);
      ADD_FAILURE() << c.label << " output " << i << ": " << v.bit_mismatches << " of " << v.count
                    << " elements differ; first/worst at " << v.worst_index << ": got " << v.worst_actual << " expected "
                    << v.worst_expected << " (" << v.summary() << ")";
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("cuda vs reference: %zu cases, %d outputs, %llu elements, %d differing outputs (%.1f s)\n", cases.size(), compared,
              static_cast<unsigned long long>(elements), failed, s);
}

TEST(Cuda, FastTierMatmulWithinItsClass) {
  REQUIRE_GPU(backend);
  DiagnosticSink d;
  auto fast = make(ops::Tier::fast, d);
  ASSERT_NE(fast, nullptr);
  const ops::OpDef* mm = ops::op_registry().find("matmul");
  for (DType dt : {DType::f32, DType::bf16}) {
    auto a = cuda_test::random_tensor(dt, {256, 512}, 11, false), b = cuda_test::random_tensor(dt, {512, 384}, 12, false);
    std::vector<ops::HostTensor> in{a, b};
    DiagnosticSink d1, d2;
    auto ref = ops::evaluate(*mm, in, {}, d1);
    auto got = fast->run_op(*mm, in, {}, d2);
    ASSERT_TRUE(ref && got) << (d2.all().empty() ? "" : d2.all()[0].message);
    auto v = ops::compare((*got)[0], (*ref)[0], mm->tolerance.fast, ops::Tier::fast);
    EXPECT_TRUE(v.pass) << dtype_name(dt) << ": " << v.summary();
    std::printf("fast matmul %s: %s\n", std::string(dtype_name(dt)).c_str(), v.summary().c_str());
  }
}

// Receipts are bound to the device profile: a receipt minted on one device (profile as the
// cuda probe fills it) is found for that profile only; a change of any device fact (another
// SM count, memory size, driver, runtime, cuBLAS, or tier) gives another profile hash, under
// which the receipt vouches for nothing. Needs no GPU.
TEST(Cuda, ReceiptsAreBoundToTheDeviceFacts) {
  runtime::DeviceProfile p;
  p.backend = "cuda";
  p.device = "NVIDIA H200";
  p.facts = {{"compute_capability", "9.0"}, {"sm_count", "132"},        {"memory_bytes", "150109880320"},
             {"driver", "13.0"},            {"cuda_runtime", "13.0"},  {"cublas", "130100"},
             {"tier", "debug"},             {"exact_flags", "--fmad=false -ftz=false -prec-div=true -prec-sqrt=true"}};
  conformance::ConformanceReceipt r;
  r.op = "attention";
  r.backend = "cuda";
  r.kernel_hash = "k";
  r.profile = p;
  r.pass = true;
  conformance::ReceiptIndex index;
  index.add(r.id(), r);
  EXPECT_TRUE(index.find("attention", "cuda", "k", p.hash(), ops::Tier::debug));
  for (const auto& [fact, other] : std::map<std::string, std::string>{
           {"sm_count", "114"}, {"memory_bytes", "85520809984"}, {"driver", "12.8"}, {"cuda_runtime", "12.9"},
           {"cublas", "120900"}, {"compute_capability", "10.0"}, {"tier", "fast"}}) {
    runtime::DeviceProfile q = p;
    q.facts[fact] = other;
    EXPECT_NE(q.hash(), p.hash()) << fact;
    EXPECT_FALSE(index.find("attention", "cuda", "k", q.hash(), ops::Tier::debug)) << fact;
  }
  runtime::DeviceProfile renamed = p;
  renamed.device = "NVIDIA H100 80GB HBM3";
  EXPECT_FALSE(index.find("attention", "cuda", "k", renamed.hash(), ops::Tier::debug));
}

// Every upload and download is counted (bytes and calls): what the run record keeps.
TEST(Cuda, TransfersAreCounted) {
  REQUIRE_GPU(backend);
  auto before = backend->transfers();
  ASSERT_TRUE(before);
  const ops::OpDef* add = ops::op_registry().find("add");
  std::vector<ops::HostTensor> in{cuda_test::random_tensor(DType::f32, {100, 7}, 3), cuda_test::random_tensor(DType::f32, {7}, 4)};
  DiagnosticSink d;
  ASSERT_TRUE(backend->run_op(*add, in, {}, d));
  auto after = backend->transfers();
  EXPECT_EQ(after->to_device_bytes - before->to_device_bytes, (700u + 7u) * 4u);
  EXPECT_EQ(after->uploads - before->uploads, 2u);
  EXPECT_EQ(after->from_device_bytes - before->from_device_bytes, 700u * 4u);
  EXPECT_EQ(after->downloads - before->downloads, 1u);
}

TEST(Cuda, KernelFailureIsADiagnostic) {
  REQUIRE_GPU(backend);
  // An op the backend lacks is a diagnostic naming it, never a silent detour.
  for (const ops::OpDef* op : ops::op_registry().missing_kernels(ops::Backend::cuda)) {
    DiagnosticSink d;
    auto r = backend->run_op(*op, {}, {}, d);
    EXPECT_FALSE(r);
    EXPECT_TRUE(d.contains("U0004")) << op->name;
    break;
  }
  // Bad operands are the registry's N0011, as on the reference.
  DiagnosticSink d;
  std::vector<ops::HostTensor> in{cuda_test::random_tensor(DType::f32, {3, 4}, 1), cuda_test::random_tensor(DType::f32, {5, 6}, 2)};
  EXPECT_FALSE(backend->run_op(*ops::op_registry().find("matmul"), in, {}, d));
  EXPECT_TRUE(d.contains("N0011"));
}

// Copying ops after a kernel skip their canonicalising pass (the kernel's NaNs are canonical
// already) and a reshape then shares its operand's buffer; straight from an upload they must
// still canonicalise. A region mixes both: arguments with NaN payloads reshaped, transposed,
// sliced, concatenated and selected, and the same after sqrt/log made NaNs on the device.
TEST(Cuda, CopiesAfterKernelsAndAfterUploadsGiveTheReferenceBits) {
  Graph g;
  GraphBuilder b(g);
  auto t = [](std::initializer_list<std::uint64_t> dims) {
    TensorType tt;
    tt.dtype = DType::f32;
    for (auto d : dims) tt.shape.push_back(Dim::fixed(d));
    return tt;
  };
  auto x = b.param("x", 0, t({6, 8}));
  auto m = b.param("m", 1, TensorType{DType::boolean, {Dim::fixed(8), Dim::fixed(6)}});
  auto made = b.op("log", {b.op("sqrt", {x}, t({6, 8}))}, t({6, 8}));  // NaNs made on the device
  std::vector<ValueRef> results;
  for (ValueRef v : {x, made}) {
    auto r = b.op("reshape", {v}, t({8, 6}), {{"shape", Shape{Dim::fixed(8), Dim::fixed(6)}}});
    auto tr = b.op("transpose", {r}, t({6, 8}), {{"perm", std::vector<std::int64_t>{1, 0}}});
    auto sl = b.op("slice", {tr}, t({3, 8}), {{"starts", std::vector<std::int64_t>{1}}, {"ends", std::vector<std::int64_t>{4}}});
    auto cat = b.op("concat", {sl, v}, t({9, 8}), {{"axis", std::int64_t{0}}});
    auto w = b.op("where", {m, r, b.op("neg", {r}, t({8, 6}))}, t({8, 6}));
    results.insert(results.end(), {r, tr, sl, cat, w});
  }
  RegionId region = b.region("copies", {x, m}, results);
  auto xs = cuda_test::random_tensor(DType::f32, {6, 8}, 7);
  for (std::uint64_t i = 0; i < 48; i += 5) xs.set_raw<std::uint32_t>(i, 0xffc00000u | static_cast<std::uint32_t>(i + 1));  // payloads
  for (std::uint64_t i = 2; i < 48; i += 7) xs.set_raw<std::uint32_t>(i, 0xbf800000u);                                    // -1: sqrt NaN
  auto ms = cuda_test::random_tensor(DType::boolean, {8, 6}, 8);
  std::vector<ops::HostTensor> args{xs, ms};
  DiagnosticSink d;
  auto want = reference::run_region(g, region, args, d);  // (checks the graph without a GPU too)
  ASSERT_TRUE(want) << (d.empty() ? "" : d.all()[0].message);
  REQUIRE_GPU(backend);
  auto got = backend->run_region(g, region, args, d);
  ASSERT_TRUE(got) << (d.empty() ? "" : d.all()[0].message);
  ASSERT_EQ(got->size(), want->size());
  for (std::size_t i = 0; i < want->size(); ++i) {
    ASSERT_EQ((*got)[i].bytes().size(), (*want)[i].bytes().size()) << "result " << i;
    EXPECT_EQ(std::memcmp((*got)[i].bytes().data(), (*want)[i].bytes().data(), (*want)[i].bytes().size()), 0) << "result " << i;
  }
}

}  // namespace
}  // namespace rung

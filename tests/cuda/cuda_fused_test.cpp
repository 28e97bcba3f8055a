// Fused elementwise regions on CUDA (cuda_fused.cpp): a `call` marked fusion = "elementwise"
// runs as ONE generated kernel (NVRTC) and must give the bits of the CPU's fused executor
// (cpu::run_fused_elementwise) for every fusible op and dtype, every cast pair, mixed-dtype
// chains, compare + where, rank-0 operands and results, broadcast operands ([B,T,1], [D],
// middle axes, one element), NaN/inf/-0/subnormals and odd sizes.
// Without a GPU the device tests skip loudly; the generator and NVRTC (no device needed)
// are still checked.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include <unistd.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/fused_region.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cuda/cuda_context.h"
#include "backends/cuda/cuda_fused.h"
#include "backends/cuda/fused_module.h"
#include "ir/graph/builder.h"
#include "ops/numerics/half.h"
#include "ops/typing.h"
#include "runtime/backend_registry.h"

namespace rung {
namespace {

using ops::HostTensor;

// The disk cache of compiled kernels goes to a fresh folder (removed at exit), not ~/.rung.
struct FreshHome {
  std::string dir = (std::filesystem::temp_directory_path() / ("rung-fused-test-" + std::to_string(::getpid()))).string();
  std::string cache = cuda::fused_cache_dir(dir);
  FreshHome() { std::filesystem::create_directories(dir); }
  ~FreshHome() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  runtime::BackendSettings settings() const {
    runtime::BackendSettings s;
    s.home = dir;
    return s;
  }
} fresh_home;

const DType kPlainTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i64, DType::i32, DType::i16,
                             DType::i8,  DType::u64, DType::u32,  DType::u16, DType::u8,  DType::boolean};


// Values that probe the rules: NaNs (with payloads), ±0, ±inf, subnormals, integers at
// their limits, ordinary magnitudes, and random bit patterns.
HostTensor values(DType t, const ops::Extents& shape, std::uint64_t seed) {
  std::uint64_t count = ops::element_count(shape);
  HostTensor h(t, shape);
  std::mt19937_64 rng(seed * 7919 + static_cast<int>(t));
  std::uniform_real_distribution<double> u(-6.0, 6.0);
  std::size_t w = dtype_info(t).block_bytes;
  auto bytes = h.bytes();
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t bits = rng();
    unsigned pick = rng() % 16;
    if (t == DType::boolean) {
      bits &= 1;
    } else if (t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16) {
      const double specials[] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 1.0, -1.0, 0.5, 1e-40, -3e-42, 1e-310, 65504.0, 1e39};
      double v = pick < 6 ? specials[rng() % 12] : pick < 14 ? u(rng) : 0.0;
      if (pick == 14) {  // a NaN with a payload, or raw random bits
        if (t == DType::f32) bits = 0x7F800001u + (bits & 0x3FFFFF);
      } else if (pick != 15) {
        if (t == DType::f64) std::memcpy(&bits, &v, 8);
        else if (t == DType::f32) { float f = static_cast<float>(v); std::uint32_t b; std::memcpy(&b, &f, 4); bits = b; }
        else if (t == DType::f16) bits = num::f16_from_f64(v);
        else bits = num::bf16_from_f64(v);
      }
    } else if (pick < 4) {
      bits = pick < 2 ? ~std::uint64_t{0} >> (pick + 1) : std::uint64_t{1} << (8 * w - 1);  // near the limits
    } else if (pick < 10) {
      bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(rng() % 41) - 20);  // small, both signs
    }
    std::memcpy(bytes.data() + i * w, &bits, w);
  }
  return h;
}
HostTensor values(DType t, bool scalar, std::uint64_t n, std::uint64_t seed) {
  return values(t, scalar ? ops::Extents{} : ops::Extents{n}, seed);
}

// A graph main(x...) = call fused(x...) {fusion = "elementwise"}, the callee built by `body`.
struct FusedArgSpec {
  DType dtype;
  bool scalar;
  ops::Extents shape{};  // a non-scalar argument's extents; empty: [n]
  ops::Extents extents(std::uint64_t n) const { return scalar ? ops::Extents{} : shape.empty() ? ops::Extents{n} : shape; }
  TensorType type(std::uint64_t n) const {
    TensorType t{dtype, {}};
    for (auto e : extents(n)) t.shape.push_back(Dim::fixed(e));
    return t;
  }
};
struct Built {
  Graph g;
  RegionId main = 0, callee = 0;
  NodeId call = 0;
  std::vector<FusedArgSpec> args;
};
using Body = std::function<std::vector<ValueRef>(GraphBuilder&, const std::vector<ValueRef>&)>;

std::unique_ptr<Built> build(std::vector<FusedArgSpec> args, std::uint64_t n, const Body& body) {
  auto b = std::make_unique<Built>();
  GraphBuilder gb(b->g);
  std::vector<ValueRef> ps, xs;
  for (std::size_t i = 0; i < args.size(); ++i)
    ps.push_back(gb.param("a" + std::to_string(i), static_cast<std::int64_t>(i), args[i].type(n)));
  std::vector<ValueRef> results = body(gb, ps);
  b->callee = gb.region("main.fused.0", ps, results);
  for (std::size_t i = 0; i < args.size(); ++i)
    xs.push_back(gb.param("x" + std::to_string(i), static_cast<std::int64_t>(i), args[i].type(n)));
  std::vector<TensorType> out;
  for (auto r : results) out.push_back(gb.type_of(r));
  auto call = gb.op_multi("call", xs, out,
                          {{"callee", AttrValue(b->g.region(b->callee).hash)}, {"fusion", AttrValue(std::string("elementwise"))}});
  b->call = call[0].node;
  b->main = gb.export_region("main", xs, call);
  b->args = args;
  return b;
}

// One op node typed by the registry (so the test states only operands and attributes).
ValueRef node(GraphBuilder& gb, const std::string& op, std::vector<ValueRef> in, AttrMap attrs = {}) {
  const ops::OpDef* def = ops::op_registry().find(op);
  EXPECT_NE(def, nullptr) << op;
  std::vector<TensorType> types;
  for (auto v : in) types.push_back(gb.type_of(v));
  std::vector<std::string> errors;
  auto typed = ops::infer_types(*def, types, attrs, errors);
  EXPECT_TRUE(typed) << op << ": " << (errors.empty() ? "" : errors[0]);
  return gb.op(op, std::move(in), typed->results[0], std::move(attrs));
}

std::unique_ptr<cuda::Context> device() {
  if (!cuda::fused_compiler_available()) {
    std::fprintf(stderr, "\n*** SKIPPED: this build has no NVRTC; the fused-region device tests did not run ***\n");
    return nullptr;
  }
  DiagnosticSink d;
  auto ctx = cuda::Context::create(ops::Tier::debug, d);
  if (!ctx) std::fprintf(stderr, "\n*** SKIPPED: no CUDA device here; the fused-region device tests did not run ***\n");
  else ctx->fused_cache_dir = fresh_home.cache;
  return ctx;
}

// The call on the device as one kernel vs the CPU's fused executor: bit for bit.
void expect_same_as_cpu(cuda::Context& ctx, const Built& b, std::uint64_t n, std::uint64_t seed, const std::string& label) {
  std::vector<HostTensor> args;
  for (std::size_t i = 0; i < b.args.size(); ++i) args.push_back(values(b.args[i].dtype, b.args[i].extents(n), seed + i));
  cpu::register_cpu_kernels();
  cpu::ThreadPool pool(2);
  DiagnosticSink dc;
  auto want = cpu::run_fused_elementwise(b.g, b.g.node(b.call), args, pool, dc, true);
  ASSERT_TRUE(want) << label << ": " << (dc.empty() ? "" : dc.all()[0].message);
  DiagnosticSink d;
  std::vector<cuda::DevTensor> dev;
  for (const auto& a : args) {
    auto t = ctx.upload(a, d);
    ASSERT_TRUE(t) << label;
    dev.push_back(*t);
  }
  std::vector<cuda::DevTensor> out;
  std::string why;
  auto before = ctx.fused_one_kernel;
  auto outcome = cuda::run_fused_call(ctx, b.g, b.g.region(b.callee), dev, out, why, d);
  ASSERT_EQ(outcome, cuda::FusedOutcome::ran) << label << ": " << why << (d.empty() ? "" : d.all()[0].message);
  EXPECT_EQ(ctx.fused_one_kernel, before + 1);
  ASSERT_EQ(out.size(), want->size()) << label;
  for (std::size_t k = 0; k < out.size(); ++k) {
    auto got = ctx.download(out[k], d);
    ASSERT_TRUE(got) << label << ": " << (d.empty() ? "" : d.all()[0].message);
    ASSERT_EQ(got->dtype(), (*want)[k].dtype()) << label << " result " << k;
    ASSERT_EQ(got->shape(), (*want)[k].shape()) << label << " result " << k;
    if (!got->identical((*want)[k])) {
      std::size_t w = dtype_info(got->dtype()).block_bytes, first = 0, diff = 0;
      for (std::size_t i = 0; i < got->numel(); ++i)
        if (std::memcmp(got->bytes().data() + i * w, (*want)[k].bytes().data() + i * w, w) != 0 && diff++ == 0) first = i;
      ADD_FAILURE() << label << " n=" << n << " result " << k << " (" << dtype_name(got->dtype()) << "): " << diff
                    << " elements differ, first at " << first;
    }
  }
}

// Every fusible op admitting dtype t, applied to full-size operands and to a rank-0 one.
Body every_op(DType t) {
  return [t](GraphBuilder& gb, const std::vector<ValueRef>& p) {
    std::vector<ValueRef> r;
    for (const ops::OpDef* def : ops::op_registry().all()) {
      if (def->family != "elementwise" && def->family != "compare") continue;
      if (def->type_vars.empty() || !def->type_vars[0].allowed.contains(t)) continue;
      const std::string& op = def->name;
      if (op == "where") {
        r.push_back(node(gb, op, {p[3], p[0], p[1]}));
        r.push_back(node(gb, op, {p[3], p[2], p[0]}));
      } else if (op == "clamp") {
        r.push_back(node(gb, op, {p[0]}, {{"min", AttrValue(-1.5)}, {"max", AttrValue(2.25)}}));
      } else if (op == "gelu") {
        r.push_back(node(gb, op, {p[0]}));
        r.push_back(node(gb, op, {p[0]}, {{"approximate", AttrValue(std::string("tanh"))}}));
      } else if (def->operands.size() == 1) {
        r.push_back(node(gb, op, {p[0]}));
      } else {
        r.push_back(node(gb, op, {p[0], p[1]}));
        r.push_back(node(gb, op, {p[2], p[0]}));
      }
    }
    return r;
  };
}

// cast from dtype `from` to every plain dtype.
Body every_cast() {
  return [](GraphBuilder& gb, const std::vector<ValueRef>& p) {
    std::vector<ValueRef> r;
    for (DType to : kPlainTypes) r.push_back(node(gb, "cast", {p[0]}, {{"to", AttrValue(to)}}));
    r.push_back(node(gb, "cast", {p[1]}, {{"to", AttrValue(DType::f16)}}));
    return r;
  };
}

// The chain of the CPU's fused-region test, two results of different dtypes:
//   m = a * b; t = m + c; e = exp(t); w = where(a > b, e, m); h = cast(w, f16); r = h * h
Body mixed_chain() {
  return [](GraphBuilder& gb, const std::vector<ValueRef>& p) {
    auto m = node(gb, "mul", {p[0], p[1]});
    auto t = node(gb, "add", {m, p[2]});
    auto e = node(gb, "exp", {t});
    auto gt = node(gb, "gt", {p[0], p[1]});
    auto w = node(gb, "where", {gt, e, m});
    auto h = node(gb, "cast", {w}, {{"to", AttrValue(DType::f16)}});
    return std::vector<ValueRef>{w, node(gb, "mul", {h, h})};
  };
}

// bf16 and integer arithmetic, a rank-0 constant, a parameter passed through, a rank-0 result.
Body odd_chain() {
  return [](GraphBuilder& gb, const std::vector<ValueRef>& p) {
    float k = 0.1f;
    std::uint16_t kb = num::bf16_from_f32(k);
    auto c = gb.constant({DType::bf16, Shape{}}, Bytes{static_cast<std::uint8_t>(kb & 0xFF), static_cast<std::uint8_t>(kb >> 8)});
    auto s = node(gb, "silu", {p[0]});
    auto y = node(gb, "add", {node(gb, "mul", {s, p[0]}), c});
    auto i = node(gb, "add", {node(gb, "mul", {p[1], p[1]}), p[2]});
    auto f = node(gb, "sqrt", {node(gb, "cast", {i}, {{"to", AttrValue(DType::f32)}})});
    auto lt = node(gb, "lt", {f, node(gb, "cast", {y}, {{"to", AttrValue(DType::f32)}})});
    auto scalar_only = node(gb, "mul", {p[2], p[2]});
    return std::vector<ValueRef>{y, f, lt, p[1], scalar_only};
  };
}

#define REQUIRE_NVRTC()                                                                          \
  if (!cuda::fused_compiler_available()) {                                                     \
    std::fprintf(stderr, "\n*** SKIPPED: this build has no NVRTC; fused regions run op by op ***\n"); \
    GTEST_SKIP() << "no NVRTC";                                                                \
  }

TEST(CudaFused, GeneratedSourceCompilesWithNvrtcWithoutADevice) {
  REQUIRE_NVRTC();
  auto b = build({{DType::f32, false}, {DType::f32, false}, {DType::f32, true}}, 8, mixed_chain());
  std::string why;
  std::vector<cuda::FusedValue> types{{DType::f32, false}, {DType::f32, false}, {DType::f32, true}};
  auto src = cuda::generate_fused_kernel(b->g, b->g.region(b->callee), types, why);
  ASSERT_TRUE(src) << why;
  EXPECT_EQ(src->hash.size(), 64u);
  ASSERT_EQ(src->results.size(), 2u);
  EXPECT_EQ(src->results[1].dtype, DType::f16);
  EXPECT_NE(src->source.find("rung::num::Exp{}"), std::string::npos);
  std::string error;
  auto cubin = cuda::compile_fused_kernel(*src, "sm_90", error);
  EXPECT_FALSE(cubin.empty()) << error;
  // The same region and types give the same text (the kernel's identity).
  auto again = cuda::generate_fused_kernel(b->g, b->g.region(b->callee), types, why);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->hash, src->hash);
}

// Every op/dtype and cast region of the device tests below compiles (CI has NVRTC, no GPU).
TEST(CudaFused, EveryRegionCompilesWithNvrtc) {
  REQUIRE_NVRTC();
  std::string why, error;
  auto compiles = [&](const Built& b, const std::string& label) {
    std::vector<cuda::FusedValue> types;
    for (const auto& a : b.args) types.push_back({a.dtype, a.scalar});
    auto src = cuda::generate_fused_kernel(b.g, b.g.region(b.callee), types, why);
    ASSERT_TRUE(src) << label << ": " << why;
    EXPECT_FALSE(cuda::compile_fused_kernel(*src, "sm_90", error).empty()) << label << ": " << error;
  };
  // A few dtypes only: NVRTC takes seconds for a region of every transcendental, and CI has
  // two cores (the device tests compile all of them).
  for (DType t : {DType::f64, DType::i8, DType::boolean})
    compiles(*build({{t, false}, {t, false}, {t, true}, {DType::boolean, false}}, 5, every_op(t)), "ops on " + std::string(dtype_name(t)));
  compiles(*build({{DType::bf16, false}, {DType::bf16, true}}, 5, every_cast()), "casts from bf16");
  compiles(*build({{DType::i64, false}, {DType::i64, true}}, 5, every_cast()), "casts from i64");
  compiles(*build({{DType::bf16, false}, {DType::i32, false}, {DType::i32, true}}, 5, odd_chain()), "bf16/int chain");
}

// The disk cache: a second request reads the cubin back; a damaged entry is recompiled.
TEST(CudaFused, CubinsAreKeptOnDisk) {
  REQUIRE_NVRTC();
  auto b = build({{DType::f32, false}, {DType::f32, false}, {DType::f32, true}}, 8, mixed_chain());
  std::string why, error;
  std::vector<cuda::FusedValue> types{{DType::f32, false}, {DType::f32, false}, {DType::f32, true}};
  auto src = cuda::generate_fused_kernel(b->g, b->g.region(b->callee), types, why);
  ASSERT_TRUE(src) << why;
  std::filesystem::remove_all(fresh_home.cache);
  bool from_disk = true;
  auto first = cuda::fused_cubin(*src, "sm_90", fresh_home.cache, error, &from_disk);
  ASSERT_FALSE(first.empty()) << error;
  EXPECT_FALSE(from_disk);
  auto second = cuda::fused_cubin(*src, "sm_90", fresh_home.cache, error, &from_disk);
  EXPECT_TRUE(from_disk);
  EXPECT_EQ(first, second);
  ASSERT_EQ(std::distance(std::filesystem::directory_iterator(fresh_home.cache), {}), 1);
  auto entry = std::filesystem::directory_iterator(fresh_home.cache)->path();
  EXPECT_NE(entry.filename().string().find(src->hash + "-sm_90-nvrtc"), std::string::npos) << entry;
  {  // damage one byte of the cubin: the entry no longer checks out
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  auto third = cuda::fused_cubin(*src, "sm_90", fresh_home.cache, error, &from_disk);
  EXPECT_FALSE(from_disk);
  EXPECT_EQ(third, first);
  cuda::fused_cubin(*src, "sm_90", fresh_home.cache, error, &from_disk);
  EXPECT_TRUE(from_disk) << "the recompiled cubin was written back";
}

TEST(CudaFused, GeneratorNamesTheOpItCannotHandle) {
  auto b = build({{DType::f32, false}}, 8, [](GraphBuilder& gb, const std::vector<ValueRef>& p) {
    auto e = node(gb, "exp", {p[0]});
    return std::vector<ValueRef>{node(gb, "sum", {e}, {{"axes", AttrValue(std::vector<std::int64_t>{})}})};
  });
  std::string why;
  std::vector<cuda::FusedValue> types{{DType::f32, false}};
  EXPECT_FALSE(cuda::generate_fused_kernel(b->g, b->g.region(b->callee), types, why));
  EXPECT_NE(why.find("`sum`"), std::string::npos) << why;
}

TEST(CudaFused, EveryOpAndDtypeMatchesTheCpu) {
  auto ctx = device();
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  // 13 large regions (every transcendental of f32/f16/bf16 in one kernel): NVRTC takes
  // seconds for each, so they compile concurrently first.
  std::vector<std::thread> compilers;
  for (DType t : kPlainTypes)
    compilers.emplace_back([t] {
      auto b = build({{t, false}, {t, false}, {t, true}, {DType::boolean, false}}, 1031, every_op(t));
      std::vector<cuda::FusedValue> types;
      for (const auto& a : b->args) types.push_back({a.dtype, a.scalar});
      std::string why, error;
      if (auto src = cuda::generate_fused_kernel(b->g, b->g.region(b->callee), types, why))
        cuda::fused_kernel(*src, fresh_home.cache, error);
    });
  for (auto& c : compilers) c.join();
  for (DType t : kPlainTypes) {
    std::vector<FusedArgSpec> args{{t, false}, {t, false}, {t, true}, {DType::boolean, false}};
    for (std::uint64_t n : {2ull, 1031ull}) {
      auto b = build(args, n, every_op(t));
      expect_same_as_cpu(*ctx, *b, n, 11, std::string("every op on ") + std::string(dtype_name(t)));
    }
  }
}

TEST(CudaFused, EveryCastMatchesTheCpu) {
  auto ctx = device();
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  for (DType from : kPlainTypes) {
    auto b = build({{from, false}, {from, true}}, 1031, every_cast());
    expect_same_as_cpu(*ctx, *b, 1031, 5, std::string("casts from ") + std::string(dtype_name(from)));
  }
}

TEST(CudaFused, ChainsAtOddSizesMatchTheCpu) {
  auto ctx = device();
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  for (std::uint64_t n : {0ull, 1ull, 3ull, 4ull, 5ull, 1000ull, 65537ull}) {
    auto a = build({{DType::f32, false}, {DType::f32, false}, {DType::f32, true}}, n, mixed_chain());
    expect_same_as_cpu(*ctx, *a, n, n, "mixed chain");
    auto b = build({{DType::bf16, false}, {DType::i32, false}, {DType::i32, true}}, n, odd_chain());
    expect_same_as_cpu(*ctx, *b, n, n + 3, "bf16/int chain");
  }
  std::printf("fused kernels compiled in this process: %zu\n", cuda::fused_kernels_cached());
}

// Through the backend: `rung run --backend cuda` takes this path; the region's results must
// be the reference's.
// `main` of `b` through the cuda backend's run_region, as `rung run --backend cuda` runs it:
// the reference's bits, and the fused call as one kernel (no U0005). Skips without a device.
void expect_backend_gives_reference_bits(const Built& b, const std::vector<HostTensor>& args) {
  DiagnosticSink d;
  auto cuda_backend = runtime::backend_registry().create("cuda", ops::Tier::debug, d, fresh_home.settings());
  if (!cuda_backend) GTEST_SKIP() << "no CUDA device";
  auto ref = runtime::backend_registry().create("reference", ops::Tier::debug, d, {});
  ASSERT_TRUE(ref);
  auto want = ref->run_region(b.g, b.main, args, d);
  ASSERT_TRUE(want);
  auto got = cuda_backend->run_region(b.g, b.main, args, d);
  ASSERT_TRUE(got) << (d.empty() ? "" : d.all()[0].message);
  ASSERT_EQ(got->size(), want->size());
  for (std::size_t k = 0; k < got->size(); ++k) EXPECT_TRUE((*got)[k].identical((*want)[k])) << "result " << k;
  EXPECT_FALSE(d.contains("U0005")) << "the region ran op by op";
}

TEST(CudaFused, BackendRunRegionGivesTheReferenceBits) {
  REQUIRE_NVRTC();
  std::uint64_t n = 4099;
  auto b = build({{DType::f32, false}, {DType::f32, false}, {DType::f32, true}}, n, mixed_chain());
  ASSERT_TRUE(b);
  expect_backend_gives_reference_bits(
      *b, {values(DType::f32, false, n, 1), values(DType::f32, false, n, 2), values(DType::f32, true, n, 3)});
}


// Broadcast arguments ([B,T,1], [D], [1,T,1], one element, against the element space): the
// space's extents and each argument's strides are baked into the text, dense arguments keep
// the 16-byte path, and the source compiles (no device needed).
struct BroadcastCase {
  ops::Extents space, a, b;  // mixed_chain(a, b, scalar): a * b, a > b, ... of the space's shape
};
const BroadcastCase kBroadcastCases[] = {
    {{4, 5, 7}, {4, 5, 7}, {4, 5, 1}},     // rms norm's x * r
    {{4, 5, 7}, {4, 5, 1}, {7}},           // [B,T,1] with [D]: neither is the space's shape
    {{3, 6, 5}, {3, 6, 5}, {1, 6, 1}},     // the middle axis
    {{2, 1, 9}, {1}, {2, 1, 9}},           // one element; a size-1 dim of the space
    {{3, 1031}, {3, 1031}, {1031}},        // odd, vector groups straddle rows
    {{0, 4}, {0, 4}, {4}},                 // empty
};

std::vector<cuda::FusedValue> kernel_types(const Built& b, const ops::Extents& space) {
  std::vector<cuda::FusedValue> types;
  for (const auto& a : b.args) {
    cuda::FusedValue v{a.dtype, a.scalar, {}};
    ops::Extents e = a.extents(0);
    if (!a.scalar && e != space) {
      auto walk = cuda::broadcast_walk(e, space);
      EXPECT_TRUE(walk);
      if (walk) v.broadcast = *walk;
    }
    types.push_back(v);
  }
  return types;
}

TEST(CudaFused, BroadcastWalkMergesDims) {
  using W = std::vector<cuda::BroadcastDim>;
  auto walk = [](ops::Extents a, ops::Extents s) { return cuda::broadcast_walk(a, s); };
  EXPECT_EQ(walk({2, 3, 1}, {2, 3, 5}), (W{{6, 1}, {5, 0}}));
  EXPECT_EQ(walk({5}, {2, 3, 5}), (W{{6, 0}, {5, 1}}));
  EXPECT_EQ(walk({4, 1, 5}, {4, 3, 5}), (W{{4, 5}, {3, 0}, {5, 1}}));
  EXPECT_EQ(walk({3, 4}, {2, 3, 4}), (W{{2, 0}, {12, 1}}));
  EXPECT_EQ(walk({1}, {2, 1, 9}), (W{{18, 0}}));
  EXPECT_EQ(walk({1, 1}, {1, 1}), W{});
  EXPECT_FALSE(walk({3}, {2, 4}));
  EXPECT_FALSE(walk({2, 3, 4}, {3, 4}));
}

TEST(CudaFused, BroadcastRegionSourceCompilesWithNvrtc) {
  REQUIRE_NVRTC();
  for (const auto& c : kBroadcastCases) {
    auto b = build({{DType::f32, false, c.a}, {DType::f32, false, c.b}, {DType::f32, true}}, 0, mixed_chain());
    std::string why, error;
    auto types = kernel_types(*b, c.space);
    auto src = cuda::generate_fused_kernel(b->g, b->g.region(b->callee), types, why);
    ASSERT_TRUE(src) << why;
    std::string label = ops::extents_to_string(c.a) + " " + ops::extents_to_string(c.b);
    for (std::size_t i = 0; i < 2; ++i) {
      bool bcast = !types[i].broadcast.empty();
      EXPECT_EQ(src->source.find("bcast_off" + std::to_string(i)) != std::string::npos, bcast) << label << " arg " << i;
      // A dense argument keeps its 16-byte loads.
      EXPECT_EQ(src->source.find("> x" + std::to_string(i) + " = reinterpret_cast") != std::string::npos, !bcast)
          << label << " arg " << i;
    }
    EXPECT_FALSE(cuda::compile_fused_kernel(*src, "sm_90", error).empty()) << label << ": " << error;
  }
  // Dense regions are generated exactly as before (no offset functions: same kernels).
  auto dense = build({{DType::f32, false}, {DType::f32, false}, {DType::f32, true}}, 8, mixed_chain());
  std::string why;
  std::vector<cuda::FusedValue> types{{DType::f32, false}, {DType::f32, false}, {DType::f32, true}};
  auto src = cuda::generate_fused_kernel(dense->g, dense->g.region(dense->callee), types, why);
  ASSERT_TRUE(src) << why;
  EXPECT_EQ(src->source.find("bcast_off"), std::string::npos);
}

TEST(CudaFused, BroadcastRegionsMatchTheCpu) {
  auto ctx = device();
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  std::uint64_t seed = 40;
  for (const auto& c : kBroadcastCases) {
    auto b = build({{DType::f32, false, c.a}, {DType::f32, false, c.b}, {DType::f32, true}}, 0, mixed_chain());
    expect_same_as_cpu(*ctx, *b, 0, ++seed, "broadcast " + ops::extents_to_string(c.a) + " " + ops::extents_to_string(c.b));
    auto h = build({{DType::bf16, false, c.b}, {DType::bf16, false, c.a}, {DType::bf16, true}}, 0, mixed_chain());
    expect_same_as_cpu(*ctx, *h, 0, ++seed, "bf16 broadcast " + ops::extents_to_string(c.b) + " " + ops::extents_to_string(c.a));
  }
}

// Through the backend with a broadcast argument: one kernel, the reference's bits, no U0005.
TEST(CudaFused, BackendRunsABroadcastRegionAsOneKernel) {
  REQUIRE_NVRTC();
  auto b = build({{DType::f32, false, {8, 33, 1}}, {DType::f32, false, {65}}, {DType::f32, true}}, 0, mixed_chain());
  ASSERT_TRUE(b);
  expect_backend_gives_reference_bits(*b, {values(DType::f32, ops::Extents{8, 33, 1}, 1), values(DType::f32, ops::Extents{65}, 2),
                                           values(DType::f32, true, 0, 3)});
}

}  // namespace
}  // namespace rung

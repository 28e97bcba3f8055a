// The host side of rope, attention, cross_entropy, scatter_add, quantize, linear_q,
// csr_from_dense and csr_from_coo on the device: attributes, scratch, index validation with
// the reference's own messages (N0012), then the launchers of device_api_nn.h. The two CSR
// constructions have data-dependent result shapes: a count pass on the device, the count
// downloaded (8 bytes, in bytes_down), the outputs allocated, then the fill pass.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cuda/cuda_ops_nn.h"
#include "backends/cuda/device_api_nn.h"
#include "backends/cuda/operand_scan.h"
#include "ops/elementwise_driver.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/quant_blocks.h"
#include "ops/shape_rules.h"
#include "ops/tensor_walk.h"

namespace rung::cuda {

namespace {

using In = std::span<const DevTensor>;
using Out = std::vector<DevTensor>;

int dt(DType d) { return static_cast<int>(d); }
constexpr std::uint64_t kMaxRow = 4096ull * 4096ull;  // the canonical tree's reach in one launch

bool refuse(const std::string& op, const std::string& why, DiagnosticSink& d) {
  d.error("N0012", "`" + op + "` refused its input: " + why);
  return false;
}

bool too_long(const std::string& what, std::uint64_t n, DiagnosticSink& d) {
  d.error("U0003", what + " of " + std::to_string(n) + " elements: the cuda backend handles rows of up to 4096^2");
  return false;
}

// The first bad position a check kernel left in a u64 cell, or ~0 when none.
std::optional<std::uint64_t> read_first(Context& c, const DevTensor& cell, DiagnosticSink& d) {
  auto h = c.download(cell, d);
  if (!h) return std::nullopt;
  return h->raw<std::uint64_t>(0);
}

// Copying kernels keep bits: every float NaN must still become the canonical one.
bool canonicalize(Context& c, DevTensor& y, DiagnosticSink& d) {
  if (!dtype_info(y.dtype).is_float || y.numel() == 0) return true;
  double inf = std::numeric_limits<double>::infinity();
  return c.check(launch_clamp(y.data(), dt(y.dtype), y.data(), y.numel(), -inf, inf, c.stream()), "NaN canonicalisation", d);
}

ops::HostTensor u64_tensor(const std::vector<std::uint64_t>& v) {
  ops::HostTensor t(DType::u64, {v.size()});
  for (std::size_t i = 0; i < v.size(); ++i) t.set_raw<std::uint64_t>(i, v[i]);
  return t;
}

// ---- rope, attention, cross_entropy

bool rope(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  std::uint64_t D = x.shape.back(), S = x.shape[x.shape.size() - 2], rows = D == 0 ? 0 : x.numel() / D;
  auto cs = c.alloc(DType::f32, {S * (D / 2) + 1}, d), sn = c.alloc(DType::f32, {S * (D / 2) + 1}, d);
  if (!cs || !sn) return false;
  const DevTensor* pos = in.size() > 1 ? &in[1] : nullptr;
  return c.check(launch_rope(x.data(), dt(x.dtype), pos ? pos->data() : nullptr, pos ? dt(pos->dtype) : 0, out[0].data(), rows, S, D,
                             a.string("layout") == "interleaved", static_cast<float>(a.real("base")),
                             static_cast<float*>(cs->data()), static_cast<float*>(sn->data()), c.stream()),
                 "rope kernel", d);
}

// Tier fast runs the flash kernel where its shape rules hold, the operands share one bf16/f16
// type and are finite, and no order of the sums can overflow f32: |s| <= D max|q| max|k|
// scale and |o| <= Sk max|v| (p <= 1) below half of f32's largest value. Else the exact kernel.
bool fast_attention_admits(Context& c, In in, const AttentionSpec& s, bool& admit, DiagnosticSink& d) {
  admit = false;
  int t = dt(in[0].dtype);
  if (in[1].dtype != in[0].dtype || in[2].dtype != in[0].dtype || !flash_attention_supports(s, t) || s.batch.numel() * s.Sq == 0)
    return true;
  const void* x[3] = {in[0].data(), in[1].data(), in[2].data()};
  std::uint64_t n[3] = {in[0].numel(), in[1].numel(), in[2].numel()};
  float mx[3] = {0, 0, 0};
  if (!c.check(operand_max_abs_n(x, n, 3, t, mx, c.stream()), "operand scan", d)) return false;
  double limit = 3.4028234663852886e38 / 2;
  double sb = static_cast<double>(s.D) * mx[0] * mx[1] * std::abs(static_cast<double>(s.scale));
  double ob = static_cast<double>(s.Sk) * mx[2];
  admit = std::isfinite(mx[0]) && std::isfinite(mx[1]) && std::isfinite(mx[2]) && std::isfinite(s.scale) && sb < limit && ob < limit;
  return true;
}

bool attention(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const auto &eq = in[0].shape, &ek = in[1].shape, &ev = in[2].shape, &ey = out[0].shape;
  AttentionSpec s;
  s.Sq = eq[eq.size() - 2];
  s.D = eq.back();
  s.Sk = ek[ek.size() - 2];
  s.Dv = ev.back();
  if (s.Sk > kMaxRow) return too_long("an attention row", s.Sk, d);
  ops::Extents by(ey.begin(), ey.end() - 2);
  if (by.size() > static_cast<std::size_t>(kMaxRank)) {
    d.error("U0003", "attention with " + std::to_string(by.size()) + " batch dims: the cuda backend handles up to 8");
    return false;
  }
  s.batch.rank = static_cast<int>(by.size());
  for (std::size_t i = 0; i < by.size(); ++i) s.batch.ext[i] = by[i];
  auto batch_strides = [&](const ops::Extents& e, std::uint64_t per, std::int64_t* out_s) {
    auto st = ops::broadcast_strides(ops::Extents(e.begin(), e.end() - 2), by);
    for (std::size_t i = 0; i < by.size(); ++i) out_s[i] = static_cast<std::int64_t>(st[i] * per);
  };
  batch_strides(eq, s.Sq * s.D, s.q_bs);
  batch_strides(ek, s.Sk * s.D, s.k_bs);
  batch_strides(ev, s.Sk * s.Dv, s.v_bs);
  if (in.size() > 3) {
    ops::Extents scores = by;
    scores.push_back(s.Sq);
    scores.push_back(s.Sk);
    auto ms = ops::broadcast_strides(in[3].shape, scores);
    for (std::size_t i = 0; i < by.size(); ++i) s.m_bs[i] = static_cast<std::int64_t>(ms[i]);
    s.m_is = static_cast<std::int64_t>(ms[by.size()]);
    s.m_js = static_cast<std::int64_t>(ms[by.size() + 1]);
    s.mask = in[3].data();
    s.mask_dtype = dt(in[3].dtype);
  }
  s.causal = a.boolean("causal");
  s.scale = a.has("scale") ? static_cast<float>(a.real("scale")) : 1.0f / num::sqrt_f32(static_cast<float>(s.D));
  if (c.tier() == ops::Tier::fast) {
    bool admit = false;
    if (!fast_attention_admits(c, in, s, admit, d)) return false;
    if (admit) {
      ++c.fast_attention_flash;
      return c.check(launch_attention_flash(in[0].data(), in[1].data(), in[2].data(), dt(in[0].dtype), out[0].data(), s, c.stream()),
                     "flash attention kernel", d);
    }
    ++c.fast_attention_exact;  // the exact result is always inside the fast class
  }
  std::optional<DevTensor> p;
  if (std::uint64_t n = attention_scratch_floats(s)) {
    p = c.alloc(DType::f32, {n}, d);
    if (!p) return false;
  }
  return c.check(launch_attention(in[0].data(), in[1].data(), in[2].data(), dt(in[0].dtype), out[0].data(), s,
                                  p ? static_cast<float*>(p->data()) : nullptr, c.stream()),
                 "attention kernel", d);
}

bool cross_entropy(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor &X = in[0], &T = in[1];
  std::uint64_t C = X.shape.back(), rows = T.numel();
  if (C > kMaxRow) return too_long("a cross_entropy row", C, d);
  bool has_ignore = a.has("ignore_index");
  std::int64_t ignore = has_ignore ? a.integer("ignore_index") : 0;
  auto cell = c.alloc(DType::u64, {1}, d);
  if (!cell || !c.check(launch_target_check(T.data(), dt(T.dtype), rows, C, has_ignore, ignore,
                                            static_cast<unsigned long long*>(cell->data()), c.stream()),
                        "target check", d))
    return false;
  auto bad = read_first(c, *cell, d);
  if (!bad) return false;
  if (*bad != ~std::uint64_t{0}) {
    auto th = c.download(T, d);
    if (!th) return false;
    std::string err;
    ops::checked_index(*th, *bad, C, "target", err);
    return refuse("cross_entropy", err + " (classes: " + std::to_string(C) + ")", d);
  }
  auto loss = c.alloc(DType::f32, {rows}, d);
  auto counted = c.alloc(DType::i64, {rows}, d);
  if (!loss || !counted ||
      !c.check(launch_cross_entropy_rows(X.data(), dt(X.dtype), T.data(), dt(T.dtype), rows, C, has_ignore, ignore,
                                         static_cast<float*>(loss->data()), static_cast<std::int64_t*>(counted->data()), c.stream()),
               "cross_entropy kernel", d))
    return false;
  const std::string& red = a.string("reduction");
  if (red == "none")
    return c.check(launch_cast(loss->data(), dt(DType::f32), out[0].data(), dt(out[0].dtype), rows, c.stream()), "loss store", d);
  auto sum = c.alloc(DType::f32, {}, d), count = c.alloc(DType::i64, {}, d);
  if (!sum || !count) return false;
  ReduceSpec spec;
  spec.red.rank = 1;
  spec.red.ext[0] = rows;
  spec.red_stride[0] = 1;
  return c.check(launch_reduce(Red::sum, loss->data(), dt(DType::f32), sum->data(), dt(DType::f32), spec, c.stream()), "loss sum", d) &&
         c.check(launch_reduce(Red::sum, counted->data(), dt(DType::i64), count->data(), dt(DType::i64), spec, c.stream()),
                 "loss count", d) &&
         c.check(launch_loss_finish(static_cast<const float*>(sum->data()), static_cast<const std::int64_t*>(count->data()),
                                    red == "mean", out[0].data(), dt(out[0].dtype), c.stream()),
                 "loss finish", d);
}

// ---- scatter_add

// The update lists per target index are built on the host from the (downloaded) indices:
// a stable counting sort, so each target's updates keep their increasing order.
bool scatter_add(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor &x = in[0], &idx = in[1], &upd = in[2];
  std::string err;
  std::size_t ax = *ops::normalize_axis(a.integer("axis"), x.shape.size(), err);
  std::uint64_t n = x.shape[ax], J = idx.numel(), outer = 1, inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= x.shape[i];
  for (std::size_t i = ax + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  auto ih = c.download(idx, d);
  if (!ih) return false;
  std::vector<std::uint64_t> start(n + 1, 0), list(J + 1, 0), target(J);
  for (std::uint64_t j = 0; j < J; ++j) {
    auto t = ops::checked_index(*ih, j, n, "index", err);
    if (!t) return refuse("scatter_add", err + " (axis " + std::to_string(ax) + ")", d);
    target[j] = *t;
    ++start[*t + 1];
  }
  std::uint64_t max_m = 0;
  for (std::uint64_t t = 0; t < n; ++t) {
    max_m = std::max(max_m, start[t + 1]);
    start[t + 1] += start[t];
  }
  if (max_m * outer * inner > 0 && max_m > kMaxRow) return too_long("a scatter_add target's update list", max_m, d);
  std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
  for (std::uint64_t j = 0; j < J; ++j) list[fill[target[j]]++] = j;
  auto js = c.upload(u64_tensor(start), d), jl = c.upload(u64_tensor(list), d);
  if (!js || !jl) return false;
  return c.check(launch_scatter_add(x.data(), upd.data(), dt(x.dtype), static_cast<const std::uint64_t*>(js->data()),
                                    static_cast<const std::uint64_t*>(jl->data()), out[0].data(), outer, n, J, inner, max_m,
                                    c.stream()),
                 "scatter_add kernel", d);
}

// ---- quantize, linear_q

bool quantize(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  bool q8 = out[0].dtype == DType::q8_0;
  auto cell = c.alloc(DType::u64, {1}, d);
  if (!cell || !c.check(launch_quantize(x.data(), dt(x.dtype), out[0].data(), q8, x.numel(),
                                        static_cast<unsigned long long*>(cell->data()), c.stream()),
                        "quantize kernel", d))
    return false;
  auto bad = read_first(c, *cell, d);
  if (!bad) return false;
  if (*bad == ~std::uint64_t{0}) return true;
  // The reference's message for the first failing block.
  std::uint64_t b = *bad / 4, K = x.shape.back(), first = b * num::kQBlock;
  auto st = static_cast<num::QStatus>(*bad % 4);
  std::string name(dtype_name(out[0].dtype));
  std::string where = "block " + std::to_string(b) + " (row " + std::to_string(first / K) + ", elements " +
                      std::to_string(first % K) + ".." + std::to_string(first % K + 31) + ")";
  if (st == num::QStatus::non_finite) return refuse("quantize", where + " holds an inf or NaN, which " + name + " cannot represent", d);
  return refuse("quantize",
                where + ": its scale overflows f16 (" + name + " holds |x| up to about " + (q8 ? "8.3e6" : "5.2e5") + ")", d);
}

bool linear_q(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor &x = in[0], &w = in[1];
  std::uint64_t N = w.shape[0], K = w.shape[1], rows = ops::element_count(ops::Extents(x.shape.begin(), x.shape.end() - 1));
  bool int8 = a.string("compute") == "int8";
  std::optional<DevTensor> qx, dx;
  if (int8) {
    qx = c.alloc(DType::i8, {rows * K + 1}, d);
    dx = c.alloc(DType::f32, {rows * K / num::kQBlock + 1}, d);
    if (!qx || !dx) return false;
  }
  const DevTensor* b = in.size() > 2 ? &in[2] : nullptr;
  return c.check(launch_linear_q(x.data(), dt(x.dtype), w.data(), w.dtype == DType::q8_0, b ? b->data() : nullptr,
                                 b ? dt(b->dtype) : 0, out[0].data(), rows, N, K, int8,
                                 int8 ? static_cast<std::int8_t*>(qx->data()) : nullptr,
                                 int8 ? static_cast<float*>(dx->data()) : nullptr, c.stream()),
                 "linear_q kernel", d);
}

// ---- csr_from_dense, csr_from_coo (data-dependent nnz)

// Allocates indices and values for nnz entries (the reference's allocate_csr limits).
bool alloc_csr(Context& c, const std::string& op, std::uint64_t nnz, std::uint64_t cols, Out& out, DiagnosticSink& d) {
  if (out[0].dtype == DType::i32 && (nnz > 0x7FFFFFFFull || cols > 0x7FFFFFFFull))
    return refuse(op, "the result needs more than 2^31 - 1 entries or columns; use i64 indices", d);
  auto idx = c.alloc(out[0].dtype, {nnz}, d), val = c.alloc(out[2].dtype, {nnz}, d);
  if (!idx || !val) return false;
  out[1] = std::move(*idx);
  out[2] = std::move(*val);
  return true;
}

bool csr_from_dense(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  std::uint64_t M = x.shape[0], K = x.shape[1];
  auto offsets = c.alloc(DType::u64, {M + 1}, d);
  if (!offsets || !c.check(launch_dense_row_offsets(x.data(), dt(x.dtype), M, K, static_cast<std::uint64_t*>(offsets->data()),
                                                    c.stream()),
                           "csr_from_dense count pass", d))
    return false;
  auto cell = c.alloc(DType::u64, {1}, d);
  if (!cell) return false;
  std::int64_t zero = 0;
  if (!c.check(launch_copy_strided(offsets->data(), static_cast<std::int64_t>(M), &zero, cell->data(), 0, &zero, Dims{1, {1}}, 8,
                                   c.stream()),
               "nnz read", d))
    return false;
  auto nnz = read_first(c, *cell, d);
  if (!nnz || !alloc_csr(c, "csr_from_dense", *nnz, K, out, d)) return false;
  int bytes = static_cast<int>(dtype_info(x.dtype).block_bytes);
  return c.check(launch_dense_to_csr(x.data(), bytes, dt(x.dtype), M, K, static_cast<const std::uint64_t*>(offsets->data()),
                                     out[0].dtype == DType::i64, out[0].data(), out[1].data(), out[2].data(), c.stream()),
                 "csr_from_dense fill pass", d) &&
         canonicalize(c, out[2], d);
}

bool csr_from_coo(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor &rows = in[0], &cols = in[1], &vals = in[2];
  auto M = static_cast<std::uint64_t>(a.integer("n_rows")), K = static_cast<std::uint64_t>(a.integer("n_cols"));
  std::uint64_t n = rows.numel();
  bool i64 = rows.dtype == DType::i64;
  if (n > kMaxRow) return too_long("csr_from_coo's entry list", n, d);  // a group's sum is one tree launch
  auto cell = c.alloc(DType::u64, {1}, d);
  if (!cell || !c.check(launch_coo_check(rows.data(), cols.data(), i64, n, M, K, static_cast<unsigned long long*>(cell->data()),
                                         c.stream()),
                        "csr_from_coo check", d))
    return false;
  auto bad = read_first(c, *cell, d);
  if (!bad) return false;
  if (*bad != ~std::uint64_t{0}) {  // the reference's message for the first bad entry
    auto rh = c.download(rows, d), ch = c.download(cols, d);
    if (!rh || !ch) return false;
    std::int64_t r = rh->load_i64(*bad), k = ch->load_i64(*bad);
    std::string e = std::to_string(*bad);
    if (r < 0 || static_cast<std::uint64_t>(r) >= M)
      return refuse("csr_from_coo", "row index " + std::to_string(r) + " of entry " + e + " is out of range [0, " + std::to_string(M) + ")", d);
    return refuse("csr_from_coo", "column index " + std::to_string(k) + " of entry " + e + " is out of range [0, " + std::to_string(K) + ")", d);
  }
  auto order = c.alloc(DType::u64, {n + 1}, d), starts = c.alloc(DType::u64, {n + 1}, d);
  if (!order || !starts ||
      !c.check(launch_coo_group(rows.data(), cols.data(), i64, n, M, K, static_cast<std::uint64_t*>(order->data()),
                                static_cast<std::uint64_t*>(starts->data()), static_cast<std::uint64_t*>(cell->data()), c.stream()),
               "csr_from_coo count pass", d))
    return false;
  auto nnz = read_first(c, *cell, d);
  if (!nnz || !alloc_csr(c, "csr_from_coo", *nnz, K, out, d)) return false;
  return c.check(launch_coo_fill(rows.data(), cols.data(), i64, vals.data(), dt(vals.dtype), n, M,
                                 static_cast<const std::uint64_t*>(order->data()), static_cast<std::uint64_t*>(starts->data()), *nnz,
                                 out[0].data(), out[1].data(), out[2].data(), c.stream()),
                 "csr_from_coo fill pass", d) &&
         canonicalize(c, out[2], d);
}

}  // namespace

void add_nn_dev_kernels(std::map<std::string, DevKernel, std::less<>>& t) {
  t.emplace("rope", rope);
  t.emplace("attention", attention);
  t.emplace("cross_entropy", cross_entropy);
  t.emplace("scatter_add", scatter_add);
  t.emplace("quantize", quantize);
  t.emplace("linear_q", linear_q);
  t.emplace("csr_from_dense", csr_from_dense);
  t.emplace("csr_from_coo", csr_from_coo);
}

// The ops whose result shapes the kernel decides (run_dev leaves those outputs unallocated).
bool dev_kernel_sizes_outputs(std::string_view op) { return op == "csr_from_dense" || op == "csr_from_coo"; }

}  // namespace rung::cuda

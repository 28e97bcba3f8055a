// CSR construction, whose result size (nnz) depends on the data: two programs (kernel.h,
// Program::count_slot). The first computes indptr, whose last entry is nnz; the executor reads
// it back, allocates indices and values, and runs the second, which fills them. No atomics:
// counts are per row (or per sorted position), prefix sums run in fixed chunks, the sort is a
// merge sort on unique keys, so every position is determined by the data alone.
//
//   csr_from_dense: count nonzeros per row → prefix sum into indptr | fill each row in order.
//   csr_from_coo:   validate → merge sort of entry numbers by (row, col, entry) → group heads →
//                   prefix sum → indptr by binary search | group starts → per group the column
//                   and the value (one entry copied, several summed by the canonical tree in
//                   input order, like the reference).
#include <algorithm>
#include <bit>

#include "backends/webgpu/wgsl/generator.h"
#include "backends/webgpu/wgsl/module.h"
#include "backends/webgpu/wgsl/tree.h"

namespace rung::webgpu {
namespace {

constexpr std::uint32_t kWg = 64;
constexpr std::uint64_t kChunk = 256;  // values per invocation in the prefix sum's first pass
const char* const kFlat = "  let i = gid.x + gid.y * nwg.x * 64u;\n";

// A tensor a step binds: its slot, WGSL name, word type and what it holds.
struct Operand {
  int slot;
  std::string name;
  Scalar type;
  std::string what;
};

std::string bind(Module& m, const Operand& o, bool writable) { return m.bind(o.slot, o.name, o.type, writable, o.what); }

// Exclusive prefix sum of `cnt` (u32, L values) into `dst` (L + 1 values, dst[L] the total):
// chunk totals, their scan in one invocation, then each chunk written from its offset.
// Integer addition is exact, and the order is fixed anyway.
void prefix_sum_steps(const KernelArgs& a, Program& p, const Operand& cnt, const Operand& dst, const Operand& tot,
                      std::uint64_t L) {
  std::uint64_t C = std::max<std::uint64_t>(1, (L + kChunk - 1) / kChunk);
  std::string t(wgsl_type(dst.type));
  {
    Module m(a, "prefix sum 1/3: the total of each chunk of " + std::to_string(kChunk) + " counts");
    bind(m, cnt, false);
    bind(m, tot, true);
    m.constant("L", L);
    m.constant("C", C);
    m.constant("CH", kChunk);
    p.steps.push_back(m.finish(std::string(kFlat) +
                                   "  if (i >= C) { return; }\n  var s = 0u;\n"
                                   "  for (var r = i * CH; r < min((i + 1u) * CH, L); r = r + 1u) { s = s + " + cnt.name + "[r]; }\n"
                                   "  " + tot.name + "[i] = s;\n",
                               kWg, grid_for(C, kWg, a.caps)));
  }
  {
    Module m(a, "prefix sum 2/3: the chunk totals scanned in order (one invocation)");
    bind(m, tot, true);
    m.constant("C", C);
    p.steps.push_back(m.finish("  if (gid.x != 0u || gid.y != 0u) { return; }\n  var run = 0u;\n"
                               "  for (var c = 0u; c < C; c = c + 1u) {\n    let s = " + tot.name + "[c];\n    " + tot.name +
                                   "[c] = run;\n    run = run + s;\n  }\n",
                               1, {1, 1, 1}));
  }
  {
    Module m(a, "prefix sum 3/3: each chunk written from its offset; the last entry is the total");
    bind(m, cnt, false);
    bind(m, tot, false);
    bind(m, dst, true);
    m.constant("L", L);
    m.constant("C", C);
    m.constant("CH", kChunk);
    p.steps.push_back(m.finish(std::string(kFlat) + "  if (i >= C) { return; }\n  var run = " + tot.name + "[i];\n" +
                                   "  let e = min((i + 1u) * CH, L);\n" +
                                   "  for (var r = i * CH; r < e; r = r + 1u) {\n    " + dst.name + "[r] = " + t + "(run);\n    run = run + " +
                                   cnt.name + "[r];\n  }\n  if (e == L) { " + dst.name + "[L] = " + t + "(run); }\n",
                               kWg, grid_for(C, kWg, a.caps)));
  }
}

bool fits(const KernelArgs& a, std::uint64_t words, const std::string& what, std::string& error) {
  if (words * 4 <= a.caps.max_binding) return true;
  error = what + " (" + std::to_string(words * 4) + " bytes) exceeds the device's maxStorageBufferBindingSize; " + a.op.name +
          " is not split across bindings";
  return false;
}

bool index_type_ok(const KernelArgs& a, DType index, std::uint64_t cols, std::string& error) {
  if (scalar_of(index) != Scalar::i32) {
    error = "CSR index tensors must be signed integers";
    return false;
  }
  std::uint64_t nnz = a.count.value_or(0);
  if (nnz > 0x7FFFFFFFull || cols > 0x7FFFFFFFull) {
    error = "the result needs more than 2^31 - 1 entries or columns (the device keeps indices in 32 bits)";
    return false;
  }
  return true;
}

std::optional<Program> emit_csr_from_dense(const KernelArgs& a, std::string& error) {
  const TensorDesc& x = a.in[0];
  std::uint64_t M = x.shape[0], K = x.shape[1];
  if (!index_type_ok(a, a.out[0].dtype, K, error) || !fits(a, x.numel(), "x", error) || !fits(a, M + 1, "indptr", error) ||
      !fits(a, a.count.value_or(0), "indices", error))
    return std::nullopt;
  const Operand xs{0, "x", Scalar::u32, x.to_string() + " as bits (entries whose bits other than the sign are nonzero are kept)"};
  const Operand indptr{1, "indptr", Scalar::i32, "indptr " + a.out[0].to_string()};
  const Operand counts{4, "counts", Scalar::u32, "scratch: stored entries per row"};
  const Operand tot{5, "chunk_totals", Scalar::u32, "scratch: per chunk of rows, its total, then its offset"};
  // Nonzero test on the bits: NaN is kept, +0 and -0 dropped, subnormals kept even on a device
  // that flushes them in comparisons.
  const std::string nonzero = "fn stored(w: u32) -> bool { return (w & 0x7fffffffu) != 0u; }\n";
  Program p;
  if (!a.count) {
    p.scratch_words = {std::max<std::uint64_t>(M, 1), std::max<std::uint64_t>(1, (M + kChunk - 1) / kChunk)};
    Module m(a, "count the stored entries of each row");
    m.comment("indices and values are sized by nnz = indptr[M], read back after this program");
    bind(m, xs, false);
    bind(m, counts, true);
    m.constant("M", M);
    m.constant("K", K);
    m.code(nonzero);
    p.steps.push_back(m.finish(std::string(kFlat) + "  if (i >= M) { return; }\n  var c = 0u;\n"
                                   "  for (var k = 0u; k < K; k = k + 1u) { if (stored(x[i * K + k])) { c = c + 1u; } }\n"
                                   "  counts[i] = c;\n",
                               kWg, grid_for(M, kWg, a.caps)));
    prefix_sum_steps(a, p, counts, indptr, tot, M);
    p.count_slot = indptr.slot;
    p.count_word = M;
    p.sized_by_count = {1, 2};
    return p;
  }
  Module m(a, "fill each row's entries in column order from indptr[row]");
  bind(m, xs, false);
  bind(m, indptr, false);
  bind(m, {2, "indices", Scalar::i32, "indices " + a.out[1].to_string()}, true);
  bind(m, {3, "values", Scalar::u32, "values " + a.out[2].to_string() + " as bits (copied)"}, true);
  m.constant("M", M);
  m.constant("K", K);
  m.code(nonzero);
  p.steps.push_back(m.finish(std::string(kFlat) + "  if (i >= M) { return; }\n  var p = u32(indptr[i]);\n"
                                 "  for (var k = 0u; k < K; k = k + 1u) {\n    let w = x[i * K + k];\n"
                                 "    if (stored(w)) {\n      indices[p] = i32(k);\n      values[p] = w;\n      p = p + 1u;\n    }\n  }\n",
                             kWg, grid_for(M, kWg, a.caps)));
  return p;
}

// Sort key of entry e: (row, col, e), unique, so the merge sort's result is determined.
const char* const kLess = R"(// Entry a sorts before entry b: by row, then column, then input position (a stable sort).
fn before(a: u32, b: u32) -> bool {
  let ra = rows[a];
  let rb = rows[b];
  if (ra != rb) { return ra < rb; }
  let ca = cols[a];
  let cb = cols[b];
  if (ca != cb) { return ca < cb; }
  return a < b;
}
)";

std::optional<Program> emit_csr_from_coo(const KernelArgs& a, std::string& error) {
  std::uint64_t n = a.in[0].numel();
  auto M = static_cast<std::uint64_t>(a.attrs.integer("n_rows")), K = static_cast<std::uint64_t>(a.attrs.integer("n_cols"));
  if (!index_type_ok(a, a.in[0].dtype, K, error) || !fits(a, n + 1, "the entries", error) ||
      !fits(a, M + 1, "indptr", error))
    return std::nullopt;
  if (n > kTreeMaxValues || M > 0x7FFFFFFFull) {
    error = "more than 2^24 entries or 2^31 - 1 rows";
    return std::nullopt;
  }
  const std::uint64_t C = std::max<std::uint64_t>(1, (n + kChunk - 1) / kChunk);
  const Operand rows{0, "rows", Scalar::i32, "rows " + a.in[0].to_string()};
  const Operand cols{1, "cols", Scalar::i32, "cols " + a.in[1].to_string()};
  const Operand vals{2, "vals", Scalar::u32, "values " + a.in[2].to_string() + " as bits"};
  const Operand indptr{3, "indptr", Scalar::i32, "indptr " + a.out[0].to_string()};
  const Operand order[2] = {{6, "order_a", Scalar::u32, "scratch: entry numbers (merge sort, even passes)"},
                            {7, "order_b", Scalar::u32, "scratch: entry numbers (merge sort, odd passes)"}};
  const Operand heads{8, "heads", Scalar::u32, "scratch: 1 where a sorted position starts a (row, col) group"};
  const Operand gpos{9, "groups_before", Scalar::u32, "scratch: groups starting before each sorted position; last = nnz"};
  const Operand tot{10, "chunk_totals", Scalar::u32, "scratch: per chunk of positions, its total, then its offset"};
  const Operand status{11, "status", Scalar::u32, "status word: 1 = an index out of range"};
  int passes = 0;
  for (std::uint64_t w = 1; w < n; w *= 2) ++passes;
  const Operand& sorted = order[passes % 2];
  Program p;
  if (!a.count) {
    p.scratch_words = {std::max<std::uint64_t>(n, 1), std::max<std::uint64_t>(n, 1), std::max<std::uint64_t>(n, 1), n + 1, C, 1};
    p.can_fail = true;
    p.fail_message = "a row index outside [0, " + std::to_string(M) + ") or a column index outside [0, " + std::to_string(K) + ")";
    {
      Module m(a, "check every entry's row and column, and number the entries");
      m.comment("indices and values are sized by nnz = indptr[n_rows], read back after this program");
      bind(m, rows, false);
      bind(m, cols, false);
      bind(m, order[0], true);
      bind(m, status, true);
      m.constant("N", n);
      p.steps.push_back(m.finish(std::string(kFlat) + "  if (i >= N) { return; }\n" +
                                     "  if (rows[i] < 0 || rows[i] >= " + i32_lit(static_cast<std::int64_t>(M)) + " || cols[i] < 0 || cols[i] >= " +
                                     i32_lit(static_cast<std::int64_t>(std::min<std::uint64_t>(K, 0x7FFFFFFF))) + ") { status[0] = 1u; }\n" +
                                     "  order_a[i] = i;\n",
                                 kWg, grid_for(n, kWg, a.caps)));
    }
    int pass = 0;
    for (std::uint64_t w = 1; w < n; w *= 2, ++pass) {
      const Operand &src = order[pass % 2], &dst = order[(pass + 1) % 2];
      Module m(a, "merge sort pass " + std::to_string(pass + 1) + " of " + std::to_string(passes) + ": sorted runs of " +
                      std::to_string(w) + " merged in pairs");
      m.comment("each entry's place = its place in its run + the entries of the partner run sorting before it (binary search)");
      bind(m, rows, false);
      bind(m, cols, false);
      m.bind(src.slot, "src", Scalar::u32, false, src.what);
      m.bind(dst.slot, "dst", Scalar::u32, true, dst.what);
      m.constant("N", n);
      m.constant("W", w);
      m.code(kLess);
      p.steps.push_back(m.finish(std::string(kFlat) +
                                     "  if (i >= N) { return; }\n  let e = src[i];\n  let run = i / W;\n"
                                     "  let base = (run / 2u) * 2u * W;\n  var lo = base;\n  var hi = base + W;\n"
                                     "  var own = i - base - W;\n"
                                     "  if (run % 2u == 0u) { lo = min(base + W, N); hi = min(base + 2u * W, N); own = i - base; }\n"
                                     "  var l = lo;\n  var h = hi;\n"
                                     "  while (l < h) {\n    let mid = (l + h) / 2u;\n"
                                     "    if (before(src[mid], e)) { l = mid + 1u; } else { h = mid; }\n  }\n"
                                     "  dst[base + own + (l - lo)] = e;\n",
                                 kWg, grid_for(n, kWg, a.caps)));
    }
    {
      Module m(a, "mark the sorted positions that start a (row, col) group");
      bind(m, rows, false);
      bind(m, cols, false);
      m.bind(sorted.slot, "sorted", Scalar::u32, false, sorted.what + " — sorted");
      bind(m, heads, true);
      m.constant("N", n);
      p.steps.push_back(m.finish(std::string(kFlat) +
                                     "  if (i >= N) { return; }\n  let e = sorted[i];\n  var h = 1u;\n"
                                     "  if (i > 0u) {\n    let q = sorted[i - 1u];\n"
                                     "    if (rows[q] == rows[e] && cols[q] == cols[e]) { h = 0u; }\n  }\n  heads[i] = h;\n",
                                 kWg, grid_for(n, kWg, a.caps)));
    }
    prefix_sum_steps(a, p, heads, gpos, tot, n);
    {
      Module m(a, "indptr[r] = groups before the first sorted position whose row is >= r (binary search)");
      bind(m, rows, false);
      m.bind(sorted.slot, "sorted", Scalar::u32, false, sorted.what + " — sorted");
      bind(m, gpos, false);
      bind(m, indptr, true);
      m.constant("N", n);
      m.constant("R", M + 1);
      p.steps.push_back(m.finish(std::string(kFlat) +
                                     "  if (i >= R) { return; }\n  var l = 0u;\n  var h = N;\n"
                                     "  while (l < h) {\n    let mid = (l + h) / 2u;\n"
                                     "    if (rows[sorted[mid]] < i32(i)) { l = mid + 1u; } else { h = mid; }\n  }\n"
                                     "  indptr[i] = i32(groups_before[l]);\n",
                                 kWg, grid_for(M + 1, kWg, a.caps)));
    }
    p.count_slot = indptr.slot;
    p.count_word = M;
    p.sized_by_count = {1, 2};
    return p;
  }
  std::uint64_t nnz = *a.count;
  if (!fits(a, nnz + 1, "the group starts", error)) return std::nullopt;
  const Operand starts{12, "starts", Scalar::u32, "scratch: the first sorted position of each group; last = n"};
  p.scratch_words = {nnz + 1};
  {
    Module m(a, "record where each group starts");
    bind(m, heads, false);
    bind(m, gpos, false);
    bind(m, starts, true);
    m.constant("N", n);
    m.constant("G", nnz);
    p.steps.push_back(m.finish(std::string(kFlat) + "  if (i >= N) { return; }\n" +
                                   "  if (heads[i] == 1u) { starts[groups_before[i]] = i; }\n  if (i == 0u) { starts[G] = N; }\n",
                               kWg, grid_for(n, kWg, a.caps)));
  }
  Module m(a, "per group: its column; its value copied (one entry) or the canonical sum in input order");
  bind(m, cols, false);
  bind(m, vals, false);
  m.bind(sorted.slot, "sorted", Scalar::u32, false, sorted.what + " — sorted");
  bind(m, starts, false);
  bind(m, {4, "indices", Scalar::i32, "indices " + a.out[1].to_string()}, true);
  bind(m, {5, "values", Scalar::u32, "values " + a.out[2].to_string() + " as bits"}, true);
  m.constant("G", nnz);
  std::string fit = fit_function(m, a.out[2].dtype);
  m.code(tree_code("acc", "f32", "a + b", "0.0f"));
  p.steps.push_back(m.finish(std::string(kFlat) +
                                 "  if (i >= G) { return; }\n  let s = starts[i];\n  let e = starts[i + 1u];\n"
                                 "  indices[i] = cols[sorted[s]];\n"
                                 "  if (e - s == 1u) { values[i] = vals[sorted[s]]; return; }\n"
                                 "  acc_reset();\n"
                                 "  for (var q = s; q < e; q = q + 1u) { acc_push(bitcast<f32>(vals[sorted[q]])); }\n"
                                 "  values[i] = bitcast<u32>(" + fit + "(acc_result()));\n",
                             kWg, grid_for(nnz, kWg, a.caps)));
  return p;
}

}  // namespace

void register_csr_build_emitters(std::map<std::string, EmitterEntry>& t) {
  t["csr_from_dense"] = {emit_csr_from_dense, ops::kFloat32Like};
  t["csr_from_coo"] = {emit_csr_from_coo, ops::DTypeSet{DType::i8, DType::i16, DType::i32, DType::i64}};
}

}  // namespace rung::webgpu

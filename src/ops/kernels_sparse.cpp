// Reference kernels of the sparse family: CSR x dense (SpMM), CSR x vector (SpMV), CSR
// from dense / COO and back to dense. Every kernel validates the CSR structure first.
#include "ops/compute_type.h"
#include "ops/kernels_sparse.h"

#include <algorithm>

#include "ops/csr.h"
#include "ops/numerics/dot.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

// M from indptr's static length M + 1.
std::optional<Dim> rows_from_indptr(const Shape& indptr, std::string& err) {
  if (indptr.size() != 1) { err = "indptr must be 1-D, got " + shape_to_string(indptr); return std::nullopt; }
  if (!indptr[0].is_static() || indptr[0].extent() == 0) {
    err = "indptr's length (rows + 1) must be static and >= 1, got " + indptr[0].to_string();
    return std::nullopt;
  }
  return Dim::fixed(indptr[0].extent() - 1);
}

std::string check_entries(const Shape& indices, const Shape& values) {
  if (indices.size() != 1 || values.size() != 1 || !same_dim(indices[0], values[0]))
    return "indices and values must be 1-D of one length (nnz), got " + shape_to_string(indices) + " and " +
           shape_to_string(values);
  return {};
}

using compute::load;
using compute::store;

// The row's fma chain over its stored entries in storage (= column) order, from +0:
// the matmul chain with the absent (zero) terms skipped.
template <typename T, typename LoadB> T row_chain(const CsrView& a, std::uint64_t r, const LoadB& b) {
  std::uint64_t p0 = a.begin(r), n = a.end(r) - p0;
  auto av = [&](std::uint64_t t) { return load<T>(a.values, p0 + t); };
  auto bv = [&](std::uint64_t t) { return b(a.col(p0 + t)); };
  if constexpr (std::is_same_v<T, double>) return num::dot_chain_f64(n, av, bv);
  else return num::dot_chain_f32(n, av, bv);
}

template <typename T> void spmm_typed(KernelContext& c, const CsrView& a) {
  const HostTensor& B = c.inputs[3];
  HostTensor& Y = c.outputs[0];
  std::uint64_t N = B.rank() == 2 ? B.shape()[1] : 1;
  for (std::uint64_t r = 0; r < a.rows(); ++r)
    for (std::uint64_t j = 0; j < N; ++j)
      store<T>(Y, r * N + j, row_chain<T>(a, r, [&](std::uint64_t k) { return load<T>(B, k * N + j); }));
}

}  // namespace

ShapeResult rule_csr_matmul(const ShapeArgs& a) {
  std::string err;
  auto M = rows_from_indptr(a.inputs[0].shape, err);
  if (!M) return ShapeResult::fail(err);
  err = check_entries(a.inputs[1].shape, a.inputs[2].shape);
  if (!err.empty()) return ShapeResult::fail(err);
  const Shape& b = a.inputs[3].shape;
  if (b.size() != 2) return ShapeResult::fail("the dense operand must be [K, N], got " + shape_to_string(b));
  return ShapeResult::ok({Shape{*M, b[1]}});
}

ShapeResult rule_csr_matvec(const ShapeArgs& a) {
  std::string err;
  auto M = rows_from_indptr(a.inputs[0].shape, err);
  if (!M) return ShapeResult::fail(err);
  err = check_entries(a.inputs[1].shape, a.inputs[2].shape);
  if (!err.empty()) return ShapeResult::fail(err);
  if (a.inputs[3].shape.size() != 1)
    return ShapeResult::fail("the vector operand must be [K], got " + shape_to_string(a.inputs[3].shape));
  return ShapeResult::ok({Shape{*M}});
}

// Shared by csr_matmul and csr_matvec: K is the dense operand's first dim.
void csr_matmul_kernel(KernelContext& c) {
  CsrView a{c.inputs[0], c.inputs[1], c.inputs[2]};
  std::string err = validate_csr(a, c.inputs[3].shape()[0]);
  if (!err.empty()) return c.fail(err);
  if (c.inputs[2].dtype() == DType::f64) spmm_typed<double>(c, a);
  else spmm_typed<float>(c, a);
}

ShapeResult rule_csr_to_dense(const ShapeArgs& a) {
  std::string err;
  auto M = rows_from_indptr(a.inputs[0].shape, err);
  if (!M) return ShapeResult::fail(err);
  err = check_entries(a.inputs[1].shape, a.inputs[2].shape);
  if (!err.empty()) return ShapeResult::fail(err);
  std::int64_t K = a.attrs.integer("n_cols");
  if (K < 0) return ShapeResult::fail("n_cols must be >= 0");
  return ShapeResult::ok({Shape{*M, Dim::fixed(static_cast<std::uint64_t>(K))}});
}

// Stored entries are copied (bits kept, explicit zeros included); the rest is +0.
void csr_to_dense_kernel(KernelContext& c) {
  CsrView a{c.inputs[0], c.inputs[1], c.inputs[2]};
  auto K = static_cast<std::uint64_t>(c.attrs.integer("n_cols"));
  std::string err = validate_csr(a, K);
  if (!err.empty()) return c.fail(err);
  HostTensor& y = c.outputs[0];
  std::uint64_t w = dtype_info(y.dtype()).block_bytes;
  for (std::uint64_t r = 0; r < a.rows(); ++r)
    for (std::uint64_t p = a.begin(r); p < a.end(r); ++p)
      std::copy_n(a.values.bytes().begin() + static_cast<std::ptrdiff_t>(p * w), w,
                  y.bytes().begin() + static_cast<std::ptrdiff_t>((r * K + a.col(p)) * w));
}

// ---- construction

namespace {

std::string check_index_dtype(DType t) {
  if (t == DType::i32 || t == DType::i64) return {};
  return "CSR index tensors are i32 or i64, not " + std::string(dtype_name(t));
}

// Allocates the three CSR outputs for `nnz` entries; fails when i32 indices cannot hold them.
bool allocate_csr(KernelContext& c, std::uint64_t nnz, std::uint64_t cols) {
  DType it = c.outputs[0].dtype();
  if (it == DType::i32 && (nnz > 0x7FFFFFFFull || cols > 0x7FFFFFFFull)) {
    c.fail("the result needs more than 2^31 - 1 entries or columns; use i64 indices");
    return false;
  }
  c.outputs[1] = HostTensor(it, {nnz});
  c.outputs[2] = HostTensor(c.outputs[2].dtype(), {nnz});
  return true;
}

}  // namespace

ShapeResult rule_csr_from_dense(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  if (x.size() != 2) return ShapeResult::fail("csr_from_dense needs a matrix [M, K], got " + shape_to_string(x));
  std::string err = check_index_dtype(a.attrs.dtype("index_dtype"));
  if (!err.empty()) return ShapeResult::fail(err);
  if (!x[0].is_static()) return ShapeResult::fail("the row count " + x[0].to_string() + " must be static (indptr has rows + 1 entries)");
  Dim nnz = Dim::symbol("nnz");  // data-dependent: the kernel sizes these outputs
  return ShapeResult::ok({Shape{Dim::fixed(x[0].extent() + 1)}, Shape{nnz}, Shape{nnz}});
}

// Stores the entries with x != 0 (so +0 and -0 are dropped and NaN is kept), row by row,
// columns increasing; values are bit copies.
void csr_from_dense_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  std::uint64_t M = x.shape()[0], K = x.shape()[1];
  std::uint64_t nnz = 0;
  for (std::uint64_t i = 0; i < x.numel(); ++i) nnz += x.load_f64(i) != 0.0;
  if (!allocate_csr(c, nnz, K)) return;
  HostTensor &ptr = c.outputs[0], &idx = c.outputs[1], &val = c.outputs[2];
  std::uint64_t w = dtype_info(x.dtype()).block_bytes, p = 0;
  for (std::uint64_t r = 0; r < M; ++r) {
    ptr.store_int(r, p);
    for (std::uint64_t k = 0; k < K; ++k) {
      if (x.load_f64(r * K + k) == 0.0) continue;
      idx.store_int(p, k);
      std::copy_n(x.bytes().begin() + static_cast<std::ptrdiff_t>((r * K + k) * w), w,
                  val.bytes().begin() + static_cast<std::ptrdiff_t>(p * w));
      ++p;
    }
  }
  ptr.store_int(M, p);
}

ShapeResult rule_csr_from_coo(const ShapeArgs& a) {
  const Shape &rows = a.inputs[0].shape, &cols = a.inputs[1].shape, &vals = a.inputs[2].shape;
  if (rows.size() != 1 || cols.size() != 1 || vals.size() != 1 || !same_dim(rows[0], cols[0]) || !same_dim(rows[0], vals[0]))
    return ShapeResult::fail("rows, cols and values must be 1-D of one length, got " + shape_to_string(rows) + ", " +
                             shape_to_string(cols) + ", " + shape_to_string(vals));
  std::string err = check_index_dtype(a.inputs[0].dtype);
  if (!err.empty()) return ShapeResult::fail(err);
  std::int64_t M = a.attrs.integer("n_rows"), K = a.attrs.integer("n_cols");
  if (M < 0 || K < 0) return ShapeResult::fail("n_rows and n_cols must be >= 0");
  Dim nnz = Dim::symbol("nnz");
  return ShapeResult::ok({Shape{Dim::fixed(static_cast<std::uint64_t>(M) + 1)}, Shape{nnz}, Shape{nnz}});
}

// Entries sorted by (row, col), stably; the values of one (row, col) are combined by the
// canonical sum in input order (a single entry is copied as is). Explicit zeros stay stored.
void csr_from_coo_kernel(KernelContext& c) {
  const HostTensor &rows = c.inputs[0], &cols = c.inputs[1], &vals = c.inputs[2];
  auto M = static_cast<std::uint64_t>(c.attrs.integer("n_rows")), K = static_cast<std::uint64_t>(c.attrs.integer("n_cols"));
  std::uint64_t n = rows.numel();
  for (std::uint64_t e = 0; e < n; ++e) {
    std::int64_t r = rows.load_i64(e), k = cols.load_i64(e);
    if (r < 0 || static_cast<std::uint64_t>(r) >= M)
      return c.fail("row index " + std::to_string(r) + " of entry " + std::to_string(e) + " is out of range [0, " + std::to_string(M) + ")");
    if (k < 0 || static_cast<std::uint64_t>(k) >= K)
      return c.fail("column index " + std::to_string(k) + " of entry " + std::to_string(e) + " is out of range [0, " + std::to_string(K) + ")");
  }
  std::vector<std::uint64_t> order(n);
  for (std::uint64_t e = 0; e < n; ++e) order[e] = e;
  auto key = [&](std::uint64_t e) { return std::pair(rows.load_i64(e), cols.load_i64(e)); };
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t x, std::uint64_t y) { return key(x) < key(y); });
  // Groups of equal (row, col): [starts[g], starts[g + 1]) in `order`.
  std::vector<std::uint64_t> starts;
  for (std::uint64_t i = 0; i < n; ++i)
    if (i == 0 || key(order[i]) != key(order[i - 1])) starts.push_back(i);
  std::uint64_t nnz = starts.size();
  starts.push_back(n);
  if (!allocate_csr(c, nnz, K)) return;
  HostTensor &ptr = c.outputs[0], &idx = c.outputs[1], &val = c.outputs[2];
  bool f64 = vals.dtype() == DType::f64;
  std::uint64_t row = 0;
  for (std::uint64_t g = 0; g < nnz; ++g) {
    std::uint64_t first = order[starts[g]], m = starts[g + 1] - starts[g];
    auto r = static_cast<std::uint64_t>(rows.load_i64(first));
    while (row <= r) ptr.store_int(row++, g);
    idx.store_int(g, static_cast<std::uint64_t>(cols.load_i64(first)));
    if (m == 1) {
      std::uint64_t w = dtype_info(vals.dtype()).block_bytes;
      std::copy_n(vals.bytes().begin() + static_cast<std::ptrdiff_t>(first * w), w,
                  val.bytes().begin() + static_cast<std::ptrdiff_t>(g * w));
    } else if (f64) {
      val.store_f64(g, num::canonical_sum<double>(m, [&](std::uint64_t i) { return vals.load_f64(order[starts[g] + i]); }));
    } else {
      val.store_f32(g, num::canonical_sum<float>(m, [&](std::uint64_t i) { return vals.load_f32(order[starts[g] + i]); }));
    }
  }
  while (row <= M) ptr.store_int(row++, nnz);
}

}  // namespace rung::ops

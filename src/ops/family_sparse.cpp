// Sparse ops (ids 700-749) on canonical CSR matrices: indptr [M+1], indices [nnz] (i32 or
// i64), values [nnz]; rows sorted by column without duplicates, checked by every kernel
// (a malformed matrix is a diagnostic naming the fault). Products follow matmul's fma
// chain over the stored entries. Definitions: docs/semantics.md, "Sparse".
#include "ops/kernels_sparse.h"
#include "ops/registry.h"

namespace rung::ops {

namespace {
inline constexpr DTypeSet kIndex = {DType::i32, DType::i64};
}

void register_family_sparse(OpRegistry& r) {
  using TC = TolClass;
  r.add(OpDef("csr_matmul", 700)
            .doc("SpMM: A @ B for CSR A [M, K] and dense B [K, N]; per output the fma chain over A's stored entries")
            .type_var("T", kFloat).type_var("I", kIndex)
            .input("indptr", "I").input("indices", "I").input("values", "T").input("b", "T").output("y", "T")
            .shape(rule_csr_matmul).kernel(csr_matmul_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
  r.add(OpDef("csr_matvec", 701)
            .doc("SpMV: A @ x for CSR A [M, K] and x [K]")
            .type_var("T", kFloat).type_var("I", kIndex)
            .input("indptr", "I").input("indices", "I").input("values", "T").input("x", "T").output("y", "T")
            .shape(rule_csr_matvec).kernel(csr_matmul_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
  r.add(OpDef("csr_from_dense", 702)
            .doc("CSR of a dense matrix: entries != 0 (NaN kept, +-0 dropped), rows in order, columns increasing")
            .type_var("T", kFloat).input("x", "T")
            .output("indptr", "attr:index_dtype").output("indices", "attr:index_dtype").output("values", "T")
            .attr("index_dtype", DType::i64, "i32 or i64")
            .shape(rule_csr_from_dense).kernel(csr_from_dense_kernel));
  r.add(OpDef("csr_from_coo", 703)
            .doc("CSR from (row, col, value) triples: sorted by (row, col); duplicates summed (canonical sum, input order)")
            .type_var("T", kFloat).type_var("I", kIndex)
            .input("rows", "I").input("cols", "I").input("values", "T")
            .output("indptr", "I").output("indices", "I").output("values", "T")
            .attr("n_rows", AttrKind::integer, "M").attr("n_cols", AttrKind::integer, "K")
            .shape(rule_csr_from_coo).kernel(csr_from_coo_kernel)
            .tolerance_classes(TC::exact, TC::exact, TC::tight));
  r.add(OpDef("csr_to_dense", 704)
            .doc("the dense [M, n_cols] matrix of a CSR matrix (stored bits copied, +0 elsewhere)")
            .type_var("T", kFloat).type_var("I", kIndex)
            .input("indptr", "I").input("indices", "I").input("values", "T").output("y", "T")
            .attr("n_cols", AttrKind::integer, "K")
            .shape(rule_csr_to_dense).kernel(csr_to_dense_kernel));
}

}  // namespace rung::ops

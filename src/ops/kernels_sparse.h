// Shape rules and reference kernels of the sparse family (family_sparse.cpp). A CSR matrix
// is three tensors: indptr [M+1], indices [nnz], values [nnz] (ops/csr.h).
#pragma once

#include "ops/op_def.h"

namespace rung::ops {

ShapeResult rule_csr_matmul(const ShapeArgs& a);
ShapeResult rule_csr_matvec(const ShapeArgs& a);
ShapeResult rule_csr_to_dense(const ShapeArgs& a);
ShapeResult rule_csr_from_dense(const ShapeArgs& a);
ShapeResult rule_csr_from_coo(const ShapeArgs& a);
void csr_matmul_kernel(KernelContext& c);  // also csr_matvec (a vector is one column)
void csr_to_dense_kernel(KernelContext& c);
void csr_from_dense_kernel(KernelContext& c);
void csr_from_coo_kernel(KernelContext& c);

}  // namespace rung::ops

// Conformance of one backend against the reference: for each op and each dtype the backend
// must cover, generated cases (case_gen.h) run on the backend and are compared with the
// reference's outputs under the op's tolerance class for the tier (ops::compare). A class
// that is bit-exact also requires the raw bytes to match, so a NaN with a non-canonical
// payload fails (docs/semantics.md §2: every output NaN is canonical). A missing kernel,
// a case the backend refuses, or a case the generator cannot build is a failure, never a
// skip.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ops/op_def.h"
#include "ops/tolerance.h"
#include "runtime/op_backend.h"

namespace rung::conformance {

struct ConformOptions {
  std::uint64_t seed = 0x72756e67;  // "rung"
  std::size_t cases = 16;           // per (op, dtype)
  ops::Tier tier = ops::Tier::debug;
  std::uint64_t max_elems = 8192;   // per operand
  // Dtypes the backend does not claim are `unclaimed` rather than `missing` (the run-time
  // check: a program is vouched for by the dtypes the kernel covers; `rung conform` is strict).
  bool claimed_only = false;
};

// unclaimed: a dtype the backend does not claim, with ConformOptions::claimed_only (not a failure).
enum class RowVerdict { pass, fail, missing, unclaimed };
std::string_view row_verdict_name(RowVerdict v);

// One (op, dtype) row of the report.
struct RowResult {
  std::string dtype;  // "f32", or "-" for ops without a type variable
  RowVerdict verdict = RowVerdict::pass;
  std::size_t cases = 0;
  std::uint64_t elements = 0;       // output elements compared
  std::uint64_t differing = 0;      // output elements whose bits differ from the reference's
  std::uint64_t nan_payload = 0;    // of those: NaN on both sides, payload or sign differs
  double max_ulp = 0;
  std::string failure;              // first failure: what, on which case
};

struct OpReport {
  std::string op;
  std::string backend;
  ops::TolClass cls = ops::TolClass::exact;
  ops::Tier tier = ops::Tier::debug;
  std::string thresholds;  // the f32 row of the tolerance table, for the report
  std::string kernel_hash;
  std::vector<RowResult> rows;
  // SHA3 over the tensor hashes of every output the backend produced, in case order: equal
  // digests on two machines mean bit-identical results (the cross-architecture check).
  Hash256 outputs_digest;

  bool pass() const;
  std::size_t cases() const;
  nlohmann::json to_json() const;
};

// Does `backend` claim a kernel for (op, dtype)? (Ops without type variables: any entry.)
bool claims_kernel(const runtime::OpBackend& backend, const ops::OpDef& op, std::optional<DType> dtype);

OpReport conform_op(const ops::OpDef& op, runtime::OpBackend& backend, const ConformOptions& options);

}  // namespace rung::conformance

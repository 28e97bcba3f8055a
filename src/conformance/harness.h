// Conformance of one backend against the reference: for each op and each dtype the backend
// must cover, generated cases (case_gen.h) run on the backend and are compared with the
// reference's outputs under the class the backend's agreement declares (ops::compare):
// for an exact-capable backend the op's class for the tier; for one that is not (webgpu)
// the op's prod class resolved for tier prod (OpBackend::agreement_class). A class that is
// bit-exact also requires the raw bytes to match, so a NaN with a non-canonical payload
// fails (docs/semantics.md §2: every output NaN is canonical). A missing kernel, a case the
// backend refuses, or a case the generator cannot build is a failure, never a skip; a dtype
// or value the backend declares its device cannot hold (f64, 64-bit integers beyond 32 bits
// on WebGPU) is "not supported on this device", named with its code, neither pass nor fail.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ops/op_def.h"
#include "ops/tolerance.h"
#include "runtime/op_backend.h"
#include "runtime/progress.h"

namespace rung::conformance {

struct ConformOptions {
  std::uint64_t seed = 0x72756e67;  // "rung"
  std::size_t cases = 16;           // per (op, dtype)
  ops::Tier tier = ops::Tier::debug;
  std::uint64_t max_elems = 8192;   // per operand
  // Dtypes the backend does not claim are `unclaimed` rather than `missing` (the run-time
  // check: a program is vouched for by the dtypes the kernel covers; `rung conform` is strict).
  bool claimed_only = false;
  // Non-empty: the first failing case of each (op, dtype) is written there to be looked at or
  // replayed (`rung eval`): DIR/<op>.<dtype>.case<N>/ with in<j>.npy, reference<k>.npy,
  // got<k>.npy (when the backend gave results) and case.txt (the case, attributes, verdict).
  std::string dump_dir;
  // Told as each claimed (op, dtype) row starts: done = rows of this op already run, total =
  // the op's claimed rows (conform_suite turns these into the suite's count).
  runtime::ProgressFn progress;
};

// unclaimed: a dtype the backend does not claim, with ConformOptions::claimed_only (not a failure).
// unsupported: a dtype the device cannot hold (OpBackend::unsupported_dtype), or a row whose
// every case was refused by a capability code; neither pass nor fail, and no receipt covers it.
enum class RowVerdict { pass, fail, missing, unclaimed, unsupported };
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
  std::size_t unsupported_cases = 0;  // refused with a capability code: not supported on this device
  std::size_t flushed_cases = 0;      // agreed only with subnormals read as zero (flushing devices)
  std::string failure;              // first failure: what, on which case
  std::string unsupported;          // "A0010 ..." for the first case (or the dtype) not supported
};

struct OpReport {
  std::string op;
  std::string backend;
  ops::TolClass cls = ops::TolClass::exact;  // the class the outputs were judged by
  ops::Tier tier = ops::Tier::debug;         // the tier the run asked for
  ops::Tier judged_tier = ops::Tier::debug;  // the tier whose thresholds resolved `cls`
  std::string thresholds;  // the f32 row of the tolerance table, for the report
  // How the class was chosen: "op class for tier debug (exact-capable backend)", or
  // "backend-declared: prod class (not exact-capable); subnormals read as zero".
  std::string agreement;
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
// The rows of `op` conform_op runs cases for on `backend`: those whose kernel it claims.
std::size_t claimed_rows(const runtime::OpBackend& backend, const ops::OpDef& op);

// How a backend's results are judged: "each op's class for tier debug (exact-capable backend)"
// or the backend-declared agreement of one that is not.
std::string agreement_description(const runtime::OpBackend& backend, ops::Tier tier);

OpReport conform_op(const ops::OpDef& op, runtime::OpBackend& backend, const ConformOptions& options);

}  // namespace rung::conformance

#include "conformance/harness.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "conformance/case_gen.h"
#include "conformance/judge.h"
#include "ops/kernel_coverage.h"
#include "ops/compare.h"
#include "runtime/npy.h"
#include "runtime/tensor_hash.h"

namespace rung::conformance {

std::string_view row_verdict_name(RowVerdict v) {
  switch (v) {
    case RowVerdict::pass: return "pass";
    case RowVerdict::fail: return "FAIL";
    case RowVerdict::missing: return "MISSING";
    case RowVerdict::unclaimed: return "unclaimed";
    case RowVerdict::unsupported: return "unsupported";
  }
  return "?";
}

bool OpReport::pass() const {
  bool any_pass = std::any_of(rows.begin(), rows.end(), [](const RowResult& r) { return r.verdict == RowVerdict::pass; });
  return any_pass && std::all_of(rows.begin(), rows.end(), [](const RowResult& r) {
           return r.verdict == RowVerdict::pass || r.verdict == RowVerdict::unclaimed || r.verdict == RowVerdict::unsupported;
         });
}

std::size_t OpReport::cases() const {
  std::size_t n = 0;
  for (const auto& r : rows) n += r.cases;
  return n;
}

nlohmann::json OpReport::to_json() const {
  nlohmann::json jrows = nlohmann::json::array();
  for (const auto& r : rows)
    jrows.push_back({{"dtype", r.dtype}, {"verdict", row_verdict_name(r.verdict)}, {"cases", r.cases},
                     {"elements", r.elements}, {"differing_elements", r.differing}, {"nan_payload_differences", r.nan_payload},
                     {"max_ulp", r.max_ulp}, {"unsupported_cases", r.unsupported_cases}, {"flushed_cases", r.flushed_cases},
                     {"failure", r.failure}, {"unsupported", r.unsupported}});
  return {{"op", op}, {"backend", backend}, {"tier", ops::tier_name(tier)}, {"class", ops::tol_class_name(cls)},
          {"class_tier", ops::tier_name(judged_tier)}, {"agreement", agreement}, {"thresholds_f32", thresholds}, {"kernel_hash", kernel_hash}, {"outputs_digest", outputs_digest.hex()}, {"pass", pass()}, {"rows", jrows}};
}

bool claims_kernel(const runtime::OpBackend& backend, const ops::OpDef& op, std::optional<DType> dtype) {
  if (dtype) return backend.kernel(op, *dtype) != nullptr;
  // No type variable (iota, random_*): the registry entry's dtype set is empty by
  // construction, so either the backend answers for some result dtype or its entry exists.
  for (std::uint8_t code = 1; code <= kDTypeMaxCode; ++code)
    if (auto t = dtype_from_code(code); t && backend.kernel(op, *t)) return true;
  return ops::op_registry().kernel(op.id, backend.id()) != nullptr;
}


std::string agreement_description(const runtime::OpBackend& backend, ops::Tier tier) {
  if (backend.exact_capable()) return "each op's class for tier " + std::string(ops::tier_name(tier)) + " (exact-capable backend)";
  return "backend-declared (not exact-capable): each op's prod class with tier prod's thresholds" +
         std::string(backend.flushes_subnormals() ? "; subnormals may be read as zero (the device flushes them, as WGSL permits)" : "");
}

static std::vector<std::optional<DType>> op_row_dtypes(const ops::OpDef& op) {
  std::vector<std::optional<DType>> dtypes;
  for (DType t : ops::row_dtypes(op)) dtypes.push_back(t);
  if (dtypes.empty()) dtypes.push_back(std::nullopt);
  return dtypes;
}

std::size_t claimed_rows(const runtime::OpBackend& backend, const ops::OpDef& op) {
  std::size_t n = 0;
  for (const auto& dt : op_row_dtypes(op)) n += claims_kernel(backend, op, dt) ? 1 : 0;
  return n;
}

namespace {

// Writes one failing case (ConformOptions::dump_dir). Best effort: a file that cannot be
// written (or an operand NumPy cannot hold, q8_0/q4_0) is missing from the folder, and the
// conformance verdict stands either way.
void dump_case(const std::string& root, const ops::OpDef& op, const std::string& dtype, std::size_t index, const Case& c,
               const std::vector<ops::HostTensor>* got, const std::string& verdict) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(root) / (op.name + "." + dtype + ".case" + std::to_string(index));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return;
  // bf16 as its raw bits (u16): NumPy has no bf16 (q8_0/q4_0 operands are not written).
  auto write = [&](const std::string& name, const ops::HostTensor& t) {
    DiagnosticSink quiet;
    npy::save((dir / name).string(), t, quiet, /*bf16_as_u16=*/true);
  };
  for (std::size_t j = 0; j < c.inputs.size(); ++j) write("in" + std::to_string(j) + ".npy", c.inputs[j]);
  for (std::size_t k = 0; k < c.expected.size(); ++k) write("reference" + std::to_string(k) + ".npy", c.expected[k]);
  if (got)
    for (std::size_t k = 0; k < got->size(); ++k) write("got" + std::to_string(k) + ".npy", (*got)[k]);
  std::ofstream(dir / "case.txt") << op.name << " " << c.describe() << "\n" << verdict << "\n";
}

}  // namespace

OpReport conform_op(const ops::OpDef& op, runtime::OpBackend& backend, const ConformOptions& o) {
  OpReport rep;
  rep.op = op.name;
  rep.backend = std::string(ops::backend_name(backend.id()));
  rep.tier = o.tier;
  rep.judged_tier = backend.agreement_tier(o.tier);
  rep.cls = backend.agreement_class(op, o.tier);
  rep.thresholds = ops::resolve_tolerance(rep.cls, rep.judged_tier, DType::f32).to_string();
  rep.kernel_hash = backend.kernel_hash(op);
  const bool flushes = backend.flushes_subnormals();
  rep.agreement = agreement_description(backend, o.tier);

  const std::vector<std::optional<DType>> dtypes = op_row_dtypes(op);
  const std::size_t claimed = o.progress ? claimed_rows(backend, op) : 0;
  std::size_t started = 0;

  Sha3_256 digest;
  for (const auto& dt : dtypes) {
    RowResult row;
    row.dtype = dt ? std::string(dtype_name(*dt)) : "-";
    if (!claims_kernel(backend, op, dt)) {
      if (std::string why = dt ? backend.unsupported_dtype(*dt) : std::string(); !why.empty()) {
        row.verdict = RowVerdict::unsupported;
        row.unsupported = why;
      } else {
        row.verdict = o.claimed_only ? RowVerdict::unclaimed : RowVerdict::missing;
        row.failure = "backend `" + rep.backend + "` has no kernel for `" + op.name + "`" + (dt ? " on " + row.dtype : "");
      }
      rep.rows.push_back(std::move(row));
      continue;
    }
    if (o.progress)
      o.progress({"conforming", static_cast<std::int64_t>(started++), static_cast<std::int64_t>(claimed), op.name + " " + row.dtype});
    bool dumped = false;
    auto fail = [&](std::string msg) {
      if (row.verdict == RowVerdict::pass) row.failure = msg;
      row.verdict = RowVerdict::fail;
      return msg;
    };
    for (std::size_t i = 0; i < o.cases; ++i) {
      CaseRequest req{o.seed, i, dt, o.tier, o.max_elems};
      std::string why;
      auto c = generate_case(op, req, why);
      if (!c) {
        fail("case " + std::to_string(i) + ": the generator could not build a case the reference accepts (" + why + ")");
        break;
      }
      ++row.cases;
      DiagnosticSink diags;
      auto got = backend.run_op(op, c->inputs, c->attrs, diags);
      std::string where = "case " + std::to_string(i) + " " + c->describe();
      if (!got) {
        const Diagnostic* first = diags.all().empty() ? nullptr : &diags.all().front();
        if (first && backend.is_capability_refusal(first->code)) {
          ++row.unsupported_cases;
          if (row.unsupported.empty()) row.unsupported = first->code + " " + first->message + " (" + where + ")";
          continue;
        }
        std::string msg = fail(where + ": the backend refused it: " + (first ? first->code + " " + first->message : std::string("no diagnostic")));
        if (!o.dump_dir.empty() && !std::exchange(dumped, true)) dump_case(o.dump_dir, op, row.dtype, i, *c, nullptr, msg);
        continue;
      }
      if (got->size() != c->expected.size()) {
        fail(where + ": " + std::to_string(got->size()) + " outputs, the reference gives " + std::to_string(c->expected.size()));
        continue;
      }
      OpJudge judge(op, c->inputs, c->attrs, c->expected, rep.cls, rep.judged_tier, flushes);
      bool case_flushed = false;
      for (std::size_t k = 0; k < got->size(); ++k) {
        const auto& a = (*got)[k];
        digest.update(tensor_hash(a).bytes);
        OutputCheck chk = judge.judge(k, a);
        row.differing += chk.differing;
        row.nan_payload += chk.payload;
        case_flushed = case_flushed || chk.flushed;
        row.elements += chk.verdict.count;
        row.max_ulp = std::max(row.max_ulp, chk.verdict.max_ulp);
        if (chk.pass) continue;
        std::string out = got->size() > 1 ? " output " + std::to_string(k) : "";
        std::string msg = !chk.verdict.pass
                              ? fail(where + out + ": " + chk.verdict.summary())
                              : fail(where + out + ": " + std::to_string(chk.differing) + " element(s) differ in their bits" +
                                     (chk.payload ? " (" + std::to_string(chk.payload) + " NaN(s) with a non-canonical payload or sign)" : ""));
        if (!o.dump_dir.empty() && !std::exchange(dumped, true)) dump_case(o.dump_dir, op, row.dtype, i, *c, &*got, msg);
      }
      if (case_flushed) ++row.flushed_cases;
    }
    // Every case refused for a capability the device lacks: the row is not supported here.
    if (row.verdict == RowVerdict::pass && row.cases > 0 && row.unsupported_cases == row.cases) row.verdict = RowVerdict::unsupported;
    rep.rows.push_back(std::move(row));
  }
  if (std::all_of(rep.rows.begin(), rep.rows.end(), [](const RowResult& r) { return r.verdict == RowVerdict::unclaimed; }))
    for (auto& r : rep.rows) r.verdict = RowVerdict::missing;  // claims no dtype at all: missing
  rep.outputs_digest = digest.finish();
  return rep;
}

}  // namespace rung::conformance

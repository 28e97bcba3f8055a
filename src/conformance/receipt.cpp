#include "conformance/receipt.h"

#include <algorithm>

#include "base/canonical.h"
#include "conformance/codec.h"

namespace rung::conformance {

namespace {
// v2 adds the tier whose thresholds resolved the class, the thresholds and the agreement
// (how the class was chosen); v1 receipts still decode (those fields empty, class tier = tier).
constexpr std::string_view kMagic = "rung.receipt.v2";
constexpr std::string_view kMagicV1 = "rung.receipt.v1";
}

std::vector<std::uint8_t> ConformanceReceipt::encode() const {
  CanonicalWriter w;
  w.str(format >= 2 ? kMagic : kMagicV1);
  w.str(op);
  w.u16(op_id);
  w.str(backend);
  w.str(kernel_hash);
  write_profile(w, profile);
  w.hash(profile.hash());
  w.u8(static_cast<std::uint8_t>(tier));
  w.u8(static_cast<std::uint8_t>(cls));
  if (format >= 2) {
    w.u8(static_cast<std::uint8_t>(class_tier));
    w.str(thresholds);
    w.str(agreement);
  }
  w.u64(cases);
  w.u64(seed);
  w.boolean(pass);
  w.str(date);
  return w.take();
}

std::optional<ConformanceReceipt> ConformanceReceipt::decode(std::span<const std::uint8_t> bytes, std::string& error) {
  ByteReader r(bytes);
  ConformanceReceipt c;
  std::string magic;
  auto bad = [&](std::string what) {
    error = what + " at byte " + std::to_string(r.file_offset());
    return std::nullopt;
  };
  if (!read_str(r, magic) || (magic != kMagic && magic != kMagicV1)) return bad("not a receipt (" + std::string(kMagic) + " expected)");
  c.format = magic == kMagic ? 2 : 1;
  Hash256 profile_hash;
  std::uint8_t tier, cls, pass;
  if (!read_str(r, c.op) || !r.u16(c.op_id) || !read_str(r, c.backend) || !read_str(r, c.kernel_hash)) return bad("truncated header");
  if (!read_profile(r, c.profile) || !r.hash(profile_hash)) return bad("malformed device profile");
  if (profile_hash != c.profile.hash()) return bad("device profile hash does not match the profile");
  if (!r.u8(tier) || tier > 2 || !r.u8(cls) || cls > 3) return bad("bad tier or tolerance class");
  std::uint8_t class_tier = tier;
  if (c.format >= 2 && (!r.u8(class_tier) || class_tier > 2 || !read_str(r, c.thresholds) || !read_str(r, c.agreement)))
    return bad("bad class tier, thresholds or agreement");
  c.class_tier = static_cast<ops::Tier>(class_tier);
  if (!r.u64(c.cases) || !r.u64(c.seed) || !r.u8(pass) || pass > 1 || !read_str(r, c.date)) return bad("truncated body");
  if (!r.at_end()) return bad("trailing bytes");
  c.tier = static_cast<ops::Tier>(tier);
  c.cls = static_cast<ops::TolClass>(cls);
  c.pass = pass == 1;
  return c;
}

Hash256 ConformanceReceipt::key() const {
  ConformanceReceipt undated = *this;
  undated.date.clear();
  return undated.id();
}

std::optional<Hash256> ReceiptWriter::put(const ConformanceReceipt& r, DiagnosticSink& diags) {
  auto lock = store_.lock("receipts", diags);
  if (!lock) return std::nullopt;
  std::vector<Hash256> now = store_.list("receipts");
  for (const Hash256& id : now) {
    if (std::binary_search(seen_.begin(), seen_.end(), id)) continue;
    DiagnosticSink quiet;  // damaged entries are ReceiptIndex::load's to report
    auto bytes = store_.get("receipts", id, quiet);
    std::string err;
    auto old = bytes ? ConformanceReceipt::decode(*bytes, err) : std::nullopt;
    if (!old) continue;
    auto [it, fresh] = by_key_.try_emplace(old->key(), id, old->date);
    if (!fresh && old->date < it->second.second) it->second = {id, old->date};
  }
  seen_ = std::move(now);
  if (auto it = by_key_.find(r.key()); it != by_key_.end()) return it->second.first;
  auto id = store_.put("receipts", r.encode(), diags);
  if (id) by_key_.try_emplace(r.key(), *id, r.date);
  return id;
}

nlohmann::json ConformanceReceipt::to_json() const {
  return {{"id", id().hex()}, {"op", op}, {"op_id", op_id}, {"backend", backend}, {"kernel_hash", kernel_hash},
          {"device", profile.to_string()}, {"device_profile_hash", profile.hash().hex()}, {"tier", ops::tier_name(tier)},
          {"class", ops::tol_class_name(cls)}, {"class_tier", ops::tier_name(class_tier)}, {"thresholds_f32", thresholds},
          {"agreement", agreement}, {"cases", cases}, {"seed", seed}, {"result", pass ? "pass" : "fail"}, {"date", date}};
}

ConformanceReceipt receipt_for(const OpReport& report, const ops::OpDef& op, const runtime::DeviceProfile& profile,
                               const ConformOptions& options) {
  ConformanceReceipt r;
  r.op = op.name;
  r.op_id = op.id.value;
  r.backend = report.backend;
  r.kernel_hash = report.kernel_hash;
  r.profile = profile;
  r.tier = report.tier;
  r.cls = report.cls;
  r.class_tier = report.judged_tier;
  r.thresholds = report.thresholds;
  r.agreement = report.agreement;
  r.cases = report.cases();
  r.seed = options.seed;
  r.pass = report.pass();
  r.date = utc_now();
  return r;
}

ReceiptIndex ReceiptIndex::load(const Store& store, DiagnosticSink& diags) {
  ReceiptIndex idx;
  for (const auto& id : store.list("receipts")) {
    DiagnosticSink d;
    auto bytes = store.get("receipts", id, d);
    if (!bytes) {
      for (const auto& x : d.all()) {  // a warning here (the entry is skipped), its notes kept
        Diagnostic& w = diags.warning(x.code, x.message);
        w.notes = x.notes;
      }
      continue;
    }
    std::string err;
    auto r = ConformanceReceipt::decode(*bytes, err);
    if (!r) {
      diags.warning("Q0007", "store entry '" + store.path("receipts", id) + "' is not a valid receipt: " + err + "; ignored");
      continue;
    }
    idx.add(id, std::move(*r));
  }
  return idx;
}

void ReceiptIndex::add(const Hash256& id, ConformanceReceipt r) { all_.emplace_back(id, std::move(r)); }

std::optional<Hash256> ReceiptIndex::find(std::string_view op, std::string_view backend, std::string_view kernel_hash,
                                          const Hash256& profile_hash, ops::Tier tier) const {
  const std::pair<Hash256, ConformanceReceipt>* best = nullptr;
  for (const auto& e : all_) {
    const auto& r = e.second;
    if (!r.pass || r.op != op || r.backend != backend || r.kernel_hash != kernel_hash || r.tier != tier) continue;
    if (r.profile.hash() != profile_hash) continue;
    if (!best || r.date > best->second.date) best = &e;
  }
  if (!best) return std::nullopt;
  return best->first;
}

}  // namespace rung::conformance

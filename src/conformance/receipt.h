// A ConformanceReceipt: the evidence that one backend's kernel for one op passed the
// conformance suite on one device profile in one tier. Its canonical encoding is its file
// in the store (receipts/<sha3>); the run-time check (exec_policy.h) looks for a passing
// receipt whose op, backend, kernel hash, device-profile hash and tier match.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "base/hash.h"
#include "conformance/harness.h"
#include "conformance/store.h"
#include "runtime/op_backend.h"

namespace rung::conformance {

struct ConformanceReceipt {
  std::string op;
  std::uint16_t op_id = 0;
  std::string backend;
  std::string kernel_hash;
  runtime::DeviceProfile profile;
  ops::Tier tier = ops::Tier::debug;
  ops::TolClass cls = ops::TolClass::exact;  // the class the outputs were judged by
  ops::Tier class_tier = ops::Tier::debug;   // whose thresholds resolved it (prod for webgpu)
  std::string thresholds;                    // the f32 thresholds, as the report printed them
  std::string agreement;                     // how the class was chosen (conformance::agreement_description)
  std::uint64_t cases = 0;
  std::uint64_t seed = 0;
  bool pass = false;
  std::string date;  // UTC, ISO 8601
  int format = 2;    // 1: decoded from a rung.receipt.v1 file (no class tier, thresholds, agreement)

  std::vector<std::uint8_t> encode() const;
  // nullopt with `error` naming the byte offset when the bytes are not a receipt.
  static std::optional<ConformanceReceipt> decode(std::span<const std::uint8_t> bytes, std::string& error);
  Hash256 id() const { return sha3_256(encode()); }
  // Everything but the date: two receipts with one key are the same evidence, earned twice.
  Hash256 key() const;
  nlohmann::json to_json() const;
};

// The receipt a report earns (pass or not).
ConformanceReceipt receipt_for(const OpReport& report, const ops::OpDef& op, const runtime::DeviceProfile& profile,
                               const ConformOptions& options);

// Writes receipts so that a store holds one per key, however many processes conform the same
// kernels at once: under the store's lock on receipts/, a receipt whose key is already there
// is not written again (put returns the id of the one there, the earliest when an older store
// holds several). The receipts already seen are remembered between puts.
class ReceiptWriter {
 public:
  explicit ReceiptWriter(const Store& store) : store_(store) {}
  std::optional<Hash256> put(const ConformanceReceipt& r, DiagnosticSink& diags);

 private:
  const Store& store_;
  std::map<Hash256, std::pair<Hash256, std::string>> by_key_;  // key -> (id, date)
  std::vector<Hash256> seen_;                                  // sorted
};

// Every receipt in a store, keyed for the run-time check. Corrupt entries are reported as
// warnings in `diags` and skipped.
class ReceiptIndex {
 public:
  static ReceiptIndex load(const Store& store, DiagnosticSink& diags);
  void add(const Hash256& id, ConformanceReceipt r);
  // The newest passing receipt for exactly this kernel, profile and tier.
  std::optional<Hash256> find(std::string_view op, std::string_view backend, std::string_view kernel_hash,
                              const Hash256& profile_hash, ops::Tier tier) const;
  std::size_t size() const { return all_.size(); }
  const std::vector<std::pair<Hash256, ConformanceReceipt>>& all() const { return all_; }

 private:
  std::vector<std::pair<Hash256, ConformanceReceipt>> all_;
};

}  // namespace rung::conformance

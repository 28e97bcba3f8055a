#include "conformance/run_record.h"

#include <cstdio>

#include "base/canonical.h"
#include "conformance/codec.h"
#include "ir/block/fingerprint.h"

namespace rung::conformance {

namespace {
constexpr std::string_view kMagicV1 = "rung.run_record.v1";
constexpr std::string_view kMagicV2 = "rung.run_record.v2";
constexpr std::string_view kMagicV3 = "rung.run_record.v3";
constexpr std::string_view kMagic = "rung.run_record.v4";
constexpr std::string_view kTensorMagic = "rung.tensor.v1";
constexpr std::uint64_t kMaxItems = 1 << 16;
}  // namespace

void set_reproducibility(RunRecord& r, bool exact_capable) {
  r.replayable = exact_capable && (r.tier == "debug" || r.tolerance == "exact");
  // A backend that is not exact-capable runs a program declaring `exact` convergent within
  // `default`, the class of composites (its ops are each judged by their own prod class).
  bool named = !r.tolerance.empty() && r.tolerance != "exact";
  r.convergence_class = r.replayable ? "" : (named ? r.tolerance : "default");
}

std::vector<std::uint8_t> RunRecord::encode() const {
  CanonicalWriter w;
  const bool v2 = format >= 2;
  w.str(format >= 4 ? kMagic : format == 3 ? kMagicV3 : v2 ? kMagicV2 : kMagicV1);
  w.str(date);
  w.str(program_path);
  w.hash(program_hash);
  w.str(entry);
  w.str(tier_option);
  w.str(tolerance_option);
  w.u64(args.size());
  for (const auto& a : args) {
    w.str(a.name);
    w.str(a.path);
    w.hash(a.file_hash);
    w.hash(a.tensor_hash);
  }
  if (v2) {
    w.u64(data_dirs.size());
    for (const auto& d : data_dirs) w.str(d);
    w.str(stream_option);
    w.str(binding_limit_option);
    w.u64(offload_threshold);
    w.u64(reads.size());
    for (const auto& f : reads) {
      w.str(f.path);
      w.hash(f.file_hash);
    }
  }
  w.hash(fingerprint);
  w.hash(blockir);
  w.boolean(execplan.has_value());
  if (execplan) w.hash(*execplan);
  w.str(tier);
  w.str(tolerance);
  w.str(backend);
  write_profile(w, profile);
  w.str(receipt_mode);
  w.u64(receipts.size());
  for (const auto& u : receipts) {
    w.str(u.op);
    w.str(u.status);
    w.str(u.receipt);
  }
  w.u64(decisions.size());
  for (const auto& d : decisions) {
    w.str(d.scope);
    w.str(d.backend);
    w.str(d.reason);
    w.u64(d.times);
  }
  w.u64(outputs.size());
  for (const auto& o : outputs) {
    w.str(o.name);
    w.str(o.type);
    w.hash(o.tensor_hash);
    w.boolean(o.stored.has_value());
    if (o.stored) w.hash(*o.stored);
  }
  w.boolean(replayable);
  w.str(convergence_class);
  if (format >= 3) {
    w.boolean(transfers.has_value());
    if (transfers) {
      w.u64(transfers->to_device_bytes);
      w.u64(transfers->from_device_bytes);
      w.u64(transfers->uploads);
      w.u64(transfers->downloads);
    }
  }
  if (format >= 4) {
    w.u64(generated_kernels.size());
    for (const auto& [region, kernel] : generated_kernels) {
      w.str(region);
      w.str(kernel);
    }
  }
  return w.take();
}

std::optional<RunRecord> RunRecord::decode(std::span<const std::uint8_t> bytes, std::string& error) {
  ByteReader r(bytes);
  RunRecord x;
  auto bad = [&](std::string what) {
    error = what + " at byte " + std::to_string(r.file_offset());
    return std::nullopt;
  };
  std::string magic;
  std::uint64_t n;
  std::uint8_t flag;
  if (!read_str(r, magic) || (magic != kMagic && magic != kMagicV3 && magic != kMagicV2 && magic != kMagicV1))
    return bad("not a run record (" + std::string(kMagic) + ", " + std::string(kMagicV3) + ", " + std::string(kMagicV2) +
               " or " + std::string(kMagicV1) + " expected)");
  x.format = magic == kMagic ? 4 : magic == kMagicV3 ? 3 : magic == kMagicV2 ? 2 : 1;
  if (!read_str(r, x.date) || !read_str(r, x.program_path) || !r.hash(x.program_hash) || !read_str(r, x.entry) ||
      !read_str(r, x.tier_option) || !read_str(r, x.tolerance_option))
    return bad("truncated header");
  if (!r.u64(n) || n > kMaxItems) return bad("bad argument count");
  for (std::uint64_t i = 0; i < n; ++i) {
    RecordedArg a;
    if (!read_str(r, a.name) || !read_str(r, a.path) || !r.hash(a.file_hash) || !r.hash(a.tensor_hash)) return bad("truncated argument");
    x.args.push_back(std::move(a));
  }
  if (x.format >= 2) {
    if (!r.u64(n) || n > kMaxItems) return bad("bad data folder count");
    for (std::uint64_t i = 0; i < n; ++i) {
      std::string d;
      if (!read_str(r, d)) return bad("truncated data folder");
      x.data_dirs.push_back(std::move(d));
    }
    if (!read_str(r, x.stream_option) || !read_str(r, x.binding_limit_option) || !r.u64(x.offload_threshold))
      return bad("truncated run options");
    if (!r.u64(n) || n > kMaxItems) return bad("bad read file count");
    for (std::uint64_t i = 0; i < n; ++i) {
      RecordedRead f;
      if (!read_str(r, f.path) || !r.hash(f.file_hash)) return bad("truncated read file");
      x.reads.push_back(std::move(f));
    }
  }
  if (!r.hash(x.fingerprint) || !r.hash(x.blockir) || !r.u8(flag) || flag > 1) return bad("truncated hashes");
  if (flag) {
    Hash256 h;
    if (!r.hash(h)) return bad("truncated execplan hash");
    x.execplan = h;
  }
  if (!read_str(r, x.tier) || !read_str(r, x.tolerance) || !read_str(r, x.backend) || !read_profile(r, x.profile) ||
      !read_str(r, x.receipt_mode))
    return bad("truncated backend section");
  if (!r.u64(n) || n > kMaxItems) return bad("bad receipt count");
  for (std::uint64_t i = 0; i < n; ++i) {
    ReceiptUse u;
    if (!read_str(r, u.op) || !read_str(r, u.status) || !read_str(r, u.receipt)) return bad("truncated receipt entry");
    x.receipts.push_back(std::move(u));
  }
  if (!r.u64(n) || n > kMaxItems) return bad("bad decision count");
  for (std::uint64_t i = 0; i < n; ++i) {
    PolicyDecision d;
    if (!read_str(r, d.scope) || !read_str(r, d.backend) || !read_str(r, d.reason) || !r.u64(d.times)) return bad("truncated decision");
    x.decisions.push_back(std::move(d));
  }
  if (!r.u64(n) || n > kMaxItems) return bad("bad output count");
  for (std::uint64_t i = 0; i < n; ++i) {
    RecordedOutput o;
    if (!read_str(r, o.name) || !read_str(r, o.type) || !r.hash(o.tensor_hash) || !r.u8(flag) || flag > 1) return bad("truncated output");
    if (flag) {
      Hash256 h;
      if (!r.hash(h)) return bad("truncated output");
      o.stored = h;
    }
    x.outputs.push_back(std::move(o));
  }
  if (!r.u8(flag) || flag > 1 || !read_str(r, x.convergence_class)) return bad("truncated trailer");
  x.replayable = flag == 1;
  if (x.format >= 3) {
    if (!r.u8(flag) || flag > 1) return bad("truncated transfers");
    if (flag) {
      runtime::TransferCounts t;
      if (!r.u64(t.to_device_bytes) || !r.u64(t.from_device_bytes) || !r.u64(t.uploads) || !r.u64(t.downloads))
        return bad("truncated transfers");
      x.transfers = t;
    }
  }
  if (x.format >= 4) {
    if (!r.u64(n) || n > kMaxItems) return bad("bad generated kernel count");
    for (std::uint64_t i = 0; i < n; ++i) {
      std::string region, kernel;
      if (!read_str(r, region) || !read_str(r, kernel)) return bad("truncated generated kernel");
      if (!x.generated_kernels.emplace(std::move(region), std::move(kernel)).second) return bad("a region's generated kernel listed twice");
    }
  }
  if (!r.at_end()) return bad("trailing bytes");
  return x;
}

nlohmann::json RunRecord::to_json() const {
  nlohmann::json jargs = nlohmann::json::array(), jouts = nlohmann::json::array(), jrec = nlohmann::json::array(),
                 jdec = nlohmann::json::array();
  for (const auto& a : args)
    jargs.push_back({{"name", a.name}, {"path", a.path}, {"file_sha3", a.file_hash.hex()}, {"tensor_sha3", a.tensor_hash.hex()}});
  nlohmann::json jreads = nlohmann::json::array();
  for (const auto& f : reads) jreads.push_back({{"path", f.path}, {"file_sha3", f.file_hash.hex()}});
  for (const auto& o : outputs) {
    nlohmann::json j{{"name", o.name}, {"type", o.type}, {"sha3_256", o.tensor_hash.hex()}};
    if (o.stored) j["stored"] = o.stored->hex();
    jouts.push_back(j);
  }
  for (const auto& u : receipts) jrec.push_back({{"op", u.op}, {"status", u.status}, {"receipt", u.receipt}});
  for (const auto& d : decisions) jdec.push_back({{"scope", d.scope}, {"backend", d.backend}, {"reason", d.reason}, {"times", d.times}});
  return {{"id", id().hex()}, {"date", date}, {"program", {{"path", program_path}, {"sha3", program_hash.hex()}}},
          {"entry", entry}, {"args", jargs}, {"format", format}, {"data_dirs", data_dirs}, {"stream", stream_option},
          {"binding_limit", binding_limit_option}, {"offload_threshold", offload_threshold}, {"reads", jreads},
          {"fingerprint", block::program_fingerprint(fingerprint, blockir).hex()}, {"graph_fingerprint", fingerprint.hex()},
          {"blockir", blockir.hex()},
          {"execplan", execplan ? nlohmann::json(execplan->hex()) : nlohmann::json(nullptr)},
          {"tier", tier}, {"tolerance", tolerance}, {"backend", backend}, {"device", profile.to_string()},
          {"device_profile_hash", profile.hash().hex()}, {"receipt_mode", receipt_mode}, {"receipts", jrec},
          {"decisions", jdec}, {"outputs", jouts},
          {"reproducibility", replayable ? "replayable" : "convergent"}, {"convergence_class", convergence_class},
          {"transfers", transfers ? nlohmann::json{{"to_device_bytes", transfers->to_device_bytes},
                                                   {"from_device_bytes", transfers->from_device_bytes},
                                                   {"uploads", transfers->uploads},
                                                   {"downloads", transfers->downloads}}
                                  : nlohmann::json(nullptr)},
          {"generated_kernels", generated_kernels}};
}

std::string RunRecord::to_text() const {
  std::string s;
  auto line = [&](const std::string& k, const std::string& v) { s += k + std::string(k.size() < 12 ? 12 - k.size() : 1, ' ') + v + "\n"; };
  line("record", id().hex());
  line("date", date);
  line("program", program_path + "  sha3 " + program_hash.hex());
  line("entry", entry);
  for (const auto& a : args) line("arg", a.name + " = " + a.path + "  file sha3 " + a.file_hash.short_hex(16) + "  tensor sha3 " + a.tensor_hash.short_hex(16));
  if (format < 2) line("options", "not kept (record format 1: --data-dir, --stream, --binding-limit, --offload-threshold, read files)");
  for (const auto& d : data_dirs) line("data-dir", d);
  if (!stream_option.empty()) line("stream", stream_option);
  if (!binding_limit_option.empty()) line("binding", binding_limit_option);
  if (offload_threshold) line("offload", std::to_string(offload_threshold) + " input elements");
  for (const auto& f : reads) line("read", f.path + "  file sha3 " + f.file_hash.short_hex(16));
  line("fingerprint", block::program_fingerprint(fingerprint, blockir).hex());
  line("graph", fingerprint.hex());
  line("blockir", blockir.hex());
  line("execplan", execplan ? execplan->hex() : "absent (no ExecPlan in this build)");
  line("tier", tier + (tolerance.empty() ? "" : " (tolerance " + tolerance + ")"));
  line("backend", backend);
  line("device", profile.to_string() + "  profile " + profile.hash().short_hex(16));
  line("receipts", receipt_mode);
  for (const auto& u : receipts) line("  " + u.op, u.status + (u.receipt.empty() ? "" : " " + u.receipt.substr(0, 16)));
  for (const auto& d : decisions) line("decision", d.scope + " -> " + d.backend + " (" + d.reason + ")" + (d.times > 1 ? " x" + std::to_string(d.times) : ""));
  for (const auto& o : outputs) line("output", o.name + ": " + o.type + "  sha3 " + o.tensor_hash.hex());
  if (transfers)
    line("transfers", "to device " + std::to_string(transfers->to_device_bytes) + " bytes in " + std::to_string(transfers->uploads) +
                          " uploads, from device " + std::to_string(transfers->from_device_bytes) + " bytes in " +
                          std::to_string(transfers->downloads) + " downloads");
  else if (format < 3)
    line("transfers", "not kept (record format " + std::to_string(format) + ")");
  for (const auto& [region, kernel] : generated_kernels) line("kernel", region + " -> " + kernel);
  if (format < 4) line("kernels", "generated kernels not kept (record format " + std::to_string(format) + ")");
  line("replay", replayable ? "replayable (bit for bit)" : "convergent (class " + convergence_class + ")");
  return s;
}

std::vector<std::uint8_t> encode_tensor(const ops::HostTensor& t) {
  CanonicalWriter w;
  w.str(kTensorMagic);
  w.u8(static_cast<std::uint8_t>(t.dtype()));
  w.u32(static_cast<std::uint32_t>(t.rank()));
  for (auto d : t.shape()) w.u64(d);
  w.bytes(t.bytes());
  return w.take();
}

std::optional<ops::HostTensor> decode_tensor(std::span<const std::uint8_t> bytes, std::string& error) {
  ByteReader r(bytes);
  std::string magic;
  std::uint8_t code;
  std::uint32_t rank;
  if (!read_str(r, magic) || magic != kTensorMagic || !r.u8(code) || !r.u32(rank) || rank > 64) return error = "not a stored tensor", std::nullopt;
  auto dt = dtype_from_code(code);
  if (!dt) return error = "unknown dtype code " + std::to_string(code), std::nullopt;
  ops::Extents e(rank);
  for (auto& d : e)
    if (!r.u64(d)) return error = "truncated extents", std::nullopt;
  std::uint64_t n;
  std::span<const std::uint8_t> b;
  auto want = ops::HostTensor::checked_bytes(*dt, e);
  if (!r.u64(n) || !want || n != *want || !r.take(n, b) || !r.at_end()) return error = "size does not match its shape", std::nullopt;
  return ops::HostTensor(*dt, e, std::vector<std::uint8_t>(b.begin(), b.end()));
}

std::optional<std::pair<Hash256, RunRecord>> load_record(const Store& store, std::string_view prefix, DiagnosticSink& diags) {
  auto id = store.resolve("records", prefix, diags);
  if (!id) return std::nullopt;
  auto bytes = store.get("records", *id, diags);
  if (!bytes) return std::nullopt;
  std::string err;
  auto rec = RunRecord::decode(*bytes, err);
  if (!rec) {
    diags.error("Q0008", "record " + id->short_hex() + " is damaged: " + err).note(store.path("records", *id));
    return std::nullopt;
  }
  return std::make_pair(*id, std::move(*rec));
}

}  // namespace rung::conformance

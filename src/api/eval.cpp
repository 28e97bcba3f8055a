// One op on the reference kernels (rung/eval.h): operands and attributes read from their
// written forms, the op evaluated, the first result compared when asked.
#include "rung/eval.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "api/impl.h"
#include "ops/compare.h"
#include "ops/evaluate.h"
#include "ops/registry.h"
#include "ops/tensor_literal.h"
#include "runtime/npy.h"

namespace rung {

namespace {


using ops::HostTensor;

bool ends_with(const std::string& s, const char* suffix) {
  std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

std::optional<HostTensor> load_input(const std::string& text, const std::string& what, SourceMap& sources, DiagnosticSink& diags,
                                     DType default_dtype = DType::f32) {
  if (ends_with(text, ".npy") && text.find('[') == std::string::npos) {
    auto t = npy::load(text, sources, diags);  // Y-coded diagnostics with byte offsets
    if (!t) diags.last().note("while reading " + what);
    return t;
  }
  ops::LiteralError err;
  auto t = ops::parse_tensor_literal(text, err, default_dtype);
  if (!t) {
    SourceId id = sources.add(what, text);
    auto b = static_cast<std::uint32_t>(std::min(err.offset, text.size()));
    auto e = static_cast<std::uint32_t>(std::min(err.offset + err.length, text.size()));
    diags.error("C0201", "cannot read " + what + ": " + err.message)
        .primary(Span{id, b, e < b ? b : e}, err.message)
        .note("write tensors like [[1, 2], [3, 4]], i64:[1, 2], f16:[nan, -0], f32[2, 3]:0.5, i32[4]:iota, or a .npy path");
  }
  return t;
}

// Parses one "name=value" against the op's declaration of `name`.
bool parse_attr(const ops::OpDef& op, const std::string& kv, AttrMap& out, DiagnosticSink& diags) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    diags.error("C0202", "--attr '" + kv + "' is not NAME=VALUE");
    return false;
  }
  std::string name = kv.substr(0, eq), val = kv.substr(eq + 1);
  const ops::AttrSpec* spec = nullptr;
  for (const auto& a : op.attrs)
    if (a.name == name) spec = &a;
  if (!spec) {
    std::string known;
    for (const auto& a : op.attrs) known += (known.empty() ? "" : ", ") + a.to_string();
    diags.error("C0202", "`" + op.name + "` has no attribute `" + name + "`")
        .note(known.empty() ? "it takes no attributes" : "its attributes: " + known);
    return false;
  }
  auto bad = [&](const std::string& want) {
    diags.error("C0202", "--attr " + name + ": '" + val + "' is not " + want).note("declared as " + spec->to_string());
    return false;
  };
  auto parse_real = [](const std::string& s, double& d) {
    char* end = nullptr;
    d = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  };
  auto parse_int = [](const std::string& s, std::int64_t& v) {
    char* end = nullptr;
    errno = 0;
    v = std::strtoll(s.c_str(), &end, 10);
    return !s.empty() && end == s.c_str() + s.size() && errno == 0;
  };
  auto split = [](std::string s) {
    if (!s.empty() && s.front() == '[') s.erase(0, 1);
    if (!s.empty() && s.back() == ']') s.pop_back();
    std::vector<std::string> parts;
    std::string cur;
    for (char c : s) {
      if (c == ',') {
        parts.push_back(cur);
        cur.clear();
      } else if (c != ' ') {
        cur += c;
      }
    }
    if (!cur.empty() || !parts.empty()) parts.push_back(cur);
    return parts;
  };
  switch (spec->kind) {
    case AttrKind::boolean:
      if (val == "true" || val == "1") out.insert_or_assign(name, AttrValue(true));
      else if (val == "false" || val == "0") out.insert_or_assign(name, AttrValue(false));
      else return bad("a bool (true or false)");
      return true;
    case AttrKind::integer: {
      std::int64_t v;
      if (!parse_int(val, v)) return bad("an integer");
      out.insert_or_assign(name, AttrValue(v));
      return true;
    }
    case AttrKind::real: {
      double d;
      if (!parse_real(val, d)) return bad("a number");
      out.insert_or_assign(name, AttrValue(d));
      return true;
    }
    case AttrKind::string: out.insert_or_assign(name, AttrValue(val)); return true;
    case AttrKind::integers: {
      std::vector<std::int64_t> v;
      for (const auto& p : split(val)) {
        std::int64_t x;
        if (!parse_int(p, x)) return bad("a list of integers like [0, -1]");
        v.push_back(x);
      }
      out.insert_or_assign(name, AttrValue(v));
      return true;
    }
    case AttrKind::reals: {
      std::vector<double> v;
      for (const auto& p : split(val)) {
        double x;
        if (!parse_real(p, x)) return bad("a list of numbers like [0.5, 2]");
        v.push_back(x);
      }
      out.insert_or_assign(name, AttrValue(v));
      return true;
    }
    case AttrKind::dtype: {
      auto d = dtype_from_name(val);
      if (!d) return bad("a dtype name (f32, f16, bf16, f64, i64, ..., bool)");
      out.insert_or_assign(name, AttrValue(*d));
      return true;
    }
    default:
      diags.error("C0202", "attribute `" + name + "` of kind " + std::string(attr_kind_name(spec->kind)) +
                               " cannot be given on the command line");
      return false;
  }
}

nlohmann::json number_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string hex_bits(const HostTensor& t, std::uint64_t i) {
  std::size_t w = dtype_info(t.dtype()).block_bytes;
  std::uint64_t u = 0;
  std::memcpy(&u, t.bytes().data() + i * w, w);
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(2 * w), static_cast<unsigned long long>(u));
  return buf;
}

nlohmann::json tensor_json(const HostTensor& t, bool bits) {
  nlohmann::json values = nlohmann::json::array(), hex = nlohmann::json::array();
  const DTypeInfo& info = dtype_info(t.dtype());
  if (info.is_quantized) {  // blocks of scale + codes: no per-element value to print, the storage is the value
    std::string storage;
    static const char* digits = "0123456789abcdef";
    for (std::uint8_t b : t.bytes()) {
      storage += digits[b >> 4];
      storage += digits[b & 15];
    }
    return {{"dtype", dtype_name(t.dtype())}, {"shape", t.shape()}, {"storage_hex", storage}};
  }
  for (std::uint64_t i = 0; i < t.numel(); ++i) {
    if (info.is_float) values.push_back(number_json(t.load_f64(i)));
    else if (t.dtype() == DType::boolean) values.push_back(t.load_bool(i));
    else if (t.dtype() == DType::u64) values.push_back(t.load_u64(i));
    else values.push_back(t.load_i64(i));
    if (bits) hex.push_back(hex_bits(t, i));
  }
  nlohmann::json j{{"dtype", dtype_name(t.dtype())}, {"shape", t.shape()}, {"values", values}};
  if (bits) j["bits"] = hex;
  return j;
}

}  // namespace

Result<EvalResult> eval(const EvalOptions& a) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  auto fail = [&] { return Result<EvalResult>(api::diagnostics_of(diags, sources)); };
  auto tier = ops::tier_from_name(a.tier);
  auto cls = ops::tol_class_from_name(a.tolerance_class);
  if (!tier || !cls) {
    diags.error("C0204", !tier ? "unknown tier `" + a.tier + "` (debug, prod, fast)"
                               : "unknown tolerance class `" + a.tolerance_class + "` (exact, tight, default, loose)");
    return fail();
  }
  const ops::OpDef* op = ops::op_registry().find(a.op);
  if (!op) {
    diags.error("N0010", "unknown op `" + a.op + "`").note("`rung ops` lists every op");
    return fail();
  }
  std::vector<HostTensor> inputs;
  for (std::size_t i = 0; i < a.inputs.size(); ++i) {
    std::string what = "--input #" + std::to_string(i + 1);
    if (i < op->operands.size()) what += " (" + op->operands[i].name + ")";
    auto t = load_input(a.inputs[i], what, *sources, diags);
    if (t) inputs.push_back(std::move(*t));
  }
  AttrMap attrs;
  for (const auto& kv : a.attributes) parse_attr(*op, kv, attrs, diags);
  if (diags.has_errors()) return fail();

  ops::EvalOptions opts;
  opts.tier = *tier;
  auto outputs = ops::evaluate(*op, inputs, attrs, diags, opts);
  if (!outputs) return fail();

  EvalResult r;
  if (!a.expect.empty() && dtype_info(outputs->front().dtype()).is_quantized) {
    diags.error("C0205", "--expect compares values, but `" + op->name + "`'s first result is " +
                             std::string(dtype_name(outputs->front().dtype())) + " blocks")
        .note("--json prints the blocks' storage (storage_hex); values can be compared after `dequantize`");
    return fail();
  }
  if (!a.expect.empty()) {
    auto want = load_input(a.expect, "--expect", *sources, diags, outputs->front().dtype());
    if (!want) return fail();
    ops::Verdict v = ops::compare(outputs->front(), *want, *cls, *tier);
    r.verdict = EvalVerdict{v.pass, v.summary(), v.to_json().dump()};
  }
  r.op = op->name;
  r.tier = a.tier;
  for (auto& t : inputs) r.inputs.push_back(api::wrap(std::move(t)));
  for (const auto& [k, v] : attrs) r.attributes[k] = v.to_string();
  for (std::size_t i = 0; i < outputs->size(); ++i) r.outputs.push_back({op->results[i].name, api::wrap(std::move((*outputs)[i]))});
  return Result<EvalResult>(std::move(r), api::diagnostics_of(diags, sources));
}

std::string tensor_text(const Tensor& t, std::uint64_t max_elements) {
  return api::host_of(t).to_string(static_cast<std::size_t>(max_elements));
}

std::string element_bits(const Tensor& t, std::uint64_t index) { return hex_bits(api::host_of(t), index); }

std::string eval_json(const EvalResult& r, bool bits) {
  nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array(), at = nlohmann::json::object();
  for (const auto& t : r.inputs) ins.push_back(tensor_json(api::host_of(t), bits));
  for (const auto& o : r.outputs) {
    auto j = tensor_json(api::host_of(o.tensor), bits);
    j["name"] = o.name;
    outs.push_back(j);
  }
  for (const auto& [k, v] : r.attributes) at[k] = v;
  nlohmann::json j{{"op", r.op}, {"tier", r.tier}, {"backend", "reference"}, {"attrs", at}, {"inputs", ins}, {"outputs", outs}};
  if (r.verdict) j["verdict"] = nlohmann::json::parse(r.verdict->json);
  return j.dump(2);
}

}  // namespace rung

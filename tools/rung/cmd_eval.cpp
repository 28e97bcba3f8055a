// `rung eval OP --input ... [--attr k=v] [--json]`: evaluate one op on the reference kernels
// for quick checks. Inputs are inline tensors (ops/tensor_literal.h: `[[1,2],[3,4]]`,
// `i64:[1,2]`, `f32[2,3]:0.5`) or .npy files; `--expect` compares the first result under a
// tolerance class and prints the verdict. Bad input is a diagnostic with a caret, never a crash.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "command.h"
#include "ops/compare.h"
#include "ops/evaluate.h"
#include "runtime/npy.h"
#include "ops/numerics/half.h"
#include "ops/tensor_literal.h"

namespace rung::cli {
namespace {

using namespace rung::ops;

struct Args {
  std::string op;
  std::vector<std::string> inputs;
  std::vector<std::string> attrs;
  std::string tier = "debug";
  std::string expect;
  std::string cls = "exact";
  bool json = false;
  bool bits = false;
};

bool ends_with(const std::string& s, const char* suffix) {
  std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

std::optional<HostTensor> load_input(const std::string& text, const std::string& what, SourceMap& sources,
                                     DiagnosticSink& diags, DType default_dtype = DType::f32) {
  if (ends_with(text, ".npy") && text.find('[') == std::string::npos) {
    auto t = npy::load(text, sources, diags);  // Y-coded diagnostics with byte offsets
    if (!t) diags.last().note("while reading " + what);
    return t;
  }
  LiteralError err;
  auto t = parse_tensor_literal(text, err, default_dtype);
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
bool parse_attr(const OpDef& op, const std::string& kv, AttrMap& out, DiagnosticSink& diags) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    diags.error("C0202", "--attr '" + kv + "' is not NAME=VALUE");
    return false;
  }
  std::string name = kv.substr(0, eq), val = kv.substr(eq + 1);
  const AttrSpec* spec = nullptr;
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
      if (c == ',') { parts.push_back(cur); cur.clear(); }
      else if (c != ' ') cur += c;
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

int run(const Args& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  auto tier = tier_from_name(a.tier);
  auto cls = tol_class_from_name(a.cls);
  if (!tier || !cls) {
    diags.error("C0204", !tier ? "unknown tier `" + a.tier + "` (debug, prod, fast)"
                               : "unknown tolerance class `" + a.cls + "` (exact, tight, default, loose)");
    report(diags, sources, global);
    return kExitUsage;
  }
  const OpDef* op = op_registry().find(a.op);
  if (!op) {
    diags.error("N0010", "unknown op `" + a.op + "`").note("`rung ops` lists every op");
    return report(diags, sources, global);
  }
  std::vector<HostTensor> inputs;
  for (std::size_t i = 0; i < a.inputs.size(); ++i) {
    std::string what = "--input #" + std::to_string(i + 1);
    if (i < op->operands.size()) what += " (" + op->operands[i].name + ")";
    auto t = load_input(a.inputs[i], what, sources, diags);
    if (t) inputs.push_back(std::move(*t));
  }
  AttrMap attrs;
  for (const auto& kv : a.attrs) parse_attr(*op, kv, attrs, diags);
  if (diags.has_errors()) return report(diags, sources, global);

  EvalOptions opts;
  opts.tier = *tier;
  auto outputs = evaluate(*op, inputs, attrs, diags, opts);
  if (!outputs) return report(diags, sources, global);

  std::optional<Verdict> verdict;
  if (!a.expect.empty() && dtype_info(outputs->front().dtype()).is_quantized) {
    diags.error("C0205", "--expect compares values, but `" + op->name + "`'s first result is " +
                             std::string(dtype_name(outputs->front().dtype())) + " blocks")
        .note("--json prints the blocks' storage (storage_hex); values can be compared after `dequantize`");
    return report(diags, sources, global);
  }
  if (!a.expect.empty()) {
    auto want = load_input(a.expect, "--expect", sources, diags, outputs->front().dtype());
    if (!want) return report(diags, sources, global);
    verdict = compare(outputs->front(), *want, *cls, *tier);
    if (!verdict->pass)
      diags.error("N0020", "`" + op->name + "` differs from --expect: " + verdict->summary());
  }

  if (a.json) {
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array(), at = nlohmann::json::object();
    for (const auto& t : inputs) ins.push_back(tensor_json(t, a.bits));
    for (std::size_t i = 0; i < outputs->size(); ++i) {
      auto j = tensor_json((*outputs)[i], a.bits);
      j["name"] = op->results[i].name;
      outs.push_back(j);
    }
    for (const auto& [k, v] : attrs) at[k] = v.to_string();
    nlohmann::json j{{"op", op->name}, {"tier", a.tier}, {"backend", "reference"}, {"attrs", at},
                     {"inputs", ins}, {"outputs", outs}};
    if (verdict) j["verdict"] = verdict->to_json();
    std::cout << j.dump(2) << "\n";
  } else {
    for (std::size_t i = 0; i < outputs->size(); ++i) {
      const HostTensor& t = (*outputs)[i];
      std::printf("%s = %s\n", op->results[i].name.c_str(), t.to_string(1u << 16).c_str());
      if (a.bits) {
        std::printf("  bits:");
        for (std::uint64_t k = 0; k < t.numel() && k < (1u << 16); ++k) std::printf(" %s", hex_bits(t, k).c_str());
        std::printf("\n");
      }
    }
    if (verdict) std::printf("expect: %s\n", verdict->summary().c_str());
  }
  return report(diags, sources, global);
}

RUNG_COMMAND("eval", "Evaluate one op on the reference kernels (the oracle) for quick checks",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<Args>();
               sub.add_option("OP", a->op, "the op (see `rung ops`)")->required();
               sub.add_option("-i,--input,--inputs", a->inputs,
                              "an operand (repeat per operand, in order): [[1,2],[3,4]], i64:[1,2], f16:[nan,-0], "
                              "f32[2,3]:0.5, i32[4]:iota, or x.npy")
                   ->expected(1)
                   ->allow_extra_args(false)  // one value per flag; keeps CLI11 from splitting "[1,2]"
                   ->take_all();
               sub.add_option("-a,--attr,--attrs", a->attrs, "an attribute NAME=VALUE (axes=[0,1], to=f16, keepdims=true)")
                   ->expected(1)
                   ->allow_extra_args(false)
                   ->take_all();
               sub.add_option("--tier", a->tier, "debug | prod | fast (debug refuses a non-IEEE FP environment)")
                   ->capture_default_str();
               sub.add_option("--expect", a->expect, "compare the first result with this tensor");
               sub.add_option("--class", a->cls, "tolerance class for --expect: exact | tight | default | loose")
                   ->capture_default_str();
               sub.add_flag("--json", a->json, "print JSON");
               sub.add_flag("--bits", a->bits, "also print each element's bit pattern");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
